import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import * as hdr from 'hdr-histogram-js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { HdrLogError, LATENCY_TAG, readHdrLog, writeHdrLog } from '../../src/load/shards/hdr-log.ts';
import { encodeHistogram, HIGHEST_US, newHistogram, recordUs, type Histogram } from '../../src/load/stats/histogram.ts';
import { MergeError, mergeShards } from '../../src/load/shards/merge.ts';
import type { LoadRunResult } from '../../src/load/result.ts';
import { globalWorkerIndex, parseShard, parseStartAt, shareOf, ShardError, sleepUntil } from '../../src/load/shards/shard.ts';
import { collectShards, ShardInputError, type ShardInput } from '../../src/load/shards/shard-files.ts';
import { formatShardBlocks, ShardMarkerError, splitShardBlocks } from '../../src/load/shards/shard-markers.ts';
import { parseShardRecord, ShardRecordError, toShardRecord } from '../../src/load/shards/shard-record.ts';
import { shardReportFiles } from '../../src/report/load/shard.ts';
import { toLoadMarkdown } from '../../src/report/load/md.ts';
import { loadExitCode } from '../../src/check/run/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'pouchproof-shards-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 0, 1, 12);

/** A shard result as `load --shard` makes it, with `samples` (µs) as its latencies. */
function shardResult(index: number, count: number, samples: readonly number[], o: { startMs?: number; requested?: number; scenario?: string } = {}): LoadRunResult {
  const h = newHistogram();
  for (const s of samples) recordUs(h, s);
  const encoded = encodeHistogram(h);
  h.destroy();
  const n = samples.length;
  const ok = Math.max(0, n - 1);
  return {
    runId: `r-shard-${index}-of-${count}`, scenario: o.scenario ?? 'commit-throughput', description: 'd', unit: 'ops',
    target: { url: 'http://127.0.0.1:1', embedded: false }, model: 'open', rate: 100, connections: 4, workers: 1,
    durationMs: 2000, maxRequests: 1000, seed: 7, params: { ops: 1 }, startedAt: new Date(o.startMs ?? T0).toISOString(),
    totals: { sent: n, completed: n, ok, notOk: n - ok, errors: n - ok, dropped: 0, unsent: 0, units: ok, bytesSent: 10 * n, wallMs: 2000 },
    rates: { rps: n / 2, okPerSecond: 0, goodput: 0 }, errorRate: 0,
    latency: { count: n, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 }, spectrum: [], histogram: encoded,
    errorLatency: { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 }, errorHistogram: encoded,
    timeline: [{ completed: n - ok, ok: 0, units: 0, errors: n - ok, offered: n - ok }, { completed: ok, ok, units: ok, errors: 0, offered: ok }, { completed: 0, ok: 0, units: 0, errors: 0, offered: 0 }],
    reasons: { 'http 500': n - ok }, kinds: { commit: { sent: n, ok, units: ok } }, stats: { applied: ok },
    checks: [{ name: 'heads', passed: true, message: 'ok' }],
    generator: { busy: [0.1], loopUtilization: [0.2], prepareMs: [0], limited: false, note: 'headroom' },
    thresholds: [], interrupted: false, startMs: o.startMs ?? T0,
    shard: { index, count, requestedStartMs: o.requested ?? T0 },
  };
}

/** Through the files a shard writes and a merge reads. */
function asInput(r: LoadRunResult, thresholds: readonly string[] = []): ShardInput {
  const files = shardReportFiles(r, thresholds);
  return { record: parseShardRecord(files['shard.json']!, 'shard.json'), histograms: readHdrLog(files['shard.hlog']!, 'shard.hlog'), source: r.runId };
}

function decode(e: string): Histogram {
  return hdr.decodeFromCompressedBase64(e, 32, false) as Histogram;
}

describe('--shard and --start-at', () => {
  it('parses I/N, 0-based, and refuses the rest with a message', () => {
    expect(parseShard('0/4')).toEqual({ index: 0, count: 4 });
    expect(parseShard(' 3 / 4 ')).toEqual({ index: 3, count: 4 });
    for (const bad of ['4/4', '1', '-1/3', '1/0', 'a/b', '1/3/5', '0/100000']) expect(() => parseShard(bad), bad).toThrow(ShardError);
  });

  it('takes ISO times with a zone or epoch ms; a passed start runs now with a warning; more than an hour ahead is refused', () => {
    const now = T0;
    expect(parseStartAt(String(now + 5000), now)).toEqual({ requestedMs: now + 5000, atMs: now + 5000 });
    expect(parseStartAt(new Date(now + 60_000).toISOString(), now).atMs).toBe(now + 60_000);
    const late = parseStartAt(String(now - 30_000), now);
    expect(late.atMs).toBe(now);
    expect(late.requestedMs).toBe(now - 30_000);
    expect(late.warning).toMatch(/late/);
    expect(parseStartAt(String(now - 500), now).warning).toBeUndefined();
    expect(() => parseStartAt(String(now + 2 * 3_600_000), now)).toThrow(/ahead/);
    for (const bad of ['soon', '2026-01-01', '2026-01-01T12:00:00', '12']) expect(() => parseStartAt(bad, now), bad).toThrow(ShardError);
  });

  it('splits a total into parts that add up, and gives every worker of every shard its own seed', () => {
    for (const [total, parts] of [[10, 3], [2, 5], [64, 4]] as const) expect(Array.from({ length: parts }, (_, i) => shareOf(total, parts, i)).reduce((a, b) => a + b)).toBe(total);
    // Shards on machines with different worker counts: indexes (hence seeds) still never meet.
    const seeds = new Set<number>();
    const workersPerShard = [1, 4, 2, 3];
    workersPerShard.forEach((w, s) => {
      for (let i = 0; i < w; i++) seeds.add((123 + globalWorkerIndex({ index: s, count: 4 }, i) * 0x9e37) >>> 0);
    });
    expect(seeds.size).toBe(10);
  });
});

describe('shard histogram log', () => {
  it('is an HdrHistogram interval log any reader takes: tagged, compressed V2, the same counts', () => {
    const h = newHistogram();
    for (let i = 1; i <= 500; i++) recordUs(h, i * 97);
    const log = writeHdrLog({ [LATENCY_TAG]: encodeHistogram(h), 'latency-error': encodeHistogram(h) }, T0, T0 + 2000, 'test');
    expect(log).toMatch(/^Tag=latency,0\.000,2\.000,[0-9.]+,HIST/m);
    const reader = new hdr.HistogramLogReader(log, 32, false);
    const first = reader.nextIntervalHistogram()!;
    expect(first.tag).toBe('latency');
    expect(first.totalCount).toBe(500);
    expect(encodeHistogram(first as Histogram)).toBe(encodeHistogram(h));
    expect(reader.nextIntervalHistogram()!.tag).toBe('latency-error');
    expect(reader.nextIntervalHistogram()).toBeNull();
    expect(reader.startTimeSec).toBeCloseTo(T0 / 1000, 3);
    expect(Object.keys(readHdrLog(log, 'x')).sort()).toEqual(['latency', 'latency-error']);
    h.destroy();
  });

  it('refuses a corrupt log, naming it', () => {
    const h = newHistogram();
    recordUs(h, 5);
    const log = writeHdrLog({ [LATENCY_TAG]: encodeHistogram(h) }, T0, T0 + 1000, 'x');
    expect(() => readHdrLog(log.replace(/HIST\w{12}/, 'HISTAAAAAAAAAAAA'), 'a.hlog')).toThrow(HdrLogError);
    expect(() => readHdrLog('not,a,log\n', 'b.hlog')).toThrow(/b\.hlog/);
    expect(() => readHdrLog('#only a comment\n', 'c.hlog')).toThrow(/no "latency"/);
    h.destroy();
  });
});

describe('load merge', () => {
  it('equals, bucket for bucket, one histogram fed every shard\'s samples', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: 1, max: 50_000_000 }), { maxLength: 200 }), { minLength: 1, maxLength: 5 }), (perShard) => {
        const all = newHistogram();
        for (const s of perShard.flat()) recordUs(all, s);
        const k = perShard.length;
        const { result, histograms } = mergeShards(perShard.map((s, i) => asInput(shardResult(i, k, s))));
        const merged = decode(histograms[LATENCY_TAG]!);
        try {
          expect(merged.totalCount).toBe(all.totalCount);
          expect(result.latency.count).toBe(perShard.flat().length);
          // Every bucket, recorded in or not, holds the same count in both.
          const [m, a] = [merged, all] as unknown as hdr.JsHistogram[];
          const differ: number[] = [];
          for (let i = 0; i <= a!.countsArrayIndex(HIGHEST_US); i++) if (m!.getCountAtIndex(i) !== a!.getCountAtIndex(i)) differ.push(i);
          expect(differ).toEqual([]);
          expect(encodeHistogram(merged)).toBe(encodeHistogram(all));
        } finally {
          merged.destroy();
          all.destroy();
        }
      }),
      { numRuns: 15 },
    );
  });

  it('adds counters and lays timelines on one clock', () => {
    const a = shardResult(0, 2, [1000, 2000, 3000]);
    const b = shardResult(1, 2, [4000, 5000], { startMs: T0 + 1000 });
    const { result: r } = mergeShards([asInput(a), asInput(b)]);
    expect(r.totals.sent).toBe(5);
    expect(r.totals.errors).toBe(2);
    expect(r.reasons).toEqual({ 'http 500': 2 });
    expect(r.rate).toBe(200);
    expect(r.totals.wallMs).toBe(3000);
    // b started a second later: its first second is a's second.
    expect(r.timeline.map((t) => t.completed)).toEqual([1, 2 + 1, 1, 0]);
    expect(r.timeline.reduce((s, t) => s + t.completed, 0)).toBe(5);
    expect(r.checks.map((c) => c.name)).toEqual(['shard 0: heads', 'shard 1: heads']);
    expect(r.merged).toMatchObject({ count: 2, present: [0, 1], missing: [], late: [] });
  });

  it('reports missing, duplicate and late shards', () => {
    const { result: r } = mergeShards([asInput(shardResult(0, 4, [10])), asInput(shardResult(2, 4, [10], { startMs: T0 + 30_000 })), asInput(shardResult(0, 4, [10]))]);
    expect(r.merged).toMatchObject({ count: 4, present: [0, 2], missing: [1, 3], duplicates: [0], late: [{ index: 2, lateMs: 30_000 }] });
    expect(r.totals.sent).toBe(2);
    expect(toLoadMarkdown(r)).toMatch(/Missing shards: 1, 3/);
    expect(toLoadMarkdown(r)).toMatch(/Shard 2 started 30\.0 s late/);
  });

  it('judges thresholds on the whole: the shards\' own, or the ones given', () => {
    const shards = [asInput(shardResult(0, 2, [1000, 2000]), ['p99<1s']), asInput(shardResult(1, 2, [900_000]), ['p99<1s'])];
    const own = mergeShards(shards).result;
    expect(own.thresholds.map((t) => [t.threshold, t.passed])).toEqual([['p99<1s', true]]);
    expect(loadExitCode(own)).toBe(0);
    const broken = mergeShards(shards, { thresholds: ['p99<500ms', 'rps>1/s'] }).result;
    expect(broken.thresholds.map((t) => t.passed)).toEqual([false, true]);
    expect(loadExitCode(broken)).toBe(1);
    expect(() => mergeShards(shards, { thresholds: ['p99<<1'] })).toThrow(MergeError);
  });

  it("judges the whole where each shard judged its share: a shard's abort fails the merge and is named; the stages add up", () => {
    const stages = { unit: 'rate' as const, stages: [{ durationMs: 1000, target: 50 }, { durationMs: 1000, target: 0 }] };
    const aborted = { ...shardResult(1, 2, [900_000]), stages, aborted: { threshold: 'p99<800ms:abort', actualText: '900.00ms', atMs: 1200 } };
    const shards = [asInput({ ...shardResult(0, 2, [1000, 2000]), stages }, ['p99<800ms:abort']), asInput(aborted, ['p99<800ms:abort'])];
    const r = mergeShards(shards).result;
    expect(r.failedBecause).toMatch(/^shard 1 aborted at 1\.2 s: threshold p99<800ms:abort broken \(actual 900\.00ms\)/);
    expect(loadExitCode(r)).toBe(1);
    expect(r.stages?.stages.map((x) => x.target)).toEqual([100, 0]);
    // Without the abort, the same figures pass on the whole: p99 of three samples is judged once, on all of them.
    const whole = mergeShards([shards[0]!, asInput(shardResult(1, 2, [700_000]), ['p99<800ms:abort'])]).result;
    expect(whole.failedBecause).toBeUndefined();
  });

  it('refuses shards of different runs', () => {
    expect(() => mergeShards([asInput(shardResult(0, 2, [1])), asInput(shardResult(1, 3, [1]))])).toThrow(/shard count/);
    expect(() => mergeShards([asInput(shardResult(0, 2, [1])), asInput(shardResult(1, 2, [1], { scenario: 'mixed' }))])).toThrow(/scenario/);
    expect(() => mergeShards([asInput(shardResult(0, 2, [1]))], { expectShards: 3 })).toThrow(/expect-shards/);
  });

  it('reads shard.json strictly', () => {
    expect(() => parseShardRecord('{', 'x.json')).toThrow(ShardRecordError);
    const rec = toShardRecord(shardResult(0, 2, [1]), []);
    expect(() => parseShardRecord(JSON.stringify({ ...rec, result: { ...rec.result, totals: { sent: 'many' } } }), 'y.json')).toThrow(/y\.json.*result\.totals/);
    expect(() => parseShardRecord(JSON.stringify({ ...rec, result: { ...rec.result, shard: { index: 2, count: 2 } } }), 'z.json')).toThrow(/not below/);
  });
});

describe('shard files through kubectl logs', () => {
  it('finds every shard in concatenated pod logs, with or without --prefix, among other output', () => {
    const blocks = [0, 1].map((i) => formatShardBlocks(`${i}/2`, shardReportFiles(shardResult(i, 2, [100 * (i + 1)]), [])));
    const plain = `pouchproof load: …\n${blocks[0]}progress line\n${blocks[1]}`;
    const prefixed = blocks.map((b, i) => b.split('\n').filter(Boolean).map((l) => `[pod/load-${i}-x/load] ${l}`).join('\n')).join('\n');
    for (const text of [plain, prefixed]) {
      const found = splitShardBlocks(text, 'logs');
      expect(found.map((b) => `${b.label} ${b.name}`)).toEqual(['0/2 shard.json', '0/2 shard.hlog', '1/2 shard.json', '1/2 shard.hlog']);
      expect(() => parseShardRecord(found[2]!.content, 'x')).not.toThrow();
    }
    expect(() => splitShardBlocks(plain.slice(0, plain.length - 60), 'cut.log')).toThrow(ShardMarkerError);
  });

  it('collects shards from a logs file, a shard directory or shard.json, and says what is wrong with bad input', async () => {
    const files = [0, 1, 2].map((i) => shardReportFiles(shardResult(i, 3, [10 + i]), []));
    writeFileSync(join(dir, 'shards.log'), files.map((f, i) => formatShardBlocks(`${i}/3`, f)).join('noise\n'));
    expect((await collectShards([join(dir, 'shards.log')])).map((s) => s.record.result.shard.index)).toEqual([0, 1, 2]);
    const sub = mkdtempSync(join(dir, 'run-'));
    writeFileSync(join(sub, 'shard.json'), files[0]!['shard.json']!);
    writeFileSync(join(sub, 'shard.hlog'), files[0]!['shard.hlog']!);
    expect(await collectShards([dir])).toHaveLength(1);
    expect(await collectShards([join(sub, 'shard.json')])).toHaveLength(1);
    await expect(collectShards([])).rejects.toThrow(ShardInputError);
    await expect(collectShards([join(dir, 'none')])).rejects.toThrow(/does not exist/);
    writeFileSync(join(dir, 'empty.log'), 'nothing here\n');
    await expect(collectShards([join(dir, 'empty.log')])).rejects.toThrow(/no shard found/);
    writeFileSync(join(sub, 'shard.hlog'), 'Tag=latency,0.0,1.0,1.0,HISTgarbage\n');
    await expect(collectShards([sub])).rejects.toThrow(HdrLogError);
  });
});

describe('waiting for the shared start', () => {
  it('returns at the time, or at once when aborted', async () => {
    const t = Date.now();
    await sleepUntil(t + 50);
    expect(Date.now()).toBeGreaterThanOrEqual(t + 50);
    const ac = new AbortController();
    const waiting = sleepUntil(Date.now() + 3_600_000, ac.signal);
    ac.abort();
    await expect(waiting).resolves.toBeUndefined();
  });
});

describe('pouchproof load: bad shard input', () => {
  it('exits 4 with one line before anything starts', async () => {
    const { default: load } = await import('../../src/cli/commands/load.ts');
    const base = { scenario: 'commit-throughput', duration: '1s', threshold: [], param: [], fault: [], 'allow-remote': false, 'report-dir': dir, 'print-shard': false };
    for (const [extra, why] of [
      [{ shard: '3/3' }, /0-based/],
      [{ shard: 'x' }, /expected I\/N/],
      [{ shard: '0/2', 'start-at': 'soon' }, /bad --start-at/],
      [{ shard: '0/2', 'start-at': String(Date.now() + 7_200_000) }, /ahead/],
      [{ 'print-shard': true }, /--print-shard needs --shard/],
      [{ shard: '0/2', threshold: ['p99<<1'] }, /bad threshold/],
    ] as const) {
      const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      let code: number;
      let said = '';
      try {
        code = await load.handler({ ...base, ...extra });
        said = err.mock.calls.map((c) => String(c[0])).join('');
      } finally {
        err.mockRestore();
        out.mockRestore();
      }
      expect(code, JSON.stringify(extra)).toBe(4);
      expect(said).toMatch(why);
      expect(said.trim().split('\n')).toHaveLength(1);
    }
  });
});

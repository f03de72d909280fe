import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import * as hdr from 'hdr-histogram-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHdrLog } from '../../src/load/shards/hdr-log.ts';
import { encodeHistogram, HIGHEST_US, newHistogram } from '../../src/load/stats/histogram.ts';
import { mergeShards } from '../../src/load/shards/merge.ts';
import { mergePhases, PHASES, phaseFigures, PhaseRecorder, type PhaseHistograms, type PhaseTimes } from '../../src/load/stats/phases.ts';
import type { LoadRunResult } from '../../src/load/result.ts';
import { Sender } from '../../src/load/http1/sender.ts';
import { parseShardRecord } from '../../src/load/shards/shard-record.ts';
import { shardReportFiles } from '../../src/report/load/shard.ts';
import { toLoadMarkdown } from '../../src/report/load/md.ts';
import { loadSection } from '../../src/report/load/charts.ts';

const T0 = Date.UTC(2026, 0, 1, 12);
const ZERO = { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };

/** A request's instants from its phases' durations (ms), opening a connection (with TLS) when asked. */
function times(d: readonly number[], open: boolean, tls: boolean): PhaseTimes {
  const [blocked, connect, handshake, send, wait, receive] = d as [number, number, number, number, number, number];
  const assigned = T0 + blocked;
  const connected = open ? assigned + connect : 0;
  const secured = open && tls ? connected + handshake : 0;
  const ready = secured || connected || assigned;
  const written = ready + send;
  return { intended: T0, assigned, opened: open ? assigned : 0, connected, secured, written, firstByte: written + wait, ended: written + wait + receive };
}

/** A shard's result whose only figures that matter here are its phases. */
function shard(index: number, count: number, phases: PhaseHistograms): LoadRunResult {
  const h = newHistogram();
  const empty = encodeHistogram(h);
  h.destroy();
  return {
    runId: `r-${index}`, scenario: 'commit-throughput', description: 'd', unit: 'ops', target: { url: 'http://127.0.0.1:1', embedded: false },
    model: 'closed', connections: 2, workers: 1, durationMs: 1000, maxRequests: 10, seed: 1, params: {}, startedAt: new Date(T0).toISOString(),
    totals: { sent: 0, completed: 0, ok: 0, notOk: 0, errors: 0, dropped: 0, unsent: 0, units: 0, bytesSent: 0, wallMs: 1000 },
    rates: { rps: 0, okPerSecond: 0, goodput: 0 }, errorRate: 0, latency: ZERO, errorLatency: ZERO, errorHistogram: empty, spectrum: [], histogram: empty,
    timeline: [], reasons: {}, kinds: {}, stats: {}, checks: [], generator: { busy: [0], loopUtilization: [0], prepareMs: [0], limited: false, note: 'headroom' },
    phases: phaseFigures(phases), thresholds: [], interrupted: false, startMs: T0, shard: { index, count },
  };
}

function bucketsDiffer(a: string, b: string): number[] {
  const [x, y] = [a, b].map((e) => hdr.decodeFromCompressedBase64(e, 32, false) as unknown as hdr.JsHistogram);
  const differ: number[] = [];
  for (let i = 0; i <= x!.countsArrayIndex(HIGHEST_US); i++) if (x!.getCountAtIndex(i) !== y!.getCountAtIndex(i)) differ.push(i);
  if (x!.totalCount !== y!.totalCount) differ.push(-1);
  x!.destroy();
  y!.destroy();
  return differ;
}

describe('phase recording', () => {
  it('splits a request into blocked, connect, TLS, send, wait and receive', () => {
    const r = new PhaseRecorder();
    r.record(times([2, 3, 5, 1, 40, 7], true, true));
    r.record(times([1, 0, 0, 2, 20, 3], false, false));
    const f = phaseFigures(r.finish());
    expect(f.blocked.latency.count).toBe(2);
    // Only the request that opened a connection has a connect and a TLS phase.
    expect([f.connect.latency.count, f.tls.latency.count]).toEqual([1, 1]);
    // min is a bucket's lowest value: exact here (HdrHistogram keeps 3 significant digits).
    expect([f.connect.latency.min, f.tls.latency.min]).toEqual([3000, 5000]);
    expect([f.wait.latency.min, f.receive.latency.min, f.send.latency.min, f.blocked.latency.min]).toEqual([20_000, 3000, 1000, 1000]);
    expect(f.wait.latency.max).toBeGreaterThanOrEqual(40_000);
  });

  it('two shards\' phase histograms merged equal, bucket for bucket, the whole', () => {
    const req = fc.tuple(fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 6, maxLength: 6 }), fc.boolean(), fc.boolean(), fc.boolean());
    fc.assert(
      fc.property(fc.array(req, { minLength: 1, maxLength: 60 }), (reqs) => {
        const whole = new PhaseRecorder();
        const parts = [new PhaseRecorder(), new PhaseRecorder()];
        for (const [d, open, tls, second] of reqs) {
          whole.record(times(d, open, tls));
          parts[second ? 1 : 0]!.record(times(d, open, tls));
        }
        const all = whole.finish();
        // Through the files each shard writes (shard.json, shard.hlog) and `load merge` reads.
        const inputs = parts.map((p, i) => {
          const files = shardReportFiles(shard(i, 2, p.finish()), []);
          return { record: parseShardRecord(files['shard.json']!, 'shard.json'), histograms: readHdrLog(files['shard.hlog']!, 'shard.hlog'), source: `s${i}` };
        });
        const merged = mergeShards(inputs).result.phases;
        expect(merged).toBeDefined();
        for (const p of PHASES) {
          expect(bucketsDiffer(merged![p].histogram, all[p]), p).toEqual([]);
          expect(merged![p].latency).toEqual(phaseFigures(all)[p].latency);
        }
      }),
      { numRuns: 20 },
    );
  });

  it('a merge of shards without phases (older ones) reports none rather than a part', () => {
    const old = (i: number): LoadRunResult => {
      const { phases: _p, ...rest } = shard(i, 2, mergePhases([]));
      return rest;
    };
    const inputs = [old(0), shard(1, 2, mergePhases([]))].map((r, i) => {
      const files = shardReportFiles(r, []);
      return { record: parseShardRecord(files['shard.json']!, 'shard.json'), histograms: readHdrLog(files['shard.hlog']!, 'shard.hlog'), source: `s${i}` };
    });
    expect(mergeShards(inputs).result.phases).toBeUndefined();
  });

  it('shows each phase in load.md and load.html', () => {
    const r = new PhaseRecorder();
    r.record(times([1, 2, 3, 4, 50, 6], true, true));
    const run = shard(0, 1, r.finish());
    expect(toLoadMarkdown(run)).toMatch(/## Phases of a request \(ms\)[\s\S]*\| wait \| 50\.0 \|/);
    expect(loadSection(run)).toContain('Phases of a request by percentile');
  });
});

describe('the sender records the phases of real requests', () => {
  let server: Server;
  let url = '';
  /** How long the server held each request before answering, as the server measured it (ms). */
  const held: number[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const t = performance.now();
      req.resume();
      req.on('end', () => setTimeout(() => {
        held.push(performance.now() - t);
        res.end('ok');
      }, 25));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('connect once per connection, and a wait no shorter than the server held the request', async () => {
    const s = new Sender(url, 1, 5000);
    s.measure();
    for (let i = 0; i < 3; i++) await s.request({ kind: 'k', method: 'POST', path: '/x', headers: {}, body: 'b' });
    await s.close();
    const f = phaseFigures(s.takePhases());
    expect([f.blocked.latency.count, f.connect.latency.count, f.tls.latency.count, f.wait.latency.count, f.receive.latency.count]).toEqual([3, 1, 0, 3, 3]);
    // The wait includes the server's hold; the histogram's 3 significant digits may round down by 0.1 %.
    expect(f.wait.latency.min / 1000).toBeGreaterThanOrEqual(Math.min(...held) * 0.999);
  });
});


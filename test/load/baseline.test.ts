import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareGates } from '../../src/load/gates/gates.ts';
import { LoadUsageError } from '../../src/load/launch.ts';
import { BaselineError, checkBaseline, compareWithBaseline, isRelativeThreshold, judgeRelative, parseRelativeThreshold, readBaseline, withBaseline, type BaselineRun } from '../../src/load/gates/baseline.ts';
import type { LoadRunResult } from '../../src/load/result.ts';
import { ThresholdError } from '../../src/load/gates/thresholds.ts';
import { loadExitCode } from '../../src/check/run/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'pouchproof-baseline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const latency = (p99: number) => ({ count: 1000, min: 100, mean: 900, p50: 800, p90: 2000, p99, p999: p99 * 2, max: p99 * 3 });
const stored = {
  version: 1, runId: 'base-run', scenario: 'commit-throughput', startedAt: '2026-11-25T00:00:00.000Z', model: 'open', rate: 200, connections: 64, durationMs: 3000,
  params: { ops: 1 }, target: { url: 'http://127.0.0.1:1', embedded: true }, latency: latency(10_000), errorRate: 0, rates: { rps: 200, okPerSecond: 200, goodput: 200 },
  spectrum: [{ percentile: 50, us: 800 }, { percentile: 99, us: 10_000 }], histogram: 'x', latencyUnit: 'us',
};
const current = (over: Partial<LoadRunResult>): LoadRunResult =>
  ({ ...stored, latency: latency(12_000), errorRate: 0.002, rates: { rps: 200, okPerSecond: 200, goodput: 188 }, thresholds: [], ...over }) as unknown as LoadRunResult;

describe('relative thresholds', () => {
  it('are told from absolute ones by their sign', () => {
    expect(['p99<+10%', 'goodput>-5%', 'errors <= +0.5pp'].every(isRelativeThreshold)).toBe(true);
    expect(['p99<50ms', 'errors<1%', 'goodput>2000/s'].some(isRelativeThreshold)).toBe(false);
  });

  it('parse into a signed bound on the change', () => {
    expect(parseRelativeThreshold('p99<+10%')).toMatchObject({ metric: 'p99', op: '<', value: 10, unit: '%' });
    expect(parseRelativeThreshold('goodput>-5%')).toMatchObject({ metric: 'goodput', op: '>', value: -5, unit: '%' });
    expect(parseRelativeThreshold('p99.9<=+0%')).toMatchObject({ metric: 'p99.9', op: '<=', value: 0 });
    expect(parseRelativeThreshold('errors<+0.5pp')).toMatchObject({ metric: 'errors', value: 0.5, unit: 'pp' });
    expect(parseRelativeThreshold('capacity>-10%')).toMatchObject({ metric: 'capacity', value: -10 });
    for (const bad of ['p99<+10ms', 'p99<+10pp', 'p98<+1%', 'p99<+%']) expect(() => parseRelativeThreshold(bad), bad).toThrow(ThresholdError);
  });

  it('judge the change from the baseline value', () => {
    expect(judgeRelative(parseRelativeThreshold('p99<+10%'), 10_900, 10_000)).toMatchObject({ passed: true });
    expect(judgeRelative(parseRelativeThreshold('p99<+10%'), 11_000, 10_000)).toMatchObject({ passed: false, actualText: '+10.0% (10.00ms → 11.00ms)' });
    expect(judgeRelative(parseRelativeThreshold('goodput>-5%'), 940, 1000).passed).toBe(false);
    expect(judgeRelative(parseRelativeThreshold('goodput>-5%'), 960, 1000).passed).toBe(true);
    // From a zero error rate: no change is 0 %, any error an infinite rise; points bound it usefully.
    expect(judgeRelative(parseRelativeThreshold('errors<+10%'), 0, 0).passed).toBe(true);
    expect(judgeRelative(parseRelativeThreshold('errors<+10%'), 0.001, 0).passed).toBe(false);
    expect(judgeRelative(parseRelativeThreshold('errors<+0.5pp'), 0.004, 0)).toMatchObject({ passed: true, actualText: '+0.40 pp (0.000% → 0.400%)' });
    expect(judgeRelative(parseRelativeThreshold('errors<+0.5pp'), 0.006, 0).passed).toBe(false);
  });
});

describe('baselines', () => {
  const file = join(dir, 'load.json');
  writeFileSync(file, JSON.stringify(stored));

  it('reads a stored load.json, or the one in a run directory', async () => {
    const b = await readBaseline(file);
    expect(b).toMatchObject({ runId: 'base-run', scenario: 'commit-throughput', rate: 200 });
    expect((await readBaseline(dir)).path).toBe(file);
  });

  it('refuses a missing, corrupt or foreign file with one line naming it', async () => {
    writeFileSync(join(dir, 'corrupt.json'), '{"version":1,');
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ version: 1, runId: 'x' }));
    for (const [path, why] of [[join(dir, 'nope.json'), /no such file/], [join(dir, 'corrupt.json'), /not JSON/], [join(dir, 'other.json'), /not a pouchproof load.json \(scenario/]] as const) {
      const e = await readBaseline(path).then(() => undefined, (x: unknown) => x);
      expect(e, path).toBeInstanceOf(BaselineError);
      expect((e as Error).message).toMatch(why);
      expect((e as Error).message).not.toContain('\n');
    }
  });

  it('refuses a baseline of another scenario, and capacity thresholds without capacity figures', async () => {
    const b = await readBaseline(file);
    expect(() => checkBaseline(b, 'usage-flood', [], false)).toThrow(/scenario commit-throughput, not usage-flood/);
    expect(() => checkBaseline(b, 'commit-throughput', [parseRelativeThreshold('capacity>-5%')], false)).toThrow(/--find-capacity/);
    expect(() => checkBaseline(b, 'commit-throughput', [parseRelativeThreshold('capacity>-5%')], true)).toThrow(/no capacity figure/);
    expect(() => checkBaseline(b, 'commit-throughput', [parseRelativeThreshold('p99<+5%')], false)).not.toThrow();
  });

  it('compares metric by metric and sets exit 1 when a relative threshold breaks', async () => {
    const b: BaselineRun = await readBaseline(file);
    const rel = ['p99<+10%', 'goodput>-10%', 'errors<+0.5pp'].map(parseRelativeThreshold);
    const c = compareWithBaseline(current({ connections: 16 }), b, rel);
    const p99 = c.rows.find((x) => x.metric === 'p99')!;
    expect(p99).toMatchObject({ baseline: 10_000, current: 12_000, changeText: '+20.0%' });
    expect(c.thresholds.map((t) => [t.threshold, t.passed])).toEqual([['p99<+10%', false], ['errors<+0.5pp', true], ['goodput>-10%', true]]);
    expect(c.caveats).toEqual(['connections differ: 64 then, 16 now']);
    expect(c.rows.map((x) => x.metric)).not.toContain('capacity');
    const judged = withBaseline(current({}), c);
    expect(loadExitCode(judged)).toBe(1);
    expect(judged.thresholds.map((t) => t.threshold)).toContain('p99<+10%');
    expect(loadExitCode(withBaseline(current({}), compareWithBaseline(current({}), b, [parseRelativeThreshold('p99<+50%')])))).toBe(0);
  });

  it('checks every gate before a run: relative thresholds need a baseline, rate bounds a search', async () => {
    await expect(prepareGates('commit-throughput', { thresholds: ['p99<50ms', 'p99<+10%'] })).rejects.toThrow(/relative: it needs a run to compare with, --baseline/);
    await expect(prepareGates('commit-throughput', { thresholds: [], maxRate: 100 })).rejects.toThrow(LoadUsageError);
    await expect(prepareGates('commit-throughput', { thresholds: [], findCapacity: 'p99<+10%' })).rejects.toThrow(/--find-capacity/);
    await expect(prepareGates('usage-flood', { thresholds: ['p99<+10%'], baseline: file })).rejects.toThrow(BaselineError);
    const g = await prepareGates('commit-throughput', { thresholds: ['p99<50ms', 'goodput>-5%'], baseline: dir, findCapacity: 'p99<20ms', stepMs: 1000 });
    expect(g.absolute).toEqual(['p99<50ms']);
    expect(g.relative.map((t) => t.source)).toEqual(['goodput>-5%']);
    expect(g.capacity).toEqual({ objective: 'p99<20ms', stepMs: 1000 });
  });

  it('compares two capacity searches by their capacity figure', async () => {
    const b: BaselineRun = { ...(await readBaseline(file)), capacity: 1000 };
    const searched = (capacity: number) => current({ capacity: { capacity } as LoadRunResult['capacity'] });
    const c = compareWithBaseline(searched(900), b, [parseRelativeThreshold('capacity>-5%')]);
    expect(c.rows.find((x) => x.metric === 'capacity')).toMatchObject({ baselineText: '1,000 req/s', currentText: '900 req/s', changeText: '-10.0%' });
    expect(c.thresholds).toEqual([expect.objectContaining({ threshold: 'capacity>-5%', passed: false })]);
    expect(compareWithBaseline(searched(980), b, [parseRelativeThreshold('capacity>-5%')]).thresholds[0]!.passed).toBe(true);
    // A search that found no capacity has nothing to compare: the threshold is broken, not skipped.
    expect(compareWithBaseline(current({ capacity: {} as LoadRunResult['capacity'] }), b, [parseRelativeThreshold('capacity>-5%')]).thresholds[0]).toMatchObject({ passed: false, actualText: 'no figure in this run to compare' });
  });
});

import { describe, expect, it } from 'vitest';
import { loadEmbedded } from './embedded.ts';

describe('cost-curve', () => {
  it('flags the quadratic blob-id check and not the correct reference', async () => {
    const opts = { scenario: 'cost-curve', params: { axes: 'blobs' }, connections: 1, workers: 0, durationMs: 4000, seed: 3 } as const;
    const bad = (await loadEmbedded({ ...opts, faults: ['quadratic-blob-ids'] })).result;
    const curve = bad.curves?.find((c) => c.axis === 'blobs');
    expect(curve?.points.map((p) => p.value)).toEqual([0, 250, 500, 1000, 2000]);
    expect(curve?.verdict.superlinear, curve?.verdict.message).toBe(true);
    expect(bad.exitCode).toBe(1);
    const good = (await loadEmbedded(opts)).result;
    expect(good.curves?.[0]?.verdict.superlinear, good.curves?.[0]?.verdict.message).toBe(false);
    expect(good.totals.notOk).toBe(0);
  }, 30_000);
});

describe('usage-flood', () => {
  it('checks max-merge: passes on the reference, fails when rows are summed', async () => {
    const opts = { scenario: 'usage-flood', params: { sources: 4, rows: 10 }, connections: 4, workers: 0, durationMs: 800, seed: 9 } as const;
    const good = (await loadEmbedded(opts)).result;
    expect(good.checks[0]?.passed, good.checks[0]?.message).toBe(true);
    expect(good.rates.goodput).toBeGreaterThan(0);
    const bad = (await loadEmbedded({ ...opts, faults: ['usage-summed'] })).result;
    expect(bad.checks[0]?.passed).toBe(false);
  });
});

describe('commit-throughput and mixed', () => {
  it('applies every commit of commit-throughput, in worker threads', async () => {
    const { result } = await loadEmbedded({ scenario: 'commit-throughput', params: { ops: 5, blobs: 3 }, connections: 4, workers: 2, durationMs: 1500, seed: 1 });
    expect(result.totals.ok).toBeGreaterThan(20);
    expect(result.totals.notOk).toBe(0);
    expect(result.totals.units).toBe(result.totals.ok * 5);
    expect(result.generator.loopUtilization).toHaveLength(2);
    expect(result.latency.count).toBe(result.totals.completed);
  });

  it('runs the mixed blend with every part and its checks', async () => {
    const { result } = await loadEmbedded({ scenario: 'mixed', connections: 6, workers: 0, durationMs: 1200, seed: 2 });
    expect(Object.keys(result.kinds).sort()).toEqual(['commit-contention', 'commit-throughput', 'usage-flood']);
    expect(result.checks.map((c) => c.passed)).toEqual([true, true]);
  });
});

describe('interruption', () => {
  it('ends early on abort, in worker threads too, and keeps what was measured', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 1500);
    const started = Date.now();
    const { result } = await loadEmbedded({ scenario: 'commit-throughput', connections: 4, workers: 2, durationMs: 20_000, warmupMs: 200, seed: 4, signal: ac.signal });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.interrupted).toBe(true);
    expect(result.totals.ok).toBeGreaterThan(0);
    expect(result.latency.count).toBe(result.totals.completed);
  });

  it('is not marked interrupted when it runs its course', async () => {
    const { result } = await loadEmbedded({ scenario: 'commit-throughput', connections: 2, workers: 0, durationMs: 500, warmupMs: 100, seed: 4 });
    expect(result.interrupted).toBe(false);
  });
});

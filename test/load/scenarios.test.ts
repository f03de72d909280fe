import { describe, expect, it } from 'vitest';
import { confirmed } from '../../scenarios/checks.ts';
import { loadEmbedded } from './embedded.ts';
import { endsBefore } from '../timing.ts';

describe('load checks', () => {
  it('count a detection only when a second run confirms it', async () => {
    const flaky = (pattern: boolean[]) => {
      let i = 0;
      return confirmed(async () => ({ detected: pattern[i++] ?? false, message: `run ${i}`, requests: 10 }));
    };
    expect(await flaky([true, true])([])).toEqual({ detected: true, message: 'run 2 (confirmed by a second run)', requests: 20 });
    expect(await flaky([true, false])([])).toMatchObject({ detected: false, message: 'not confirmed: the first run found run 1, a second run run 2', requests: 20 });
    expect(await flaky([false, true])([])).toEqual({ detected: false, message: 'run 1', requests: 10 });
  });
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
    // Aborts once measured responses have come back (not after a fixed delay, which a loaded machine
    // can spend starting the workers), then checks the run ended before a timer of its 20 s, set beside
    // it, fired: an order of two events, which a slow machine delays alike.
    const ac = new AbortController();
    const durationMs = 20_000;
    const onProgress = (line: string) => {
      if (Number(/ (\d+) responses/.exec(line)?.[1] ?? 0) > 0) ac.abort();
    };
    const { value: { result }, endedFirst } = await endsBefore(durationMs, () => loadEmbedded({ scenario: 'commit-throughput', connections: 4, workers: 2, durationMs, warmupMs: 200, seed: 4, signal: ac.signal, onProgress, progressEveryMs: 50 }));
    expect(ac.signal.aborted).toBe(true);
    expect(result.interrupted).toBe(true);
    expect(endedFirst).toBe(true);
    expect(result.totals.ok).toBeGreaterThan(0);
    expect(result.latency.count).toBe(result.totals.completed);
  }, 30_000);

  it('is not marked interrupted when it runs its course', async () => {
    const { result } = await loadEmbedded({ scenario: 'commit-throughput', connections: 2, workers: 0, durationMs: 500, warmupMs: 100, seed: 4 });
    expect(result.interrupted).toBe(false);
  });
});

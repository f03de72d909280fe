/**
 * The load engine against targets that misbehave: whatever the target does, a run ends within its
 * duration and a small grace, its memory stays flat, every request is timed (failed ones too), and
 * a run that measured nothing good does not pass. Runs are 2 s, in-process, with the reference's
 * credentials pointed at a small local server; the upper time bounds asserted are multiples of what a
 * timer of the run's duration took beside it (test/timing.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioByName } from '../../scenarios/index.ts';
import { runLoad, type RunLoadOptions } from '../../src/load/launch.ts';
import { abandonReason, RESPONSE_BODY_CAP_BYTES } from '../../src/load/http1/sender.ts';
import { DEFAULT_ERROR_BOUND } from '../../src/load/gates/thresholds.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { toLoadMarkdown } from '../../src/report/load/md.ts';
import { parseProfile } from '../../src/target/profile.ts';
import { always500, dripBody, endlessBody, hangEvery, type Local } from '../cli/misbehaving-servers.ts';
import { besideTimer } from '../timing.ts';
import { loadExitCode } from '../../src/check/run/index.ts';

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference();
});
afterAll(() => ref.close());

const DURATION_MS = 2000;
/**
 * A run ends within its duration, its warm-up (a tenth of it), the end-of-run grace and a wide margin:
 * within this many times what a timer of its duration, set beside it, took on this machine just then.
 */
const ENDS_WITHIN_TIMES = 5;
const MEMORY_GROWTH_BOUND = 200 * 1024 * 1024;

async function against(local: Local, o: Partial<RunLoadOptions> = {}) {
  let peak = process.memoryUsage().rss;
  const base = peak;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
  try {
    const { value: out, tookMs, timerMs } = await besideTimer(DURATION_MS, async () => runLoad({
      scenario: await loadScenarioByName('commit-throughput'),
      target: { profile: parseProfile({ ...ref.profile, baseUrl: local.url }), embedded: false, close: async () => undefined },
      durationMs: DURATION_MS,
      workers: 0,
      connections: 4,
      seed: 3,
      ...o,
    }));
    return { result: out.result, elapsedMs: tookMs, endsWithinMs: ENDS_WITHIN_TIMES * timerMs, growth: peak - base };
  } finally {
    clearInterval(sampler);
    await local.close();
  }
}

describe('load against a misbehaving target', () => {
  it('reads an endless body only up to the cap, abandons it, and keeps memory flat', async () => {
    const { result: r, elapsedMs, endsWithinMs, growth } = await against(await endlessBody());
    const capped = r.reasons[abandonReason('body-over-cap')] ?? 0;
    expect(capped, JSON.stringify(r.reasons)).toBeGreaterThan(0);
    expect(abandonReason('body-over-cap')).toContain(`${RESPONSE_BODY_CAP_BYTES / 1024 / 1024} MiB`);
    expect(growth, `rss grew ${(growth / 1024 / 1024).toFixed(0)} MB`).toBeLessThan(MEMORY_GROWTH_BOUND);
    expect(elapsedMs).toBeLessThan(endsWithinMs);
    expect(loadExitCode(r)).toBe(1);
  }, 30_000);

  it('abandons a body dripped a byte at a time when the run is over, and counts it', async () => {
    const { result: r, elapsedMs, endsWithinMs, growth } = await against(await dripBody());
    expect(r.reasons['abandoned-at-end'], JSON.stringify(r.reasons)).toBe(4);
    expect(r.totals.sent).toBe(r.totals.completed);
    // Each was timed until it was abandoned: about the whole run.
    expect(r.latency.min).toBeGreaterThanOrEqual(DURATION_MS * 1000 * 0.9);
    expect(growth).toBeLessThan(MEMORY_GROWTH_BOUND);
    expect(elapsedMs).toBeLessThan(endsWithinMs);
  }, 30_000);

  it('times a request that hangs past its timeout until it was abandoned: a hanging target shows a worse p99, not a better one', async () => {
    const timeoutMs = 600;
    const { result: r } = await against(await hangEvery(10), { timeoutMs });
    expect(r.reasons['timeout'], JSON.stringify(r.reasons)).toBeGreaterThan(0);
    expect(r.latency.count).toBe(r.totals.completed);
    // One request in ten hangs: the p99 is a timeout, the p50 an answer (fewer than half timed out: a
    // count, where a time bound on the answers would measure the machine).
    expect(r.latency.p99).toBeGreaterThanOrEqual(timeoutMs * 1000);
    expect(2 * (r.reasons['timeout'] ?? 0), JSON.stringify(r.reasons)).toBeLessThan(r.latency.count);
    // Failed requests are also kept apart: here every timeout, and every answer is malformed for a commit.
    expect(r.errorLatency.count).toBe(r.totals.errors);
    expect(r.errorLatency.max).toBeGreaterThanOrEqual(timeoutMs * 1000);
    expect(toLoadMarkdown(r)).toMatch(/latency covers every request, failed ones included.*failed-only: p50 [0-9.]+ ms/);
  }, 30_000);

  it('fails a run whose every response is a 500 without any threshold given, and says why in one line; a threshold replaces the default bound', async () => {
    const { result: r } = await against(await always500());
    expect(r.errorRate).toBeGreaterThan(DEFAULT_ERROR_BOUND);
    expect(loadExitCode(r)).toBe(1);
    expect(r.failedBecause).toMatch(/^no threshold given, and the default bound is broken: goodput>0\/s \(actual 0\.0\/s\), errors<=5% \(actual 100\.000%\)$/);
    expect(r.thresholds.every((t) => t.byDefault && !t.passed)).toBe(true);
    expect(toLoadMarkdown(r)).toContain('errors<=5%` (default bound)');

    const given = await against(await always500(), { thresholds: ['rps>1/s'], durationMs: 500 });
    expect(given.result.thresholds.map((t) => [t.threshold, t.passed, t.byDefault])).toEqual([['rps>1/s', true, undefined]]);
    expect(loadExitCode(given.result)).toBe(0);
  }, 30_000);
});

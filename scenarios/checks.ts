/**
 * The load checks that kill faults no conformance property can see (`load.*` killer ids of the
 * reference's faults): a latency cost that grows worse than linearly, and latency spikes that only
 * an open model (coordinated omission corrected) charges honestly. Each is a short scenario run
 * against the embedded reference with the given faults switched on.
 *
 * Their verdicts rest on latency, which a loaded machine can inflate for a moment: a detection counts
 * only when a second run confirms it (the cost curve confirms its own, axis by axis). A real defect
 * shows in every run; a descheduled process or a busy neighbour rarely hits two runs alike, so the
 * correct reference stays quiet on a loaded CI.
 */
import type { LoadCheck } from '../src/mutants/index.ts';
import { findCapacity, runLoad } from '../src/load/index.ts';
import { STALL_MS, STORE_HOLD_MS, STORE_POOL_SIZE } from '../src/reference/index.ts';
import { EMBEDDED_REFERENCE } from '../src/reference/embedded.ts';
import { loadScenarioByName } from './index.ts';

/** A check whose detection counts only when a second run detects too (the second run's figures are reported). */
export function confirmed(check: LoadCheck): LoadCheck {
  return async (faults) => {
    const first = await check(faults);
    if (!first.detected) return first;
    const second = await check(faults);
    const requests = first.requests + second.requests;
    return second.detected
      ? { detected: true, message: `${second.message} (confirmed by a second run)`, requests }
      : { detected: false, message: `not confirmed: the first run found ${first.message}, a second run ${second.message}`, requests };
  };
}

export const LOAD_CHECKS: Readonly<Record<string, LoadCheck>> = {
  // The scenario confirms a curve that looks worse than linear with a second sweep itself (src/load/stats/growth.ts).
  'load.cost-curve': async (faults) => {
    const { result } = await runLoad({ scenario: await loadScenarioByName('cost-curve'), target: { kind: 'embedded', faults }, ...EMBEDDED_REFERENCE, params: { axes: 'blobs' }, connections: 1, workers: 0, durationMs: 4000, seed: 3 });
    const bad = (result.curves ?? []).filter((c) => c.verdict.superlinear);
    return { detected: bad.length > 0, message: bad.map((c) => c.verdict.message).join('; ') || 'no axis grows worse than linearly', requests: result.totals.completed };
  },
  'load.open-model-p99': confirmed(async (faults) => {
    // Half the stall: a correct server is far below it, a stalling one (p99 ≈ STALL_MS − 1% of the period) far above.
    const threshold = `p99<${STALL_MS / 2}ms`;
    const p99 = async (f: readonly string[]) => {
      const { result } = await runLoad({ scenario: await loadScenarioByName('commit-throughput'), target: { kind: 'embedded', faults: f }, ...EMBEDDED_REFERENCE, rate: 200, durationMs: 3000, workers: 0, seed: 5, thresholds: [threshold] });
      return { ...result.thresholds[0]!, requests: result.totals.completed };
    };
    const run = await p99(faults);
    if (run.passed) return { detected: false, message: `${threshold} holds`, requests: run.requests };
    // A busy machine slows the correct reference as much: the p99 counts only by how far it exceeds the correct one's, measured just after it.
    const correct = await p99([]);
    const excessMs = (run.actual - correct.actual) / 1000;
    const detected = excessMs >= STALL_MS / 2;
    return { detected, message: `${threshold} broken: ${run.actualText}, ${excessMs.toFixed(1)} ms above the correct reference's ${correct.actualText} on the same machine${detected ? '' : ' (no more than the machine explains)'}`, requests: run.requests + correct.requests };
  }),
  'load.capacity': confirmed(async (faults) => {
    // A capacity search up to twice store-pool-queue's knee, where its queue grows by the knee's rate every second.
    // The correct reference holds that rate far within the objective; a step beyond the generator caused is no detection.
    const maxRate = (2 * STORE_POOL_SIZE * 1000) / STORE_HOLD_MS;
    const { result } = await findCapacity(
      { scenario: await loadScenarioByName('commit-throughput'), target: { kind: 'embedded', faults }, ...EMBEDDED_REFERENCE, workers: 1, seed: 7 },
      { objective: 'p99<100ms', startRate: maxRate / 4, maxRate, stepMs: 400, budgetMs: 10_000, maxSteps: 3, minRequests: 0 },
    );
    const c = result.capacity!;
    const requests = c.steps.reduce((a, s) => a + Math.round((s.sent * s.measuredMs) / 1000), 0);
    return { detected: c.firstBeyond !== undefined && c.status !== 'generator-limited' && c.status !== 'interrupted', message: c.message, requests };
  }),
};

/**
 * The closed model (k6's constant- and ramping-vus): each connection sends its next request as soon
 * as the previous one answers, latency measured from the actual send. It shows what a server
 * sustains, and hides its stalls (a stalled server simply receives fewer requests). With stages, the
 * number of busy connections follows them, interpolated linearly and rounded down.
 */
import type { ClosedModel } from './engine-options.ts';
import type { EngineRun, ModelDriver } from './engine-run.ts';
import { peakTarget, splitStages, stagesDurationMs, targetAt } from '../stages.ts';

/** Throws a one-line RangeError for a model this executor cannot run with `connections` over `durationMs`. */
export function validateClosed(m: ClosedModel, connections: number, durationMs: number): void {
  if (!m.stages) return;
  if (m.stages.length === 0) throw new RangeError('--stages needs at least one stage');
  for (const s of m.stages) {
    if (!(s.durationMs > 0) || !Number.isInteger(s.target) || s.target < 0) throw new RangeError(`a stage needs a positive duration and a whole number of connections (got ${s.durationMs} ms, ${s.target}c)`);
  }
  if (peakTarget(m.stages) <= 0) throw new RangeError('--stages never sends: every stage has 0 connections');
  if (peakTarget(m.stages) > connections) throw new RangeError(`the stages reach ${peakTarget(m.stages)} connections, more than the ${connections} given`);
  if (Math.abs(stagesDurationMs(m.stages) - durationMs) > 1) throw new RangeError(`the stages last ${stagesDurationMs(m.stages)} ms, the run ${durationMs} ms: with stages the run lasts as long as they do`);
}

/** Part `i` of `parts` (a worker's or a shard's): whole connections of every stage. */
export function shareClosed(m: ClosedModel, parts: number, i: number): ClosedModel {
  return m.stages ? { kind: 'closed', stages: splitStages(m.stages, parts, i) } : m;
}

/** The connections that may be busy `ms` into the run. */
export function connectionsAt(m: ClosedModel, connections: number, ms: number): number {
  return m.stages ? Math.floor(targetAt(m.stages, ms)) : connections;
}

/** How often the closed model looks at its clock when nothing completes: the end of the run, a ramp's next step. */
const CLOSED_TICK_MS = 50;

export function startClosed(run: EngineRun, m: ClosedModel): void {
  const limit = (): number => connectionsAt(m, run.o.connections, run.clock.now() - run.t0);
  const drain = (): void => {
    const n = limit();
    while (run.canSend(n) && run.clock.now() < run.tEnd) {
      const r = run.prefetch.pull();
      if (!r) break;
      const t = run.clock.now();
      run.timeline.offer(t);
      run.fire(r, t);
    }
  };
  let cancel: (() => void) | undefined;
  // Driven by completions; this timer only ends the run, follows a ramp, or retries a source that
  // had nothing to offer.
  const tick = (): void => {
    cancel = undefined;
    const t = run.clock.now();
    if (run.stopRequested()) return run.stop();
    const over = t >= run.tEnd || run.sent >= run.o.maxRequests;
    drain();
    if (over) return run.stop();
    const every = m.stages ? Math.min(CLOSED_TICK_MS, 10) : CLOSED_TICK_MS;
    // Idle with connections to fill: the source had nothing; retry soon. A ramp still at 0 connections waits its step.
    const retry = run.sender.inFlight.size === 0 && limit() > 0;
    cancel = run.clock.setTimeout(tick, retry ? 1 : Math.max(1, Math.min(every, run.tEnd - t)));
  };
  const driver: ModelDriver = { drain, exhausted: () => run.clock.now() >= run.tEnd, unsent: () => 0, dispose: () => cancel?.() };
  run.driver = driver;
  tick();
}

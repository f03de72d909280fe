/**
 * The open model (k6's constant- and ramping-arrival-rate): request i is due at its scheduled time
 * whatever happened before, and its latency counts from then, so a stall is charged to every request
 * it delayed (coordinated omission corrected, as wrk2 does). Requests due while every connection is
 * busy wait in a bounded queue; beyond it they are counted as dropped, never buffered without bound.
 */
import type { OpenModel } from './engine-options.ts';
import type { EngineRun, ModelDriver } from './engine-run.ts';
import { DueQueue } from './due-queue.ts';
import { Pacer } from './pacer.ts';
import { arrivalTimes, peakTarget, scaleStages, stagesDurationMs, type Stage } from '../stages.ts';

/** Throws a one-line RangeError for a model this executor cannot run over `durationMs`. */
export function validateOpen(m: OpenModel, durationMs: number): void {
  if (!(m.rate > 0) || !Number.isFinite(m.rate)) throw new RangeError(`the open model needs a positive rate, not ${m.rate}`);
  if (!m.stages) return;
  if (m.stages.length === 0) throw new RangeError('--stages needs at least one stage');
  for (const s of m.stages) {
    if (!(s.durationMs > 0) || !(s.target >= 0) || !Number.isFinite(s.target)) throw new RangeError(`a stage needs a positive duration and a rate of 0 or more (got ${s.durationMs} ms, ${s.target}/s)`);
  }
  if (peakTarget(m.stages) <= 0) throw new RangeError('--stages never sends: every stage has a rate of 0/s');
  if (Math.abs(stagesDurationMs(m.stages) - durationMs) > 1) throw new RangeError(`the stages last ${stagesDurationMs(m.stages)} ms, the run ${durationMs} ms: with stages the run lasts as long as they do`);
}

/** Part `i` of `parts` of the model (a worker's or a shard's): the rate of every stage, divided. */
export function shareOpen(m: OpenModel, parts: number): OpenModel {
  return { kind: 'open', rate: m.rate / parts, ...(m.stages ? { stages: scaleStages(m.stages, 1 / parts) } : {}) };
}

/** Due times (ms from the start): a constant rate starts with a request at once; a ramp as k6's does. */
export function openSchedule(m: OpenModel, durationMs: number): Generator<number, void, undefined> {
  const stages: readonly Stage[] = m.stages ?? [{ durationMs, target: m.rate }];
  return m.stages ? arrivalTimes(stages, 1) : arrivalTimes(stages, 0, m.rate);
}

export function startOpen(run: EngineRun, m: OpenModel): void {
  const queue = new DueQueue(run.o.queueLimit ?? Math.max(1024, Math.ceil(m.rate * 2)));
  const full = (): boolean => run.sent + queue.size >= run.o.maxRequests;
  const drain = (): void => {
    while (queue.size > 0 && run.canSend()) {
      const intended = queue.shift();
      const r = run.prefetch.pull();
      if (!r) {
        queue.unshift(intended);
        break;
      }
      run.fire(r, intended);
    }
  };
  const pacer = new Pacer({
    clock: run.clock,
    t0: run.t0,
    tEnd: run.tEnd,
    times: openSchedule(m, run.o.durationMs),
    admit: (intended) => {
      if (full()) return false;
      run.timeline.offer(intended);
      if (!queue.push(intended)) run.dropped++;
      return true;
    },
    afterAdmit: drain,
    shouldStop: () => run.stopRequested(),
    full,
    end: () => run.stop(),
  });
  const driver: ModelDriver = { drain, exhausted: () => false, unsent: () => queue.size, dispose: () => pacer.dispose() };
  run.driver = driver;
  pacer.tick();
}

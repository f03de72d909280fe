/**
 * Thresholds that stop a run (`--threshold 'p99<50ms:abort'`, k6's abortOnFail): judged every
 * ABORT_EVERY_MS on what this engine has measured so far, once the threshold's grace
 * (`:abort-after=30s`, k6's delayAbortEval) has passed. The first broken one ends the run at once,
 * and through the shared control block every other worker of the process with it; the run's final
 * verdict is still judged on the whole, at the end.
 */
import { CONTROL_ABORTED_BY, CONTROL_STOP } from './engine-options.ts';
import type { EngineRun } from './engine-run.ts';
import { summarize } from './histogram.ts';
import { compare, formatMetric, metricOf, type Measured } from './thresholds.ts';

/** How often abort thresholds are judged: an abort comes at most this long after its threshold breaks. */
export const ABORT_EVERY_MS = 250;

/** What the run has measured so far, as thresholds read it. */
function measuredSoFar(run: EngineRun, elapsedMs: number): Measured {
  const attempted = run.sent + run.dropped;
  const s = Math.max(1e-3, elapsedMs / 1000);
  return {
    latencyUs: summarize(run.hist),
    errorRate: attempted > 0 ? (run.errors + run.dropped) / attempted : 0,
    goodput: run.units / s,
    rps: run.completed / s,
  };
}

/** Starts judging the run's abort thresholds (none: nothing to do); returns the canceller. */
export function startAbortJudge(run: EngineRun): () => void {
  const list = (run.o.thresholds ?? []).map((t, i) => ({ t, i })).filter((x) => x.t.abort !== undefined);
  if (list.length === 0) return () => {};
  let cancel: (() => void) | undefined;
  const judge = (): void => {
    cancel = undefined;
    if (run.stopped) return;
    const elapsed = run.clock.now() - run.t0;
    const due = list.filter((x) => elapsed >= (x.t.abort?.afterMs ?? 0));
    // Nothing measured yet says nothing: an empty histogram would break every `>` threshold.
    const m = due.length > 0 && run.completed > 0 ? measuredSoFar(run, elapsed) : undefined;
    for (const { t, i } of due) {
      const actual = m ? metricOf(t.metric, m) : undefined;
      if (actual === undefined || compare(actual, t.op, t.value)) continue;
      run.aborted = { threshold: t.source, actualText: formatMetric(t.metric, actual), atMs: Math.round(elapsed) };
      if (run.o.control) {
        Atomics.compareExchange(run.o.control, CONTROL_ABORTED_BY, 0, i + 1);
        Atomics.store(run.o.control, CONTROL_STOP, 1);
      }
      return run.stop();
    }
    cancel = run.clock.setTimeout(judge, ABORT_EVERY_MS);
  };
  cancel = run.clock.setTimeout(judge, ABORT_EVERY_MS);
  return () => cancel?.();
}

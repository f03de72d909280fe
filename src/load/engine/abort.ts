/**
 * Thresholds that stop a run (`--threshold 'p99<50ms:abort'`, k6's abortOnFail), judged on the
 * whole process's view while it runs. Every engine sends a sample of what it has measured so far
 * every ABORT_EVERY_MS (its latency histogram, encoded, and its counters); the judge, in the thread
 * that started the engines, merges the latest sample of each and judges the abort thresholds on
 * that merge once a threshold's grace (`:abort-after=30s`, k6's delayAbortEval) has passed. One
 * worker's share would be the wrong view: its p99 or error rate is not the run's (a worker whose
 * connections met a slow node would stop a run whose p99 holds), and a bound on a rate would have
 * to be guessed per worker. The first broken threshold sets the shared control block's stop, which
 * ends every engine at once; the run's final verdict is still judged on the whole, at the end.
 */
import { CONTROL_ABORTED_BY, CONTROL_STOP, type AbortedBy, type AbortSample } from './engine-options.ts';
import type { EngineRun } from './engine-run.ts';
import { encodeHistogram, mergeEncoded, newHistogram, summarize } from '../stats/histogram.ts';
import { compare, formatMetric, metricOf, type Measured, type Threshold } from '../gates/thresholds.ts';

export type { AbortSample } from './engine-options.ts';

/** How often engines send their samples: an abort comes at most about this long after its threshold breaks. */
export const ABORT_EVERY_MS = 250;

function sampleOf(run: EngineRun): AbortSample {
  const { sent, dropped, errors, completed, units } = run;
  return { histogram: encodeHistogram(run.hist), sent, dropped, errors, completed, units, elapsedMs: run.clock.now() - run.t0 };
}

/** Starts sending the engine's samples (when it has somewhere to send them); returns the canceller. */
export function startAbortSampler(run: EngineRun): () => void {
  const report = run.o.abortSample;
  if (!report) return () => {};
  let cancel: (() => void) | undefined;
  const tick = (): void => {
    cancel = undefined;
    if (run.stopped) return;
    report(sampleOf(run));
    cancel = run.clock.setTimeout(tick, ABORT_EVERY_MS);
  };
  cancel = run.clock.setTimeout(tick, ABORT_EVERY_MS);
  return () => cancel?.();
}

/** The merged samples as thresholds read them. */
function measuredOf(samples: readonly AbortSample[], elapsedMs: number): Measured {
  const h = newHistogram();
  for (const s of samples) mergeEncoded(h, s.histogram);
  const latencyUs = summarize(h);
  h.destroy();
  const sum = (f: (s: AbortSample) => number): number => samples.reduce((a, s) => a + f(s), 0);
  const attempted = sum((s) => s.sent) + sum((s) => s.dropped);
  const secs = Math.max(1e-3, elapsedMs / 1000);
  return {
    latencyUs,
    errorRate: attempted > 0 ? (sum((s) => s.errors) + sum((s) => s.dropped)) / attempted : 0,
    goodput: sum((s) => s.units) / secs,
    rps: sum((s) => s.completed) / secs,
  };
}

/** Judges the abort thresholds of one run of `engines` engines on the merge of their latest samples. */
export class AbortJudge {
  private readonly list: ReadonlyArray<{ t: Threshold; i: number }>;
  private readonly latest: Array<AbortSample | undefined>;
  aborted: AbortedBy | undefined;

  /** `thresholds`: the run's whole list (their indexes go to CONTROL_ABORTED_BY); those without `abort` are ignored. */
  constructor(thresholds: readonly Threshold[], engines: number, private readonly control: Int32Array) {
    this.list = thresholds.map((t, i) => ({ t, i })).filter((x) => x.t.abort !== undefined);
    this.latest = new Array<AbortSample | undefined>(engines).fill(undefined);
  }

  get active(): boolean {
    return this.list.length > 0;
  }

  /** Engine `engine`'s newest sample; judges once every engine has sent one (a missing one would read as no traffic). */
  offer(engine: number, s: AbortSample): void {
    if (this.aborted) return;
    this.latest[engine] = s;
    const samples = this.latest.filter((x): x is AbortSample => x !== undefined);
    if (samples.length < this.latest.length) return;
    const elapsed = Math.max(...samples.map((x) => x.elapsedMs));
    const due = this.list.filter((x) => elapsed >= (x.t.abort?.afterMs ?? 0));
    // Nothing measured yet says nothing: an empty histogram would break every `>` threshold.
    if (due.length === 0 || samples.every((x) => x.completed === 0)) return;
    const m = measuredOf(samples, elapsed);
    for (const { t, i } of due) {
      const actual = metricOf(t.metric, m);
      if (compare(actual, t.op, t.value)) continue;
      this.aborted = { threshold: t.source, actualText: formatMetric(t.metric, actual), atMs: Math.round(elapsed) };
      Atomics.compareExchange(this.control, CONTROL_ABORTED_BY, 0, i + 1);
      Atomics.store(this.control, CONTROL_STOP, 1);
      return;
    }
  }
}

/**
 * Which cases keep their exchanges while a phase runs. A phase folds its cases in case order once
 * they have all ended (so a seed gives the same report), and only the first case of each distinct
 * finding is shown with its requests: the first failure of each key, the first note of each topic
 * (outcome-sink.ts), the first case under which the target went down. Every other case gives up its
 * exchanges as it ends, so a phase holds the requests of at most one case per finding, not of all
 * its cases (a run against a target that answers garbage once held every case's exchanges).
 */
import type { CaseRun } from './case-runner.ts';
import { topicOf } from './outcome-sink.ts';

/** What a case could be shown for (`failure`: the phase's key for a failing case): undefined when its exchanges will never be shown. */
export function evidenceKey(run: CaseRun, failure: string): string | undefined {
  if (run.cut) return undefined;
  if (run.crashed) return 'crash';
  const o = run.outcome;
  if (o.ok) return undefined;
  switch (o.kind) {
    case 'violation':
    case 'server-error':
      return `failure:${failure}`;
    case 'not-applicable':
      return undefined;
    case 'assumption':
    case 'performance':
    case 'unknown':
    case 'transport':
      return `note:${topicOf(o)}`;
    default:
      return o satisfies never;
  }
}

/** Keeps the exchanges of the earliest case (by its place in the phase) of each key, and drops every other case's. */
export class EvidenceRetention {
  private readonly kept = new Map<string, { readonly index: number; readonly run: CaseRun }>();
  /** Exchanges dropped (the tests read it). */
  dropped = 0;

  /** `run`, the case at `index`, with its exchanges kept only while it is the earliest of its key (`failure`: as for `evidenceKey`). */
  hold(index: number, run: CaseRun, failure: string): CaseRun {
    const key = evidenceKey(run, failure);
    const had = key === undefined ? undefined : this.kept.get(key);
    if (key === undefined || (had && had.index < index)) return this.drop(run);
    if (had) this.drop(had.run);
    this.kept.set(key, { index, run });
    return run;
  }

  /** Empties the case's own array in place: the phase's list of cases holds the same array, and nothing reads it again. */
  private drop(run: CaseRun): CaseRun {
    this.dropped += run.exchanges.length;
    run.exchanges.length = 0;
    return run;
  }
}

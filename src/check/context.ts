/**
 * Builds the per-case `CaseContext`: the single door to the target, so that every exchange of a
 * case is recorded for its finding and every request is counted for the run's figures.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { AssumptionSet } from '../spec/index.ts';
import type { CallOptions, Exchange, TargetClient } from '../target/client.ts';
import type { Profile } from '../target/profile.ts';
import { missingCapability } from './capabilities.ts';
import type { CaseContext } from './property.ts';

/** Requests in a row that got no response at all before the run judges the target unreachable. */
export const UNREACHABLE_AFTER = 8;

/** Counts requests across a run; shared by every case. */
export class RequestCounter {
  total = 0;
  /** Consecutive exchanges that got no response at all (timeouts, refusals, resets). */
  silent = 0;
  /** Why the last of them failed. */
  lastSilence = '';

  get unreachable(): boolean {
    return this.silent >= UNREACHABLE_AFTER;
  }
}

export interface ContextDeps {
  readonly profile: Profile;
  readonly assumptions: AssumptionSet;
  readonly client: TargetClient;
  readonly signal: AbortSignal;
  readonly counter: RequestCounter;
  /** Default per-request time bound. */
  readonly timeoutMs?: number;
  /** The target is the embedded reference (see capabilities.ts). */
  readonly embedded?: boolean;
}

export interface RecordingContext extends CaseContext {
  readonly exchanges: Exchange[];
  /** Requests this case sent. */
  readonly requests: () => number;
}

export function createCaseContext(d: ContextDeps): RecordingContext {
  const exchanges: Exchange[] = [];
  let requests = 0;
  return {
    profile: d.profile,
    assumptions: d.assumptions,
    client: d.client,
    signal: d.signal,
    exchanges,
    requests: () => requests,
    async call(o: CallOptions): Promise<Exchange> {
      requests++;
      d.counter.total++;
      const ex = await d.client.call(d.timeoutMs !== undefined && o.timeoutMs === undefined ? { ...o, timeoutMs: d.timeoutMs } : o);
      exchanges.push(ex);
      if (ex.response) d.counter.silent = 0;
      else {
        d.counter.silent++;
        d.counter.lastSilence = ex.reason;
      }
      return ex;
    },
    allows: (cap) => missingCapability(d.profile, cap, { embedded: d.embedded ?? false }) === undefined,
    uuid: () => randomUUID(),
    sourceId: () => randomBytes(16).toString('hex'),
  };
}

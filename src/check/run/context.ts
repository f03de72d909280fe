/**
 * Builds the per-case `CaseContext`: the single door to the target, so that every exchange of a
 * case is recorded for its finding and every request is counted for the run's figures.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { isAssumptionName, SIGNATURE_HEADER, type AssumptionName, type AssumptionSet } from '../../spec/index.ts';
import { typedCall, type CallOptions, type Exchange, type TargetClient } from '../../target/client.ts';
import type { Profile } from '../../target/profile.ts';
import { missingCapability } from './capabilities.ts';
import { Environment } from '../judge/environment.ts';
import type { CaseContext } from '../property.ts';
import type { RecordedHistory } from '../model/linearizability/index.ts';

/** Requests in a row that got no complete response before the run judges the target unreachable. */
export const UNREACHABLE_AFTER = 8;

/** The last requests weighed for a target too slow to judge, and the share of timeouts among them that ends the run. */
export const SLOW_WINDOW = 40;
export const SLOW_SHARE = 0.75;

/** How long after a dropped connection the fresh one that confirms a crash is tried. */
export const CONFIRM_GRACE_MS = 100;

/** A target that went down: the request sent last before it did, and the evidence. */
export interface Crash {
  /** The request that took it down: the one whose connection dropped, or the last one answered before the refusals. */
  readonly culprit: Exchange;
  /** How the culprit fared (its reason). */
  readonly how: string;
  /** What the fresh connection that confirmed it got. */
  readonly confirmation: string;
}

/**
 * Counts requests across a run, shared by every case, and watches for a target that stops
 * answering: a streak of exchanges without a complete response (refused, dropped, cut off or timed
 * out; never one pouchproof gave up itself) ends the run, and one that starts with a refused or
 * dropped connection is confirmed with a fresh connection: refused too, the target went down.
 */
export class RequestCounter {
  total = 0;
  /** Consecutive exchanges that got no complete response (refusals, resets, cut-off bodies, timeouts). */
  silent = 0;
  /** Why the last of them failed. */
  lastSilence = '';
  /** Of those, the requests sent after the target last answered: only they show it stopped answering. */
  private silentSinceAnswer = 0;
  private lastAnswerAt = Number.NEGATIVE_INFINITY;
  /** Set once the target is confirmed down. */
  crash?: Crash;
  /** How each of the last `SLOW_WINDOW` exchanges ended (oldest first). */
  private readonly recent: ('answered' | 'timeout' | 'silent')[] = [];
  private lastAnswered?: Exchange;
  private streakFirst?: Exchange;
  /** The kinds of failure already confirmed (or not) in this streak: each is new evidence once. */
  private streakChecked = new Set<'refused' | 'closed'>();

  /** `canConnect`: whether a fresh connection to the target succeeds (undefined: no confirmation, never a crash). */
  constructor(private readonly canConnect?: () => Promise<{ readonly ok: boolean; readonly reason: string }>) {}

  /**
   * The target completes no response: the last requests got none, and none of the recent ones did.
   * Cases run side by side, so a slow target's timeouts can come in a row after its answers: a
   * target that answered any of the recent requests is slow (see `tooSlow`), not gone.
   */
  get unreachable(): boolean {
    return this.silentSinceAnswer >= UNREACHABLE_AFTER && !this.recent.includes('answered');
  }

  /** Most of the last requests timed out: the target is too slow for the run's per-request bound to judge anything. */
  get tooSlow(): { readonly timeouts: number; readonly of: number } | undefined {
    if (this.recent.length < SLOW_WINDOW) return undefined;
    const timeouts = this.recent.filter((x) => x === 'timeout').length;
    return timeouts >= SLOW_SHARE * SLOW_WINDOW ? { timeouts, of: SLOW_WINDOW } : undefined;
  }

  /**
   * The exchanges the counter holds for a crash finding: the last answered one, and the first of the
   * streak under way. Nothing older: a streak's first request held after the streak ended kept a
   * 64 MiB body alive for the rest of a run (the tests read it).
   */
  get held(): readonly Exchange[] {
    return [this.lastAnswered, this.streakFirst].filter((e): e is Exchange => e !== undefined);
  }

  /** The property whose findings name the crash (the first to claim it). */
  crashNamedBy?: string;

  /** Claims the crash for `property`'s findings: true for the first claim only. */
  claimCrash(property: string): boolean {
    if (!this.crash || this.crashNamedBy !== undefined) return false;
    this.crashNamedBy = property;
    return true;
  }

  /** Records one exchange; confirms a refused or dropped connection once per streak. */
  async record(ex: Exchange): Promise<void> {
    if (ex.failure !== 'aborted') {
      this.recent.push(ex.verdict !== 'transport-error' ? 'answered' : ex.failure === 'timeout' ? 'timeout' : 'silent');
      if (this.recent.length > SLOW_WINDOW) this.recent.shift();
    }
    if (ex.verdict !== 'transport-error') {
      this.silent = 0;
      this.silentSinceAnswer = 0;
      this.lastAnswerAt = Date.now();
      this.streakChecked.clear();
      this.lastAnswered = ex;
      // The streak ended: its first request is evidence of nothing now, and it may be a 64 MiB body.
      this.streakFirst = undefined;
      return;
    }
    if (ex.failure === 'aborted') return; // pouchproof's own doing: says nothing of the target
    this.silent++;
    // A request sent before the target last answered says nothing of whether it still answers: many in
    // flight together (properties side by side) time out in a wave after the answers that came between them.
    if (ex.timings.startedAt >= this.lastAnswerAt) this.silentSinceAnswer++;
    this.lastSilence = ex.reason;
    if (this.silent === 1) this.streakFirst = ex;
    if (this.crash || !this.canConnect || (ex.failure !== 'refused' && ex.failure !== 'closed') || this.streakChecked.has(ex.failure)) return;
    this.streakChecked.add(ex.failure);
    // A process that dropped a connection as it died may still hold its listening socket for a moment.
    if (ex.failure === 'closed') await new Promise((r) => setTimeout(r, CONFIRM_GRACE_MS));
    const probe = await this.canConnect();
    if (probe.ok) return;
    // Dropped or left unanswered: the streak's first request took it down. Refused from the start: it went down after answering the last one.
    const first = this.streakFirst ?? ex;
    const culprit = first.failure === 'refused' && this.lastAnswered ? this.lastAnswered : first;
    const how = culprit === first ? first.reason : `answered (${culprit.reason}), then the next request: ${first.reason}`;
    this.crash = { culprit, how, confirmation: probe.reason };
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
  /** The run's environment memory (default: one of the case's own). */
  readonly environment?: Environment;
  /** The property's own count of requests sent. */
  readonly tally?: { requests: number };
  /** Keeps the concurrent histories the case records (the property's, for the files beside the reports). */
  readonly onHistory?: (h: RecordedHistory) => void;
  /**
   * The case's stable name (case-runner.ts `caseTag`): its n-th call is tagged `<name>/<n>` for the
   * nemesis, so the seed's faults fall on the same requests however the run's cases interleave.
   */
  readonly caseTag?: string;
}

export interface RecordingContext extends CaseContext {
  readonly exchanges: Exchange[];
  /** Requests this case sent. */
  readonly requests: () => number;
  /** The readings the case consulted to read an answer (through `assumptions`, its profile's, or the signing of its calls). */
  readonly consulted: ReadonlySet<AssumptionName>;
  /** The steering readings (`STEERING`) the case consulted only to shape what it sent: how a device signs, which pouch it commits to. */
  readonly steered: ReadonlySet<AssumptionName>;
}

/**
 * Readings a case consults to shape a request, never to read an answer, each with the accepted
 * exchange that proves a guess at it good enough for the case: how a device's JWS is laid out (a
 * device-signed request accepted), and whether a fresh pouch id takes a commit (a commit accepted).
 * A wrong guess gets every request it shaped refused (case-runner.ts `steeringProven`).
 */
export const STEERING: ReadonlyMap<AssumptionName, (accepted: Exchange) => boolean> = new Map<AssumptionName, (accepted: Exchange) => boolean>([
  ['jws-form', (e) => e.request.headers[SIGNATURE_HEADER] !== undefined],
  ['pouch-existence', (e) => e.endpoint === 'commitOperations'],
]);

/**
 * The readings as the case sees them, each read recorded: a verdict that consulted a reading the
 * probe could not identify is unknown, whatever the registry default would have said.
 */
function consulting(readings: AssumptionSet, seen: Set<AssumptionName>, steered?: Set<AssumptionName>): AssumptionSet {
  return new Proxy(readings, {
    get(target, key, receiver) {
      if (typeof key === 'string' && key in target && isAssumptionName(key)) (steered && STEERING.has(key) ? steered : seen).add(key);
      // Reflect.get answers `any`: typed `unknown` here so the proxy lets no `any` out.
      const value: unknown = Reflect.get(target, key, receiver);
      return value;
    },
  });
}

export function createCaseContext(d: ContextDeps): RecordingContext {
  const exchanges: Exchange[] = [];
  const consulted = new Set<AssumptionName>();
  const steered = new Set<AssumptionName>();
  const assumptions = consulting(d.assumptions, consulted);
  const steering = consulting(d.assumptions, consulted, steered);
  let requests = 0;
  const ctx: RecordingContext = {
    profile: { ...d.profile, assumptions: steering },
    assumptions,
    steering,
    client: d.client,
    signal: d.signal,
    exchanges,
    consulted,
    steered,
    requests: () => requests,
    async call(o: CallOptions): Promise<Exchange> {
      // Counted as the call is made, before any await: the n-th call of a case is the same one in every run.
      const n = ++requests;
      const tag = o.nemesisTag ?? (d.caseTag !== undefined ? `${d.caseTag}/${n}` : undefined);
      d.counter.total++;
      if (d.tally) d.tally.requests++;
      // The case's signal ends its calls too: a time bound is never waited out on a stalled response.
      const ex = await d.client.call({
        ...o,
        ...(d.timeoutMs !== undefined && o.timeoutMs === undefined ? { timeoutMs: d.timeoutMs } : {}),
        signal: o.signal ?? d.signal,
        assumptions: o.assumptions ?? steering,
        ...(tag !== undefined ? { nemesisTag: tag } : {}),
      });
      exchanges.push(ex);
      await d.counter.record(ex);
      return ex;
    },
    send: (endpoint, req, o) => typedCall((x) => ctx.call(x), endpoint, req, o),
    allows: (cap) => missingCapability(d.profile, cap, { embedded: d.embedded ?? false }) === undefined,
    environment: d.environment ?? new Environment(),
    uuid: () => randomUUID(),
    sourceId: () => randomBytes(16).toString('hex'),
    ...(d.onHistory ? { recordHistory: d.onHistory } : {}),
  };
  return ctx;
}

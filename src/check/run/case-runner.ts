/**
 * One case, run against the target: its own context (the only door to the target), its check, the
 * grounds of its outcome vetted, and what the case may vouch for. A case the time bound ended, or
 * under which the target went down, vouches for nothing and finds nothing of its own.
 */
import type { AssumptionName } from '../../spec/index.ts';
import { endedThrottled, type Exchange, type TargetClient } from '../../target/client.ts';
import type { Profile } from '../../target/profile.ts';
import { createCaseContext, STEERING, type RequestCounter } from './context.ts';
import type { Environment } from '../judge/environment.ts';
import { vetOutcome } from '../judge/grounds.ts';
import { brokenSuccess } from '../judge/success-shape.ts';
import { unknownOutcome, type Judgement, type Outcome, type Property } from '../property.ts';
import { verdictOf, type CaseVerdict } from './ledger.ts';
import type { Slots } from './pool.ts';
import type { RecordedHistory } from '../model/linearizability/index.ts';

export interface CaseDeps {
  readonly profile: Profile;
  readonly client: TargetClient;
  readonly counter: RequestCounter;
  /** The property's bound: ends the case's calls when it aborts. */
  readonly signal: AbortSignal;
  readonly timeoutMs?: number;
  readonly embedded: boolean;
  /** Readings the probe could not identify, with why. */
  readonly unknownReadings: ReadonlyMap<AssumptionName, string>;
  /** The run's memory of which endpoints serve their plain request. */
  readonly environment: Environment;
  /** Case slots shared with the properties running beside this one (absent: the property runs alone); the phases' pools hold one per case. */
  readonly slots?: Slots;
  /** The property's own count of requests sent (the run's counter also counts other properties'). */
  readonly tally?: { requests: number };
  /** Keeps the concurrent histories cases record. */
  readonly onHistory?: (h: RecordedHistory) => void;
}

export interface CaseRun {
  readonly input: unknown;
  readonly outcome: Outcome;
  /** In the order they were sent. */
  readonly exchanges: Exchange[];
  readonly verdict: CaseVerdict;
  /** The target went down under this case. */
  readonly crashed: boolean;
  /** The time bound ended the case: it vouches for nothing, and nothing it made of the cut calls is a finding. */
  readonly cut: boolean;
  /** Requests the whole run had sent when the case ended. */
  readonly requestsAtEnd: number;
}

/**
 * A verdict that consulted a reading the probe could not identify rests on a guess: it is unknown.
 * The target's own failures (a 5xx, the network) and cost smells rest on no reading, and stay. A
 * violation (or an assumption finding) is unknown only through what its judgements declare they read
 * (`Judgement.reads`; `declaredReads`): the case may have consulted others on its way without them
 * deciding this verdict. A
 * steering reading (context.ts `STEERING`) only shaped what was sent: once the target accepted a
 * request it shaped, the guess was good enough, and a pass stands on the readings its answers were read by.
 */
function restingOnUnknown(o: Outcome, seen: Consults, unknown: ReadonlyMap<AssumptionName, string>, judgements: readonly Judgement[]): Outcome {
  if (unknown.size === 0) return o;
  if (!o.ok && (o.kind === 'server-error' || o.kind === 'transport' || o.kind === 'performance' || o.kind === 'unknown')) return o;
  const independent: readonly AssumptionName[] = !o.ok && o.kind === 'violation' ? (o.independentOf ?? []) : [];
  const reads = declaredReads(o, judgements);
  const steered = o.ok ? [...seen.steered].filter((n) => !steeringProven(n, seen.exchanges)) : [...seen.steered];
  const names = [...new Set([...seen.consulted, ...steered])].filter((n) => unknown.has(n) && !independent.includes(n) && (reads === undefined || reads.includes(n)));
  if (names.length === 0) return o;
  const why = names.map((n) => `${n} (${unknown.get(n)})`).join('; ');
  const said = o.ok ? 'the case passed' : `the case found: ${o.message}`;
  const hint = !o.ok && o.kind === 'violation' ? o.hintIfUnknown : undefined;
  return unknownOutcome(`the verdict rests on readings the probe could not identify: ${why}; ${said}, which under an unknown reading decides nothing`, hint);
}

/**
 * What the outcome's verdict reads, as its judgements declare it: a violation's judgement; for an
 * assumption finding, the judgements grounded on that reading, all together. Undefined (whatever the
 * case consulted) where no judgement declares it.
 */
function declaredReads(o: Outcome, judgements: readonly Judgement[]): readonly AssumptionName[] | undefined {
  if (o.ok) return undefined;
  if (o.kind === 'violation') return judgements.find((j) => j.id === o.judgement)?.reads;
  if (o.kind !== 'assumption') return undefined;
  const on = judgements.filter((j) => j.ground.kind === 'reading' && j.ground.assumption === o.assumption);
  return on.length ? [...new Set(on.flatMap((j) => j.reads))] : undefined;
}

interface Consults {
  readonly consulted: ReadonlySet<AssumptionName>;
  readonly steered: ReadonlySet<AssumptionName>;
  readonly exchanges: readonly Exchange[];
}

/** The target accepted a request the steering reading shaped (context.ts `STEERING` says which proves it). */
function steeringProven(n: AssumptionName, exchanges: readonly Exchange[]): boolean {
  const proves = STEERING.get(n);
  return proves !== undefined && exchanges.some((e) => e.verdict === 'accepted' && proves(e));
}

/**
 * A success the case got that breaks its endpoint's response schema is a violation under every
 * reading (success-shape.ts), whatever the property made of it: it stands in for a pass or for an
 * outcome that finds nothing (a note, an unknown, a case that does not apply), never for a finding.
 */
function withSuccessShape(o: Outcome, exchanges: readonly Exchange[]): Outcome {
  if (!o.ok && o.kind !== 'assumption' && o.kind !== 'unknown' && o.kind !== 'not-applicable') return o;
  return brokenSuccess(exchanges) ?? o;
}

/**
 * A case's stable name for the nemesis's tags: the property, then the case within it as its phase
 * names it (`c<i>` the coverage case i; `r<i>` the random case at place i of the seed's stream, and
 * a shrink's re-run of it; `s<path>.<k>` the k-th case a shrink from there tried), and `~2` for the
 * case sent again after a blip. A function of the seed alone, never of the order cases ran in.
 */
export function caseTag(prop: Pick<Property, 'id'>, name: string, again = false): string {
  return `${prop.id}/${name}${again ? '~2' : ''}`;
}

/**
 * One case (`name`: its stable name within the property, see `caseTag`), sent again once (fresh ids,
 * a fresh context) when the network alone left it unjudged: a connection reset or a timeout on a
 * shared network says nothing of the target's conformance, and one such blip must not leave a
 * property below its floor. Once only, and not when the target seems down.
 */
export async function runCase(prop: Property, input: unknown, d: CaseDeps, name: string): Promise<CaseRun> {
  const first = await runCaseOnce(prop, input, d, caseTag(prop, name));
  const blip = first.verdict.kind === 'unjudged' && first.verdict.cause === 'transport' && !first.cut && !first.crashed;
  if (!blip || d.signal.aborted || d.counter.unreachable || d.counter.crash) return first;
  return runCaseOnce(prop, input, d, caseTag(prop, name, true));
}

async function runCaseOnce(prop: Property, input: unknown, d: CaseDeps, tag: string): Promise<CaseRun> {
  const ctx = createCaseContext({ caseTag: tag, profile: d.profile, assumptions: d.profile.assumptions, client: d.client, signal: d.signal, counter: d.counter, timeoutMs: d.timeoutMs, embedded: d.embedded, environment: d.environment, ...(d.tally ? { tally: d.tally } : {}), ...(d.onHistory ? { onHistory: d.onHistory } : {}) });
  let outcome: Outcome;
  let threw = false;
  try {
    outcome = withSuccessShape(vetOutcome(prop, await prop.check(ctx, input)), ctx.exchanges);
  } catch (err) {
    threw = true;
    outcome = { ok: false, kind: 'transport', message: `the property could not complete: ${err instanceof Error ? err.message : String(err)}` };
  }
  const exchanges = [...ctx.exchanges].sort((a, b) => a.id - b.id);
  const base = { input, exchanges, requestsAtEnd: d.counter.total };
  if (d.counter.crash) return { ...base, outcome, verdict: { kind: 'judged' }, crashed: true, cut: false };
  // Ended by the bound: an unfinished case vouches for nothing, and whatever it made of a call the bound
  // ended (a property may read a failed call as a target that stopped serving) is pouchproof's own doing.
  const cut = d.signal.aborted && (threw || outcome.ok || outcome.kind === 'transport' || exchanges.some((e) => e.failure === 'aborted'));
  if (cut) return { ...base, outcome, verdict: { kind: 'unjudged', cause: exchanges.some(endedThrottled) ? 'throttled' : 'time' }, crashed: false, cut: true };
  const judged = restingOnUnknown(outcome, { consulted: ctx.consulted, steered: ctx.steered, exchanges }, d.unknownReadings, prop.judgements);
  const verdict = verdictOf(judged, ctx.requests());
  // A case the target kept throttling is throttling's, not the network's.
  const throttled = verdict.kind === 'unjudged' && verdict.cause === 'transport' && exchanges.some(endedThrottled);
  return { ...base, outcome: judged, verdict: throttled ? { kind: 'unjudged', cause: 'throttled' } : verdict, crashed: false, cut: false };
}

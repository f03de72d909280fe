/**
 * What a property is. Like a fast-check property it pairs an arbitrary with a predicate, but the
 * predicate runs against a live target and answers with an `Outcome` that says *how* the target
 * failed: the letter of the spec broken, a registry assumption not met, a 5xx, or the network.
 * The runner (runner.ts) turns failing outcomes into shrunk, replayable findings.
 */
import type fc from 'fast-check';
import type { AssumptionName, AssumptionSet, EndpointId, SpecClause } from '../spec/index.ts';
import type { CallOptions, Exchange, TargetClient, TypedExchange, TypedRequest } from '../target/client.ts';
import type { Profile } from '../target/profile.ts';
import { COMMON_JUDGEMENTS, SHARED_READINGS, type Judgement } from './judge/judgements.ts';

export type { Judgement, JudgementGround, PerformanceGround } from './judge/judgements.ts';
import type { TimelineData, RecordedHistory } from './model/linearizability/index.ts';
import type { CostCurve } from './model/cost-growth.ts';
import type { Json } from '../gen/index.ts';

/**
 * What a judgement compared, as data, so that reports render it rather than parse the message: the
 * status of an answer or one of its fields, the value the judgement expected and the one that came back.
 */
export interface Mismatch {
  /** `status`, or the path of a field of the answer (`data.stored`). */
  readonly subject: string;
  /** The value expected: a status class (`"2xx"`, `"4xx"`), or a field's value. */
  readonly expected: Json;
  /** The value observed; null when nothing came back. */
  readonly observed: Json;
}

/** What a failing outcome rests on besides its words: the exchanges (by id) and what was compared, when the judgement knows them. */
export interface FailureDetail {
  readonly mismatch?: Mismatch;
  readonly exchangeIds?: readonly number[];
}

/** What a property needs from the profile; missing ones make it `skipped` with the reason. */
export type Capability =
  | 'browser' // primary account's browser credentials
  | 'device' // primary account's command-line device: credentials, device id and private key
  | 'second-account' // a second account with a device (cross-account checks)
  | 'account-changes' // may change the master password (4.6): the embedded reference, or a profile that opts in
  | 'revocable-browser' // another browser member of the primary account, with its session, that a run may revoke (accounts.primary.revocableBrowsers)
  | 'pouch' // a pouch to commit to: any fresh id, or under pouch-existence=must-exist one the profile lists (src/target/pouches.ts)
  | 'embedded-only'; // needs the embedded reference (never against a shared target)

export type FindingKind =
  | 'violation'
  | 'assumption'
  | 'server-error'
  | 'transport'
  // A cost smell (latency growing worse than linearly with a request's size): no clause of the spec is broken; reported apart.
  | 'performance'
  // Neither the spec's words nor an identified reading decide a case: shown with its evidence, never failing the run.
  | 'unknown';

export type Outcome =
  | { readonly ok: true }
  | ({
      readonly ok: false;
      readonly kind: 'violation';
      /** One or two sentences: what was expected, what came back. */
      readonly message: string;
      /** The judgement that found it, and the clause it rests on. */
      readonly judgement: string;
      readonly clause: SpecClause;
      /** For a history that cannot be linearized: the witness, drawn by the reports. */
      readonly timeline?: TimelineData;
      /** Readings the judgement holds under whatever they are (it tried every alternative): an unidentified one does not make it unknown. */
      readonly independentOf?: readonly AssumptionName[];
      /** What the profile could add, should a reading the verdict rests on be left unidentified (the unknown then carries it as its hint). */
      readonly hintIfUnknown?: string;
      /** Which part of the case broke it (an attack, a step): failures of distinct parts are distinct findings. */
      readonly part?: string;
    } & FailureDetail)
  | ({
      readonly ok: false;
      readonly kind: 'assumption';
      readonly message: string;
      /** The reading the target did not follow. */
      readonly assumption: AssumptionName;
      /**
       * The case went on past the reading and checked its invariant all the same (`Notes`): it counts
       * as judged. Without it, the reading stopped the case before anything was checked.
       */
      readonly checked?: boolean;
    } & FailureDetail)
  | {
      readonly ok: false;
      readonly kind: 'performance';
      /** The evidence in words: sizes, latencies, the fitted exponent. */
      readonly message: string;
      /** The judgement that found it (a performance judgement the property lists). */
      readonly judgement: string;
      /** The same evidence as data: each dimension measured, its fastest cost per size and the figures judged. */
      readonly curves?: readonly CostCurve[];
    }
  | ({ readonly ok: false; readonly kind: 'server-error' | 'transport'; readonly message: string; readonly part?: string } & FailureDetail)
  | {
      readonly ok: false;
      /**
       * Neither the spec's words nor an identified reading decide the case: what was seen is shown,
       * never a violation and never a pass. `hint` says what the profile could add to decide it (a
       * pouch that exists, a cli-auth request id).
       */
      readonly kind: 'unknown';
      readonly message: string;
      readonly hint?: string;
    }
  | {
      readonly ok: false;
      /** Nothing of the case applies under the run's readings (a constraint not in force, an attack whose verdict the reading leaves open): not judged, and not counted against the floor. */
      readonly kind: 'not-applicable';
      readonly message: string;
    };

/** An outcome that says the case could not be judged or does not apply: it stops the case like a failure, but finds nothing. */
export type Unjudged = Extract<Outcome, { kind: 'unknown' | 'not-applicable' }>;

export type Failure = Extract<Outcome, { ok: false }>;

export const PASS: Outcome = Object.freeze({ ok: true });

/** The case could not be judged: what was seen, and (optionally) what the profile could add. */
export function unknownOutcome(message: string, hint?: string): Outcome {
  return { ok: false, kind: 'unknown', message, ...(hint ? { hint } : {}) };
}

/** Nothing of the case applies under the run's readings. */
export function notApplicable(message: string): Outcome {
  return { ok: false, kind: 'not-applicable', message };
}

/**
 * What a property must have judged to vouch for its invariant: a share of its applicable coverage
 * cases and a share of its planned random cases. Cases that do not apply under the run's readings
 * are left out of both counts; cases a reading, throttling, the time budget, an unknown reading, the
 * network or a missing capability left unjudged count against it.
 */
export interface EvidenceFloor {
  /** Share of the applicable coverage cases that must be judged (0 to 1). */
  readonly coverage: number;
  /** Share of the applicable planned random cases that must be judged (0 to 1). */
  readonly random: number;
}

/** Every coverage case, and at least half the random ones. */
export const DEFAULT_FLOOR: EvidenceFloor = Object.freeze({ coverage: 1, random: 0.5 });

/** Per-case context: the only door to the target, so every exchange lands in the finding. */
export interface CaseContext {
  readonly profile: Profile;
  /** The run's readings, for reading an answer: a verdict that consults one the probe left unidentified is unknown. */
  readonly assumptions: AssumptionSet;
  /**
   * The same readings, for shaping a request only (which pouch to commit to): a guess the target
   * proves good by accepting what it shaped leaves the case's verdict standing. Absent: `assumptions`.
   */
  readonly steering?: AssumptionSet;
  readonly client: TargetClient;
  /**
   * Sends a request the spec allows, typed by its endpoint, and records the exchange; an accepted
   * answer carries its `data`, typed, validated against the endpoint's schema.
   */
  send<E extends EndpointId>(endpoint: E, req: TypedRequest<E>, o?: Omit<CallOptions, 'endpoint' | 'params' | 'body' | 'rawBody'>): Promise<TypedExchange<E>>;
  /** The raw door: any parameters, any body or raw bytes (a violation, a forgery, a broken body); records the exchange. */
  call(o: CallOptions): Promise<Exchange>;
  /** Fresh identifiers for a live, shared target (never from fast-check's biased uuid()). */
  uuid(): string;
  /** 32 lowercase hex characters, fresh. */
  sourceId(): string;
  /** Aborted when the property's time bound is reached. */
  readonly signal: AbortSignal;
  /** The exchanges of this case so far, in order. */
  readonly exchanges: readonly Exchange[];
  /** Whether the run may use a capability (for a property that uses one only in some cases). */
  allows(cap: Capability): boolean;
  /** The run's memory of which endpoints serve their plain request (asked once per endpoint). */
  readonly environment: EnvironmentDiagnosis;
  /** Hands a concurrent history to the run, which writes it beside the reports (absent: nobody keeps it). */
  readonly recordHistory?: (h: RecordedHistory) => void;
}

/**
 * What a case asks of the run's diagnosis of its environment (environment.ts, which implements it):
 * whether the plain request of an endpoint is served, and if not, the outcome every refused case of
 * it gets. Declared here so that the case's context needs nothing of the code that diagnoses.
 */
export interface EnvironmentDiagnosis {
  plain(ctx: CaseContext, endpoint: EndpointId): Promise<Outcome>;
}

export interface Property<T = unknown> {
  /** `area.name`, e.g. `usage.idempotent`. */
  readonly id: string;
  /** Spec section checked, e.g. `4.3`. */
  readonly section: string;
  /** The invariant in one sentence. */
  readonly invariant: string;
  /** Registry assumptions the property relies on. */
  readonly assumptions: readonly AssumptionName[];
  /** Every judgement whose violation the property can return (see `Judgement`). */
  readonly judgements: readonly Judgement[];
  readonly needs: readonly Capability[];
  /** Cases; identifiers that must be fresh are drawn in `check`, not here. */
  arbitrary(profile: Profile): fc.Arbitrary<T>;
  /** Runs one case against the target. */
  check(ctx: CaseContext, input: T): Promise<Outcome>;
  /**
   * For negative cases: whether a (shrunk) input still breaks what its label says. Cases for
   * which this is false are discarded rather than judged.
   */
  stillValid?(input: T): boolean;
  /** Overrides the run's default number of cases (expensive properties run fewer). */
  readonly runs?: number;
  /** What the property must have judged to vouch for its invariant (default `DEFAULT_FLOOR`). */
  readonly floor?: EvidenceFloor;
  /**
   * Cases in flight at once at most (default: the run's concurrency). 1 for a property whose cases
   * share state the spec gives no way to keep apart (the account's head_seq) or that measures time.
   */
  readonly concurrency?: number;
  /**
   * Keep every request of a failing case as curl lines (up to a bound), not only the last few: for
   * sequences whose counterexample is a list of steps, each step one request.
   */
  readonly showAllRequests?: boolean;
  /** Renders a case for the report (defaults to JSON). */
  describe?(input: T): string;
  /**
   * The coverage phase's cases (coverage.ts): enumerated, the same whatever the seed, each run once
   * with `check` before the random phase, each naming the inventory constraint and side it exercises.
   */
  coverage?(profile: Profile): readonly CoverageCase<T>[];
}

/** Which side of a constraint a case exercises: a request on its valid edge, or one breaking it. */
export type CoverageSide = 'accept' | 'reject';

/** One deterministic case of a property's coverage phase. */
export interface CoverageCase<T> {
  readonly input: T;
  /** `Constraint.id` of the inventory. */
  readonly constraint: string;
  readonly side: CoverageSide;
  /** The generator's variant name (`max+1`, `char:=`, `uuid:nil`, `missing`…). */
  readonly variant: string;
  /**
   * False when the request could not hold the variant at its location (a commit's coherence owns a
   * later op's `base_revision_id`): judged all the same, but an acceptance then says nothing of the variant.
   */
  readonly exact?: boolean;
}

/**
 * Freezes a property and lists on it the judgements every property shares (the shared judges can
 * return them whatever the property checks).
 */
export function defineProperty<T>(p: Omit<Property<T>, 'judgements'> & { readonly judgements?: readonly Judgement[] }): Property<T> {
  const own = p.judgements ?? [];
  const shared = COMMON_JUDGEMENTS.filter((j) => !own.some((x) => x.id === j.id));
  const assumptions = [...new Set([...p.assumptions, ...SHARED_READINGS])];
  return Object.freeze({ ...p, assumptions: Object.freeze(assumptions), judgements: Object.freeze([...own, ...shared]) });
}

/**
 * What a property is. Like a fast-check property it pairs an arbitrary with a predicate, but the
 * predicate runs against a live target and answers with an `Outcome` that says *how* the target
 * failed: the letter of the spec broken, a registry assumption not met, a 5xx, or the network.
 * The runner (runner.ts) turns failing outcomes into shrunk, replayable findings.
 */
import type fc from 'fast-check';
import type { AssumptionName, AssumptionSet, Ground, SpecClause } from '../spec/index.ts';
import type { CallOptions, Exchange, TargetClient } from '../target/client.ts';
import type { Profile } from '../target/profile.ts';
import { COMMON_JUDGEMENTS, SHARED_READINGS } from './judgements.ts';
import type { TimelineData } from './linearizability/timeline.ts';

/** What a property needs from the profile; missing ones make it `skipped` with the reason. */
export type Capability =
  | 'browser' // primary account's browser credentials
  | 'device' // primary account's command-line device: credentials, device id and private key
  | 'second-account' // a second account with a device (cross-account checks)
  | 'account-changes' // may change the master password (4.6): the embedded reference, or a profile that opts in
  | 'pouch' // a pouch to commit to: any fresh id, or under pouch-existence=must-exist one the profile lists (src/target/pouches.ts)
  | 'embedded-only'; // needs the embedded reference (never against a shared target)

export type FindingKind =
  | 'violation'
  | 'assumption'
  | 'server-error'
  | 'transport'
  // A cost smell (latency growing worse than linearly with a request's size): no clause of the spec is broken; reported apart.
  | 'performance';

/**
 * What a judgement rests on: a clause of the spec or a registry reading (`Ground`), or, for the
 * judgements that enforce the constraint inventory, the clause of whichever constraint is judged
 * (each inventory entry quotes its own words).
 */
export type JudgementGround = Ground | { readonly kind: 'constraint' } | PerformanceGround;

/**
 * The ground of a cost judgement: no clause (the spec states no latency or cost), but a rule of
 * thumb any reviewer would sign — a request's cost should grow at most linearly with its size
 * within the stated limits. What it finds is a `performance` finding, never a violation.
 */
export interface PerformanceGround {
  readonly kind: 'performance';
  /** Why the rule is sound even though the spec is silent, in one sentence. */
  readonly basis: string;
}

/**
 * One rule a property can find broken, as data (Schemathesis keeps its checks the same way): the
 * rule in one sentence and its ground. A property lists every judgement it can return; the runner
 * refuses a violation from a judgement the property did not list, and `pouchproof list --grounds`
 * prints them all.
 */
export interface Judgement {
  /** Stable id, `area.rule`. */
  readonly id: string;
  readonly rule: string;
  readonly ground: JudgementGround;
}

export type Outcome =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly kind: 'violation';
      /** One or two sentences: what was expected, what came back. */
      readonly message: string;
      /** The judgement that found it, and the clause it rests on. */
      readonly judgement: string;
      readonly clause: SpecClause;
      /** For a history that cannot be linearized: the witness, drawn by the reports. */
      readonly timeline?: TimelineData;
    }
  | {
      readonly ok: false;
      readonly kind: 'assumption';
      readonly message: string;
      /** The reading the target did not follow. */
      readonly assumption: AssumptionName;
    }
  | {
      readonly ok: false;
      readonly kind: 'performance';
      /** The evidence: sizes, latencies, the fitted exponent. */
      readonly message: string;
      /** The judgement that found it (a performance judgement the property lists). */
      readonly judgement: string;
    }
  | { readonly ok: false; readonly kind: 'server-error' | 'transport'; readonly message: string };

export type Failure = Extract<Outcome, { ok: false }>;

export const PASS: Outcome = Object.freeze({ ok: true });

/** Per-case context: the only door to the target, so every exchange lands in the finding. */
export interface CaseContext {
  readonly profile: Profile;
  readonly assumptions: AssumptionSet;
  readonly client: TargetClient;
  /** Sends one call and records the exchange for the case's report. */
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

/**
 * The judgements every property shares, because the shared judges (judge.ts, controls.ts) can
 * return them whatever the property: a success must be the 2.1 envelope; a valid request to an
 * endpoint is served; a value within every stated constraint of its field is no reason to refuse.
 * `defineProperty` lists them on every property.
 */
import { ASSUMPTIONS, ENDPOINT_BY_ID, keysOf, listedParams, mapTable, readingGround, specGround, type AssumptionName, type ClauseName, type EndpointId, type Ground, type SpecClause } from '../../spec/index.ts';

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
  /**
   * The registry questions the verdict reads, declared as data (every judgement declares them): an
   * unidentified reading makes a violation unknown only when it is named here and the case consulted
   * it (case-runner.ts `restingOnUnknown`); `[]` marks a judgement that holds under every reading (a
   * success answer's schema, a relation between the target's own answers). Too narrow a list lets a
   * wrong guess stand as a violation (the readings zoo serves each reading left out: test/precision/guesses.ts).
   */
  readonly reads: readonly AssumptionName[];
}

/** What a judgement's constructor takes besides its rule: the readings its verdict reads (mandatory). */
export interface ReadsDeclaration {
  readonly reads: readonly AssumptionName[];
}


/** A judgement resting on one fixed clause (its violations carry that clause). */
export type SpecJudgement = Judgement & { readonly ground: { readonly kind: 'spec'; readonly clause: SpecClause } };
/** A judgement resting on the clause of whichever constraint it judges. */
export type ConstraintJudgement = Judgement & { readonly ground: { readonly kind: 'constraint' } };

/**
 * Every reading of the registry: what a judgement of a library user's own property reads when it
 * declares nothing, so that any reading its case consulted and the probe left unidentified makes its
 * violation unknown (the conservative reading of silence). The catalogue's own always declare.
 */
export const EVERY_READING: ReadsDeclaration = Object.freeze({ reads: Object.freeze(ASSUMPTIONS.map((a) => a.name)) });

export function specJudgement(id: string, rule: string, clause: ClauseName, o: ReadsDeclaration = EVERY_READING): SpecJudgement {
  return Object.freeze({ id, rule, ground: specGround(clause), reads: Object.freeze([...o.reads]) });
}

/** Reads no reading: its verdict stands whatever the probe left unidentified. */
export const READING_FREE = Object.freeze({ reads: Object.freeze([] as AssumptionName[]) });

export function constraintJudgement(id: string, rule: string, o: ReadsDeclaration): ConstraintJudgement {
  return Object.freeze({ id, rule, ground: Object.freeze({ kind: 'constraint' as const }), reads: Object.freeze([...o.reads]) });
}

/**
 * A judgement resting on a registry reading: what it finds is an `assumption` finding. It reads its
 * own reading, and `o.reads` names the others that decide how the answers it judges are read.
 */
export function readingJudgement(id: string, rule: string, assumption: AssumptionName, o: ReadsDeclaration): Judgement {
  return Object.freeze({ id, rule, ground: readingGround(assumption), reads: Object.freeze([...new Set([assumption, ...o.reads])]) });
}

/** A judgement on cost, grounded on no clause: what it finds is a `performance` finding (reported apart). */
export type PerformanceJudgement = Judgement & { readonly ground: PerformanceGround };

// Reads no reading: the runner never turns a performance finding into an unknown (case-runner.ts), so none is declared.
export function performanceJudgement(id: string, rule: string, basis: string): PerformanceJudgement {
  return Object.freeze({ id, rule, ground: Object.freeze({ kind: 'performance' as const, basis }), reads: READING_FREE.reads });
}

// A success's form is the spec's words alone (2.1, section 4's data, section 7's ok true): no reading changes it.
export const SUCCESS_ENVELOPE = specJudgement('shared.success-envelope', 'A 2xx answers the common envelope (2.1): ok true, data, meta.request_id, and the data its endpoint lists.', 'envelopeFields', READING_FREE);

/** What each endpoint does, in the spec's words: the clause a refused valid request breaks. */
const ENDPOINT_CLAUSE: { readonly [E in EndpointId]: ClauseName } = {
  approveDevice: 'approveCreatesDevice',
  commitOperations: 'commitOperations',
  reportUsage: 'usageReports',
  registerPasskey: 'passkeyRegisters',
  revokeBrowser: 'revokeBrowser',
  changeUnlock: 'unlockChanges',
};

/**
 * Readings that say only how an accepted answer is read (what a success's results, seq, stored and
 * head_seq mean; how much of a batch applies): none of them can explain why a valid request was
 * refused, while a refused request and its accepted control differ in one field.
 */
export const ANSWER_READINGS: readonly AssumptionName[] = Object.freeze(['batch-atomicity', 'commit-results', 'seq-semantics', 'usage-stored-meaning', 'head-seq-semantics']);

/** What a refusal of a valid request may rest on: every reading but those that read answers only. */
export const REFUSAL_READS: ReadsDeclaration = { reads: ASSUMPTIONS.map((a) => a.name).filter((n) => !ANSWER_READINGS.includes(n)) };

export const SERVES: { readonly [E in EndpointId]: SpecJudgement } = mapTable(ENDPOINT_CLAUSE, (clause, e) =>
  specJudgement(`shared.serves.${e}`, `A valid ${e} request is served when a plain one is (a control pins no field and no reading explains the refusal).`, clause, REFUSAL_READS),
);

export const FIELD_WITHIN_CONSTRAINTS = constraintJudgement(
  'shared.field-within-constraints',
  'A value within every stated constraint of its field is no reason to refuse: the same request with only that field plain is accepted.',
  REFUSAL_READS,
);

/**
 * The readings the shared judges can name whatever the property: what a refused plain request of
 * each endpoint rests on, what the harness's own commits rest on, the forms a refusal takes, and
 * the readings a valid value may rest on. `defineProperty` declares them on every property.
 */
export const SHARED_READINGS: readonly AssumptionName[] = Object.freeze([
  ...new Set<AssumptionName>([
    ...keysOf(ENDPOINT_CLAUSE).map((e) => ENDPOINT_BY_ID[e].environment),
    // What the diagnosis of a refused plain request tries (src/check/judge/environment.ts): an id the profile lists, the other JWS form.
    ...keysOf(ENDPOINT_CLAUSE).flatMap((e) => listedParams(ENDPOINT_BY_ID[e]).map((p) => p.listedUnder.assumption)),
    'jws-form',
    'op-semantics',
    'rate-limits',
    'error-response',
    'conflict-behaviour',
    'conflict-status',
    'characters-are-code-points',
    'usage-counters-negative',
    'unknown-fields-ignored',
    'empty-lists',
    'usage-day-window',
    'batch-chaining',
  ]),
]);

/** Listed on every property by `defineProperty`. */
export const COMMON_JUDGEMENTS: readonly Judgement[] = Object.freeze([SUCCESS_ENVELOPE, ...Object.values(SERVES), FIELD_WITHIN_CONSTRAINTS]);

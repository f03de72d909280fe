/**
 * Sections 2, 4 and 8 from the other side: a request that breaks one stated constraint is refused
 * with a 4xx (never a 5xx), and a refused request has no effect at all.
 */
import fc from 'fast-check';
import { judgeServed } from '../src/check/judge/controls.ts';
import { assumptionMismatch, expectRejected, Notes, unexpected, type Blame } from '../src/check/judge/judge.ts';
import { constraintJudgement, READING_FREE, readingJudgement } from '../src/check/judge/judgements.ts';
import { PASS, defineProperty, notApplicable, type CaseContext, type CoverageCase, type Outcome, type Property } from '../src/check/property.ts';
import { allViolations, breaksOnlyItsLabel, coverageViolations, isObject, parseJsonValue, violationSpecs, violationsFor, type Json, type ViolationCase } from '../src/gen/index.ts';
import { assumptionOf, LIMITS, PATTERNS, REQUEST_CONSTRAINTS, issuesOf, must, toZod, UsageRow as UsageRowNode, type Constraint } from '../src/spec/index.ts';
import { browserCommits, commit, createArtifacts, fates, op, pouchFor, proveNothingApplied, type Op } from './support/commits.ts';
import type { Exchange } from '../src/target/client.ts';
import { sampleUuidConstraints } from './boundaries.ts';
import { prepare } from './support/requests.ts';
import { judgePlan, storedFitsAReading } from './support/usage.ts';
import { judgeRelation, keepAnswer, probeTail, zeroed, type UsageRelation } from './support/usage-relations.ts';
import { rowKey, type StoredAnswers, type UsageRow } from '../src/check/model/usage-model.ts';

/** Each stated constraint is enforced: breaking it is refused, and the refused request has no effect. */
// A violation case labelled with a reading blames that reading; the rest are refused under every one.
// Read: what counts as a refusal (error-response, a per-op refusal), and what proves an effect: a
// commit's later create (op-semantics, commit-results), a report's stored answer (the usage model's two).
const ENFORCED = constraintJudgement('rejection.constraint-enforced', 'A request breaking exactly one stated constraint is refused (a 4xx, never a 5xx) and has no effect.', {
  reads: ['error-response', 'conflict-behaviour', 'op-semantics', 'commit-results', 'usage-row-key', 'usage-stored-meaning'],
});
/** The same, judged as a relation between the target's own answers: it reads no reading. */
const NO_EFFECT_RELATION = constraintJudgement('rejection.no-effect-relation', 'A usage report refused for breaking one stated constraint leaves its source answering later reports as a fresh source does, whatever stored counts.', READING_FREE);
const ATOMIC = readingJudgement('rejection.conflict-no-effect', 'A batch refused for a conflict applies none of its ops.', 'batch-atomicity', { reads: ['conflict-behaviour', 'op-semantics', 'commit-results'] });

const CONSTRAINT_BY_ID = new Map(REQUEST_CONSTRAINTS.map((c) => [c.id, c]));


/** Whom accepting a violation case blames: the reading its label rests on, or its constraint's own clause. */
function blameOf(c: ViolationCase): Blame {
  if (c.label.assumption) return { assumption: c.label.assumption };
  return { judgement: ENFORCED, clause: must(CONSTRAINT_BY_ID.get(c.label.constraintId), `violation cases are labelled with constraints of the inventory (${c.label.constraintId})`).clause };
}

interface Target {
  readonly constraint: Constraint;
  readonly variant: string;
}

const BOUNDED = new Set(['min', 'max', 'minLength', 'maxLength', 'minItems', 'maxItems']);
/** The variants where real validators go wrong: off-by-one, lenient UUIDs, pattern-only days. */
const FOCUS: Readonly<Record<string, RegExp>> = {
  uuid: /^uuid:(version-0|variant-c|no-hyphens)$/,
  calendar: /^day:(feb-30|month-13)$/,
  pattern: /./,
  charset: /^char:(\+|upper)$/,
  enum: /./,
};

function focusTargets(): Target[] {
  const out: Target[] = [];
  const uuidFields = new Set(sampleUuidConstraints().map((c) => c.id));
  for (const c of REQUEST_CONSTRAINTS) {
    const re = BOUNDED.has(c.kind) ? /./ : FOCUS[c.kind];
    if (!re) continue;
    if (c.kind === 'uuid' && !uuidFields.has(c.id)) continue;
    if (c.kind === 'charset' && c.scope !== 'params' && !c.path.endsWith('envelope')) continue;
    for (const s of violationSpecs(c)) if (re.test(s.variant)) out.push({ constraint: c, variant: s.variant });
  }
  return out;
}

const TARGETS = focusTargets();
/** Each case sweeps every STRIDE-th focus target from a random offset, plus one violation of anything. */
const STRIDE = 4;

const sweeps = new Map<number, fc.Arbitrary<ViolationCase[]>>();
/** One arbitrary of every violation for all the sweeps: each is ~22 MB of arbitraries, and one per offset held 88 MB for the run. */
let anyViolation: fc.Arbitrary<ViolationCase> | undefined;
const sweepAt = (offset: number): fc.Arbitrary<ViolationCase[]> => {
  let a = sweeps.get(offset);
  if (!a) {
    anyViolation ??= allViolations();
    a = fc.tuple(...TARGETS.filter((_, i) => i % STRIDE === offset).map((t) => violationsFor(t.constraint, t.variant)), anyViolation);
    sweeps.set(offset, a);
  }
  return a;
};
const arbSweep: fc.Arbitrary<ViolationCase[]> = fc.noBias(fc.integer({ min: 0, max: STRIDE - 1 })).chain(sweepAt);

/** Whether the profile's readings make this label a violation at all. */
function inForce(ctx: CaseContext, c: ViolationCase): boolean {
  const name = c.label.assumption;
  if (!name) return true;
  return ctx.assumptions[name] === assumptionOf(name).default;
}

/**
 * The answer to a request breaking one constraint: a 4xx, or, for a commit, a 2xx in which no op
 * applied (a per-op refusal, the `conflict-behaviour` reading); anything applied breaks the constraint.
 */
function judgeRefusal(ctx: CaseContext, c: ViolationCase, ex: Exchange, via = ''): Outcome {
  const what = `${c.label.endpoint}${via} with ${c.label.description}`;
  // A 2xx with ok true may still refuse every op (a per-op status); a 2xx with ok false refuses the request (expectRejected judges its form).
  if (c.label.endpoint === 'commitOperations' && ex.verdict === 'accepted') {
    const body = ex.request.body.length ? parseJsonValue(new TextDecoder().decode(ex.request.body)) : {};
    // The ops as sent (this case's own body, built from Op values); fates reads their ids.
    const ops = (isObject(body) && Array.isArray(body.ops) ? body.ops.filter(isObject) : []) as Op[];
    const f = fates(ctx, ex, ops);
    if (ops.length > 0 && f.ops.every((x) => x === 'refused')) {
      return assumptionMismatch('conflict-behaviour', `${what}: answered ${f.answer}, every op marked not applied, instead of a 4xx`);
    }
  }
  return expectRejected(ex, { what, assumptions: ctx.assumptions, blame: blameOf(c) });
}

async function refused(ctx: CaseContext, c: ViolationCase): Promise<Outcome> {
  const endpoint = c.label.endpoint;
  const s = prepare(ctx, endpoint, c);
  const ex = await ctx.call({ endpoint, params: s.params, body: s.body });
  const o = judgeRefusal(ctx, c, ex);
  if (!o.ok || endpoint !== 'commitOperations' || !(await browserCommits(ctx))) return o;
  // The same violation from the browser, which §4.2 does not ask to sign: a server that rewrites a body
  // before it verifies refuses the device's for its signature and takes the browser's.
  const b = prepare(ctx, endpoint, c);
  return judgeRefusal(ctx, c, await ctx.call({ endpoint, params: b.params, body: b.body, as: { member: 'browser' } }), ' from the browser (unsigned)');
}

/** The coverage phase's cases: each sent with its twin (a minimal pair), which the random sweep does without. */
const PAIRED = new WeakSet<ViolationCase>();

/** Every violation variant of every request constraint, once per run (the coverage phase), whatever the seed. */
let coverageCases: readonly CoverageCase<ViolationCase[]>[] | undefined;
const everyViolation = (): readonly CoverageCase<ViolationCase[]>[] =>
  (coverageCases ??= coverageViolations().cases.map((v) => {
    if (v.twin) PAIRED.add(v);
    return { input: [v], constraint: v.label.constraintId, side: 'reject', variant: v.label.variant };
  }));

/**
 * The twin of a refused violation (the same request with that one constraint met) must be served:
 * only then did the refusal show the constraint enforced. A twin refused is judged as any refused
 * valid request is (controls, readings, the field's clause); a twin the run's readings expect
 * refused shows nothing either way.
 */
async function twinServed(ctx: CaseContext, c: ViolationCase, twin: NonNullable<ViolationCase['twin']>): Promise<Outcome> {
  const endpoint = c.label.endpoint;
  const s = prepare(ctx, endpoint, twin);
  const ex = await ctx.call({ endpoint, params: s.params, body: s.body });
  const what = `the twin of ${endpoint} with ${c.label.description} (the same request with ${c.label.constraintId} met)`;
  const o = await judgeServed(ctx, endpoint, s, ex, { what });
  if (!o.ok || ex.verdict === 'accepted') return o;
  return notApplicable(`${what} is refused as the run's readings expect: the pair shows nothing of ${c.label.constraintId}`);
}

const describeCases = (cases: readonly ViolationCase[]) => cases.map((c) => `${c.label.constraintId} ${c.label.variant} at ${c.label.path}`).join('\n');

// 2, 4, 8: each stated constraint is enforced: breaking it is a client error, never a server error.
const violationsRejected = defineProperty({
  id: 'rejection.violations-rejected',
  section: '8',
  invariant: 'A request breaking exactly one stated constraint is refused with a 4xx, never accepted and never a 5xx.',
  assumptions: ['error-response', 'day-calendar-valid', 'conflict-behaviour'],
  judgements: [ENFORCED],
  needs: ['browser', 'device'],
  arbitrary: () => arbSweep,
  coverage: everyViolation,
  async check(ctx, cases) {
    for (const c of cases) {
      if (ctx.signal.aborted) break;
      if (!inForce(ctx, c) || !breaksOnlyItsLabel(c)) continue;
      const o = await refused(ctx, c);
      // Each constraint variant that fails is a finding of its own (random-phase.ts).
      if (!o.ok) return o.kind === 'violation' || o.kind === 'server-error' ? { ...o, part: `${c.label.constraintId} ${c.label.variant}` } : o;
      if (PAIRED.has(c) && c.twin) {
        const pair = await twinServed(ctx, c, c.twin);
        if (!pair.ok) return pair;
      }
    }
    return PASS;
  },
  describe: describeCases,
});

// ---- no side effect ---------------------------------------------------------------------------

const COMMIT_BODY = REQUEST_CONSTRAINTS.filter((c) => c.endpoint === 'commitOperations' && c.scope === 'body' && c.path.startsWith('ops[]'));
const USAGE_BODY = REQUEST_CONSTRAINTS.filter((c) => c.endpoint === 'reportUsage' && c.scope === 'body' && c.path.startsWith('rows[]'));

type SideCase =
  | { readonly kind: 'invalid'; readonly violation: ViolationCase }
  | { readonly kind: 'conflict'; readonly size: number };

const arbSideCase: fc.Arbitrary<SideCase> = fc.oneof(
  fc.constantFrom(...COMMIT_BODY, ...USAGE_BODY).chain((c) => violationsFor(c)).map((v): SideCase => ({ kind: 'invalid', violation: v })),
  fc.integer({ min: 2, max: 5 }).map((size): SideCase => ({ kind: 'conflict', size })),
);

const uuidOk = (v: unknown): v is string => typeof v === 'string' && PATTERNS.uuid.regex.test(v);

/** After a refused commit: every valid create of it can still be made, with its own revision id. */
async function commitLeftNothing(ctx: CaseContext, pouchId: string, body: Json, what: string, onApplied: Blame): Promise<Outcome> {
  const ops = isObject(body) && Array.isArray(body.ops) ? body.ops : [];
  const creates = ops.filter((o) => isObject(o) && o.type === 'create' && uuidOk(o.artifact_id));
  if (creates.length === 0) return PASS;
  const seen = new Set<string>();
  const again: { artifact: string; revision: string }[] = [];
  for (const o of creates) {
    if (!isObject(o)) continue;
    const artifact = String(o.artifact_id);
    if (seen.has(artifact.toLowerCase())) continue;
    seen.add(artifact.toLowerCase());
    const revision = uuidOk(o.revision_id) && !seen.has(o.revision_id.toLowerCase()) ? o.revision_id : ctx.uuid();
    seen.add(revision.toLowerCase());
    again.push({ artifact, revision });
  }
  return proveNothingApplied(ctx, pouchId, again.slice(0, LIMITS.opsPerCommit.max), what, onApplied);
}

const rowSchema = toZod(UsageRowNode);

/** After a refused usage report: its valid rows, sent alone, are all new to the source. */
async function usageLeftNothing(ctx: CaseContext, sourceId: string, body: Json, onStored: Blame): Promise<Outcome> {
  const rows = (isObject(body) && Array.isArray(body.rows) ? body.rows : []).filter((r): r is UsageRow => issuesOf(rowSchema, r).length === 0);
  const byKey = new Map<string, UsageRow>();
  for (const r of rows) if (!byKey.has(rowKey(r))) byKey.set(rowKey(r), r);
  const valid = [...byKey.values()].slice(0, LIMITS.usageRowsPerRequest.max);
  if (valid.length === 0) return PASS;
  // Where stored fits no known reading the model has nothing to go on: the relation reads none.
  const calibrated = await storedFitsAReading(ctx);
  if ('outcome' in calibrated) return calibrated.outcome;
  if (!calibrated.fits) return judgeRelation(ctx, leftNothingRelation(valid, onStored), { leftSource: sourceId });
  const request = { params: { sourceId }, body: { rows: valid } };
  const ex = await ctx.send('reportUsage', request);
  const acc = await judgeServed(ctx, 'reportUsage', request, ex, { what: `the refused report's valid rows, sent alone` });
  if (!acc.ok || ex.verdict !== 'accepted') return acc;
  // The model says what a source that holds nothing answers, under every reading of stored.
  const answers: StoredAnswers = [];
  keepAnswer(answers, ex.data?.stored, ex);
  return judgePlan(ctx, [{ source: 0, rows: valid }], answers, onStored);
}

/**
 * No side effect as a relation (support/usage-relations.ts): the refused report's source and a fresh
 * one are sent the same history, its valid rows with every counter 0, which rule 1 says changes nothing
 * held. Had the refusal stored nothing, both hold the same rows and answer the tail alike; the sight
 * control holds the valid rows themselves, what a stored refusal would have left.
 */
function leftNothingRelation(valid: readonly UsageRow[], onStored: Blame): UsageRelation {
  return {
    law: 'clause' in onStored ? { judgement: NO_EFFECT_RELATION, clause: onStored.clause } : onStored,
    because: 'the refused report\'s source and a fresh one were then sent the same report (its valid rows, every counter 0), so had the refusal stored nothing they would hold the same rows',
    left: [zeroed(valid)],
    right: [zeroed(valid)],
    more: [valid],
    tail: probeTail(valid),
  };
}

// 4.2, 4.3: a refused request changes nothing.
const noSideEffect = defineProperty({
  id: 'rejection.no-side-effect',
  section: '4.2',
  invariant: 'A refused commit applies none of its ops, and a refused usage report stores none of its rows.',
  assumptions: ['usage-stored-meaning', 'usage-row-key', 'op-semantics', 'pouch-existence', 'batch-atomicity', 'conflict-behaviour', 'error-response', 'day-calendar-valid', 'caller-kinds', 'characters-are-code-points', 'usage-counters-negative', 'unknown-fields-ignored', 'empty-lists', 'usage-day-window'],
  judgements: [ENFORCED, ATOMIC, NO_EFFECT_RELATION],
  needs: ['device', 'pouch'],
  arbitrary: () => arbSideCase,
  stillValid: (c) => c.kind === 'conflict' || breaksOnlyItsLabel(c.violation),
  async check(ctx, c) {
    if (c.kind === 'conflict') {
      const pouch = pouchFor(ctx);
      const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
      if (outcome) return outcome;
      // Valid creates first, the conflicting create of an existing artifact last.
      const ops = Array.from({ length: c.size - 1 }, () => op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null }));
      ops.push(op(ctx, { type: 'create', artifact: artifacts[0].id, revision: ctx.uuid(), base: null }));
      const ex = await commit(ctx, pouch, ops);
      const what = `a batch of ${c.size} ops whose last op creates an existing artifact`;
      const u = unexpected(ex, what);
      if (u) return u;
      const f = fates(ctx, ex, ops);
      // An applied conflicting op or a partial batch is judged by commits.atomic-batch; here only what a refusal left behind.
      if (f.batch !== 'refused' || ctx.assumptions['batch-atomicity'] === 'per-op') return notApplicable(`${what}: not refused as a whole (${f.answer}); what it applied is commits.atomic-batch's to judge`);
      const notes = new Notes();
      notes.add(f.conflictForm);
      return notes.result(await commitLeftNothing(ctx, pouch.id, { ops: ops.slice(0, -1) }, what, { assumption: 'batch-atomicity' }));
    }
    const v = c.violation;
    if (!inForce(ctx, v)) return notApplicable(`${v.label.constraintId} is not in force under the run's reading of ${v.label.assumption}`);
    const endpoint = v.label.endpoint;
    const s = prepare(ctx, endpoint, v);
    const ex = await ctx.call({ endpoint, params: s.params, body: s.body });
    const what = `${endpoint} with ${v.label.description}`;
    const r = judgeRefusal(ctx, v, ex);
    if (!r.ok && r.kind !== 'assumption') return r;
    const notes = new Notes();
    notes.add(r);
    if (endpoint === 'commitOperations') return notes.result(await commitLeftNothing(ctx, s.params['pouchId'], s.body, what, blameOf(v)));
    return notes.result(await usageLeftNothing(ctx, s.params['sourceId'], s.body, blameOf(v)));
  },
  describe: (c) => (c.kind === 'conflict' ? `conflicting batch of ${c.size}` : `${c.violation.label.constraintId} ${c.violation.label.variant}`),
});

const REJECTION: readonly Property[] = [violationsRejected, noSideEffect];
export default REJECTION;

/**
 * Sections 2, 4 and 8 from the other side: a request that breaks one stated constraint is refused
 * with a 4xx (never a 5xx), and a refused request has no effect at all.
 */
import fc from 'fast-check';
import { effectOf, expectAccepted, expectRejected, unexpected, violation } from '../src/check/judge.ts';
import { PASS, defineProperty, type CaseContext, type Outcome, type Property } from '../src/check/property.ts';
import { allViolations, breaksOnlyItsLabel, isObject, violationSpecs, violationsFor, type Json, type ViolationCase } from '../src/gen/index.ts';
import { ASSUMPTION_BY_NAME, LIMITS, PATTERNS, REQUEST_CONSTRAINTS, issuesOf, toZod, UsageRow as UsageRowNode, type AssumptionName, type Constraint } from '../src/spec/index.ts';
import { commit, createArtifacts, op, pouchFor, proveNothingApplied } from './support/commits.ts';
import { sampleUuidConstraints } from './boundaries.ts';
import { prepare } from './support/requests.ts';
import { predict, rowKey, type KeyReading, type StoredReading, type UsageRow } from './support/usage-model.ts';

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
const sweepAt = (offset: number): fc.Arbitrary<ViolationCase[]> => {
  let a = sweeps.get(offset);
  if (!a) {
    a = fc.tuple(...TARGETS.filter((_, i) => i % STRIDE === offset).map((t) => violationsFor(t.constraint, t.variant)), allViolations());
    sweeps.set(offset, a);
  }
  return a;
};
const arbSweep: fc.Arbitrary<ViolationCase[]> = fc.noBias(fc.integer({ min: 0, max: STRIDE - 1 })).chain(sweepAt);

/** Whether the profile's readings make this label a violation at all. */
function inForce(ctx: CaseContext, c: ViolationCase): boolean {
  const name = c.label.assumption as AssumptionName | undefined;
  if (!name) return true;
  return ctx.assumptions[name] === ASSUMPTION_BY_NAME.get(name)?.default;
}

async function refused(ctx: CaseContext, c: ViolationCase): Promise<Outcome> {
  const endpoint = c.label.endpoint;
  const s = prepare(ctx, endpoint, c);
  const ex = await ctx.call({ endpoint, params: s.params, body: s.body });
  const name = c.label.assumption as AssumptionName | undefined;
  return expectRejected(ex, { what: `${endpoint} with ${c.label.description}`, assumptions: ctx.assumptions, ...(name ? { assumption: name } : {}) });
}

const describeCases = (cases: readonly ViolationCase[]) => cases.map((c) => `${c.label.constraintId} ${c.label.variant} at ${c.label.path}`).join('\n');

// 2, 4, 8: each stated constraint is enforced: breaking it is a client error, never a server error.
const violationsRejected = defineProperty({
  id: 'rejection.violations-rejected',
  section: '8',
  invariant: 'A request breaking exactly one stated constraint is refused with a 4xx, never accepted and never a 5xx.',
  assumptions: ['error-response', 'day-calendar-valid'],
  needs: ['browser', 'device'],
  arbitrary: () => arbSweep,
  async check(ctx, cases) {
    for (const c of cases) {
      if (ctx.signal.aborted) break;
      if (!inForce(ctx, c) || !breaksOnlyItsLabel(c)) continue;
      const o = await refused(ctx, c);
      if (!o.ok) return o;
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
async function commitLeftNothing(ctx: CaseContext, pouchId: string, body: Json, what: string): Promise<Outcome> {
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
  return proveNothingApplied(ctx, pouchId, again.slice(0, LIMITS.opsPerCommit.max), what);
}

const rowSchema = toZod(UsageRowNode);

/** After a refused usage report: its valid rows, sent alone, are all new to the source. */
async function usageLeftNothing(ctx: CaseContext, sourceId: string, body: Json, what: string): Promise<Outcome> {
  const rows = (isObject(body) && Array.isArray(body.rows) ? body.rows : []).filter((r) => issuesOf(rowSchema, r).length === 0) as unknown as UsageRow[];
  const byKey = new Map<string, UsageRow>();
  for (const r of rows) if (!byKey.has(rowKey(r))) byKey.set(rowKey(r), r);
  const valid = [...byKey.values()].slice(0, LIMITS.usageRowsPerRequest.max);
  if (valid.length === 0) return PASS;
  const ex = await ctx.call({ endpoint: 'reportUsage', params: { sourceId }, body: { rows: valid } });
  const acc = expectAccepted(ex, { what: 'the refused report\'s valid rows, sent alone' });
  if (!acc.ok) return acc;
  const stored = (ex.response?.json as { data?: { stored?: unknown } } | undefined)?.data?.stored;
  const [expected] = predict([{ source: 0, rows: valid }], ctx.assumptions['usage-row-key'] as KeyReading, ctx.assumptions['usage-stored-meaning'] as StoredReading);
  if (expected !== undefined && stored !== expected) {
    return violation(`${what} was refused, yet sending its ${valid.length} valid row(s) alone afterwards stored ${String(stored)} instead of ${expected}: the refused report changed rows`);
  }
  return PASS;
}

// 4.2, 4.3: a refused request changes nothing.
const noSideEffect = defineProperty({
  id: 'rejection.no-side-effect',
  section: '4.2',
  invariant: 'A refused commit applies none of its ops, and a refused usage report stores none of its rows.',
  assumptions: ['usage-stored-meaning', 'op-semantics', 'pouch-existence'],
  needs: ['device'],
  arbitrary: () => arbSideCase,
  stillValid: (c) => c.kind === 'conflict' || breaksOnlyItsLabel(c.violation),
  async check(ctx, c) {
    if (c.kind === 'conflict') {
      const pouch = pouchFor(ctx);
      const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
      if (outcome) return outcome;
      // Valid creates first, the conflicting create of an existing artifact last.
      const ops = Array.from({ length: c.size - 1 }, () => op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null }));
      ops.push(op(ctx, { type: 'create', artifact: artifacts[0]!.id, revision: ctx.uuid(), base: null }));
      const ex = await commit(ctx, pouch, ops);
      const body = { ops: ops.slice(0, -1) } as unknown as Json;
      const what = `a batch of ${c.size} ops whose last op creates an existing artifact`;
      if (effectOf(ex) !== 'refused') return unexpected(ex) ?? PASS; // judged by commits.atomic-batch
      return commitLeftNothing(ctx, pouch.id, body, what);
    }
    const v = c.violation;
    if (!inForce(ctx, v)) return PASS;
    const endpoint = v.label.endpoint;
    const s = prepare(ctx, endpoint, v);
    const ex = await ctx.call({ endpoint, params: s.params, body: s.body });
    const what = `${endpoint} with ${v.label.description}`;
    const r = expectRejected(ex, { what });
    if (!r.ok) return r;
    if (endpoint === 'commitOperations') return commitLeftNothing(ctx, s.params['pouchId']!, s.body, what);
    return usageLeftNothing(ctx, s.params['sourceId']!, s.body, what);
  },
  describe: (c) => (c.kind === 'conflict' ? `conflicting batch of ${c.size}` : `${c.violation.label.constraintId} ${c.violation.label.variant}`),
});

const REJECTION: readonly Property[] = [violationsRejected, noSideEffect];
export default REJECTION;

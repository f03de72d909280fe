/**
 * Building semantically valid commits (4.2) on a live target: fresh pouch, artifact and revision
 * ids on every case, opaque crypto fields filled with well-formed placeholders (assumption
 * `opaque-crypto-fields`), lists never empty (`empty-lists`), and follow-up commits that prove what
 * the head of an artifact is, since the spec shows no read endpoint. What a commit did is always
 * asked of the one commit judge (`commitOutcome`); a proof that fails is checked by a control
 * before it blames the target.
 */
import fc from 'fast-check';
import { commitOutcome, type CommitOutcome } from '../../src/check/judge/commit-outcome.ts';
import { judgeServed } from '../../src/check/judge/controls.ts';
import { blame, type Blame, unexpected } from '../../src/check/judge/judge.ts';
import { plainRequest } from '../../src/check/model/plain.ts';
import { pickListed, prepare } from '../../src/check/run/index.ts';
import { PASS, unknownOutcome, type CaseContext, type Outcome } from '../../src/check/property.ts';
import { parseJsonValue, type RequestSample } from '../../src/gen/index.ts';
import { deletes, keepsLiveState, OP_TYPES, type CommitBody, type OpType, type PouchOperationValue } from '../../src/spec/index.ts';
import { pouchPlan } from '../../src/target/pouches.ts';
import type { CallOptions, Exchange } from '../../src/target/client.ts';

export interface Pouch {
  readonly id: string;
  readonly epoch: string;
  /** Who commits to it: the profile's device (signed) unless the browser (unsigned, 4.2) is named. */
  readonly as?: { readonly member: 'browser' };
}

/** Which credential a commit law's case commits with: 4.2 asks a signature of command-line devices only. */
export type Via = 'device' | 'browser';

/** The types an op on an existing artifact may have. */
export type LaterType = Exclude<OpType, 'create'>;
export const LATER_TYPES = OP_TYPES.filter((t): t is LaterType => t !== 'create');

/**
 * The drawn types, artifact after artifact in turn, made to keep the state rules a server may add where
 * section 3 shows none: an op on a deleted artifact is its restore, a restore of a live one its delete,
 * and an artifact left deleted is restored last. Chaining is judged alone, and the update that then
 * proves each head asks no state rule; commits.model-sequences sends what the rules differ on (op-semantics).
 */
export function liveChains<A>(types: readonly LaterType[], artifacts: readonly A[]): (readonly [LaterType, A])[] {
  const deleted = new Map<A, boolean>();
  const out: (readonly [LaterType, A])[] = [];
  for (const [i, t] of types.entries()) {
    const a = artifacts[i % artifacts.length];
    if (a === undefined) break; // no artifacts, no chain
    const gone = deleted.get(a) ?? false;
    const type: LaterType = keepsLiveState(t, gone) ? t : gone ? 'restore' : 'delete';
    deleted.set(a, deletes(type));
    out.push([type, a]);
  }
  for (const a of artifacts) if (deleted.get(a)) out.push(['restore', a]);
  return out;
}


/** Mostly the device; one case in four from the browser, where a server validating its unsigned path apart can break a law the signed path keeps. */
export const arbVia: fc.Arbitrary<Via> = fc.oneof({ arbitrary: fc.constant<Via>('device'), weight: 3 }, { arbitrary: fc.constant<Via>('browser'), weight: 1 });

/** A pouch for a commit law's case: committed to from the browser when the case draws it and the target takes browser commits, else from the device. */
export async function lawPouch(ctx: CaseContext, via: Via): Promise<Pouch> {
  const pouch = pouchFor(ctx);
  return via === 'browser' && (await browserCommits(ctx)) ? { ...pouch, as: { member: 'browser' } } : pouch;
}

/**
 * A fresh pouch (created on first commit), or one of the profile's under `must-exist` (pouchPlan).
 * A property that commits needs the capability `pouch`, so a run with no usable pouch skips it
 * before this is reached.
 */
export function pouchFor(ctx: CaseContext): Pouch {
  const plan = pouchPlan({ assumptions: ctx.steering ?? ctx.assumptions, pouchIds: ctx.profile.pouchIds });
  const epoch = ctx.uuid();
  switch (plan.kind) {
    case 'fresh':
      return { id: ctx.uuid(), epoch };
    case 'listed':
      // a 'listed' plan is made only when the profile lists pouch ids, so there is one to pick
      return { id: pickListed(ctx, plan.ids)!, epoch };
    case 'unavailable':
      throw new Error(plan.reason);
    default:
      return plan satisfies never;
  }
}

export interface OpSpec {
  readonly type: OpType;
  readonly artifact: string;
  readonly revision: string;
  readonly base: string | null;
}

/** One operation of a commit (2.5), as the spec model types it. */
export type Op = PouchOperationValue;

/** A valid op with placeholder crypto fields; `extra` sets the optional members (or overrides any). */
export function op(ctx: CaseContext, s: OpSpec, extra: Partial<Op> = {}): Op {
  return {
    type: s.type,
    artifact_id: s.artifact,
    revision_id: s.revision,
    base_revision_id: s.base,
    key_gen: 1,
    envelope: 'ZW52ZWxvcGU',
    signature: 'c2lnbmF0dXJl',
    signer_member_id: ctx.profile.accounts.primary.device?.memberId ?? ctx.uuid(),
    blob_ids: ['YmxvYg'],
    ...extra,
  };
}

export function commitBody(pouch: Pouch, ops: readonly Op[], operationId: string): CommitBody {
  return { operation_id: operationId, epoch: pouch.epoch, ops: [...ops] };
}

export type CommitOptions = Partial<Pick<CallOptions, 'as' | 'signature' | 'gate' | 'onHeld' | 'timeoutMs' | 'headers' | 'rawBody'>> & {
  readonly operationId?: string;
};

export function commit(ctx: CaseContext, pouch: Pouch, ops: readonly Op[], o: CommitOptions = {}): Promise<Exchange> {
  const { operationId, ...rest } = o;
  return ctx.call({
    endpoint: 'commitOperations',
    params: { pouchId: pouch.id },
    body: commitBody(pouch, ops, operationId ?? ctx.uuid()),
    ...(pouch.as ? { as: pouch.as } : {}),
    ...rest,
  });
}

/** What the commit did to each of its ops. */
export function fates(ctx: CaseContext, ex: Exchange, ops: readonly Op[]): CommitOutcome {
  return commitOutcome(ex, ops, ctx.assumptions);
}

/** The body of a sent commit, as a request sample for controls. */
function sampleOf(pouch: Pouch, ex: Exchange): RequestSample {
  const text = new TextDecoder().decode(ex.request.body);
  return { params: { pouchId: pouch.id }, body: text ? parseJsonValue(text) : null };
}

/**
 * A step the case needs before it can check anything (creating the artifacts it works on): every op
 * must apply. When the commit is refused, controls tell the environment (a reading about pouches or
 * placeholder fields) from a field the target should not have refused (a violation).
 */
export async function setup(ctx: CaseContext, pouch: Pouch, ex: Exchange, ops: readonly Op[], what: string): Promise<Outcome> {
  const u = unexpected(ex, what);
  if (u) return u;
  const f = fates(ctx, ex, ops);
  if (f.batch === 'applied') return PASS;
  return judgeServed(ctx, 'commitOperations', sampleOf(pouch, ex), ex.verdict === 'accepted' ? { ...ex, verdict: 'rejected' } : ex, { what, ...(pouch.as ? { as: pouch.as } : {}) });
}

export interface Artifact {
  readonly id: string;
  /** The head revision the harness believes in. */
  head: string;
}

/** Creates `n` artifacts in one commit; `outcome` is set when the setup failed. */
export async function createArtifacts(ctx: CaseContext, pouch: Pouch, n: number): Promise<{ artifacts: Artifact[]; outcome?: Outcome }> {
  const artifacts: Artifact[] = Array.from({ length: n }, () => ({ id: ctx.uuid(), head: ctx.uuid() }));
  const ops = artifacts.map((a) => op(ctx, { type: 'create', artifact: a.id, revision: a.head, base: null }));
  const ex = await commit(ctx, pouch, ops);
  const s = await setup(ctx, pouch, ex, ops, `creating ${n} artifact(s)`);
  return s.ok ? { artifacts } : { artifacts, outcome: s };
}

/**
 * The control behind every proof: a fresh artifact created and updated in the same pouch. When even
 * that is refused, the target does not take the commits the harness builds, and nothing about the
 * case can be concluded.
 */
async function control(ctx: CaseContext, pouch: Pouch, what: string, refused: Exchange): Promise<Outcome | undefined> {
  const a = { id: ctx.uuid(), head: ctx.uuid() };
  const first = op(ctx, { type: 'create', artifact: a.id, revision: a.head, base: null });
  const created = await commit(ctx, pouch, [first]);
  const s = await setup(ctx, pouch, created, [first], 'the control: creating a fresh artifact in the same pouch');
  if (!s.ok) return s;
  const next = op(ctx, { type: 'update', artifact: a.id, revision: ctx.uuid(), base: a.head });
  const updated = await commit(ctx, pouch, [next]);
  const u = unexpected(updated);
  if (u) return u;
  if (fates(ctx, updated, [next]).batch !== 'applied') {
    return unknownOutcome(`${what} was refused (${refused.response?.status ?? refused.reason}), and so is an update on the head of a fresh artifact: the target does not take the harness's updates`);
  }
  return undefined;
}

/** Suspects tried at most per proof: the revisions a refused commit would have set. */
const MAX_SUSPECTS = 4;

/**
 * An op of `type` on `base` sent alone: the op when it applies (then `base` was the head), the outcome
 * when the answer is no answer to judge, undefined when it is refused.
 */
async function appliesOn(ctx: CaseContext, pouch: Pouch, artifact: string, type: 'update' | 'restore', base: string, what?: string): Promise<Op | Outcome | undefined> {
  const probe = op(ctx, { type, artifact, revision: ctx.uuid(), base });
  const ex = await commit(ctx, pouch, [probe]);
  const u = unexpected(ex, what);
  if (u) return u;
  return fates(ctx, ex, [probe]).batch === 'applied' ? probe : undefined;
}

/**
 * The direct observation behind a blame: an update on one of `suspects` (the revisions a commit that
 * should not have applied would have set) applies, or a restore where the update is refused (section 3
 * shows no states: a server may take only a restore on a deleted head), so the artifact's head was there.
 * Undefined when none applies: then the refusal that led here proves nothing (3: states are not shown).
 */
async function headAtSuspect(ctx: CaseContext, pouch: Pouch, artifact: string, suspects: readonly string[]): Promise<{ at: string; next: string; how: 'an update' | 'a restore' } | Outcome | undefined> {
  for (const at of [...new Set(suspects)].slice(0, MAX_SUSPECTS)) {
    for (const type of ['update', 'restore'] as const) {
      const seen = await appliesOn(ctx, pouch, artifact, type, at);
      if (seen !== undefined) return isOutcome(seen) ? seen : { at, next: seen.revision_id, how: type === 'update' ? 'an update' : 'a restore' };
    }
  }
  return undefined;
}

/** Whether a value the target answered names this id (uuids compare without regard to case, 2.2). */
export const namesId = (v: unknown, id: string): boolean => typeof v === 'string' && v.toLowerCase() === id.toLowerCase();
const isOutcome = (x: unknown): x is Outcome => typeof x === 'object' && x !== null && 'ok' in x;

/**
 * Proves `a.head` is the head of its artifact by extending it: an update on it must apply, or a restore
 * where the update is refused (a deleted head). When both are refused while the control applies, the
 * head moved only if an update on one of `suspects` (the
 * revisions a commit that should not have applied would have set) applies: then `onMoved` is
 * blamed, on what was seen. Otherwise the refusal alone proves nothing: unknown.
 */
export async function extend(ctx: CaseContext, pouch: Pouch, a: Artifact, what: string, onMoved: Blame, suspects: readonly string[] = []): Promise<Outcome> {
  const next = op(ctx, { type: 'update', artifact: a.id, revision: ctx.uuid(), base: a.head });
  const ex = await commit(ctx, pouch, [next]);
  const u = unexpected(ex, what);
  if (u) return u;
  const f = fates(ctx, ex, [next]);
  if (f.batch === 'applied') {
    a.head = next.revision_id;
    return PASS;
  }
  if (f.batch === 'unknown' && f.unreadable) return PASS; // a success that breaks its schema is judged whole by the case (success-shape.ts)
  const c = await control(ctx, pouch, what, ex);
  if (c) return c;
  // Section 3 shows no states: a server may take only a restore on a deleted head. A restore on the
  // same base that applies proves the head just as well.
  const back = await appliesOn(ctx, pouch, a.id, 'restore', a.head, `${what} (as a restore)`);
  if (isOutcome(back)) return back;
  if (back) {
    a.head = back.revision_id;
    return PASS;
  }
  const seen = await headAtSuspect(ctx, pouch, a.id, suspects.filter((r) => r !== a.head));
  if (isOutcome(seen)) return seen;
  if (seen) {
    a.head = seen.next;
    return blame(onMoved, `${what}: refused (${f.answer}), while ${seen.how} on ${seen.at}, the revision of an op that should not have applied, applies: the head had moved to it`);
  }
  return unknownOutcome(`${what}: refused (${f.answer}), and a restore on the same base too, while an update on a fresh artifact's head applies, and the head is at none of the revisions a wrongly applied op would have set: the artifact is in a state the spec does not show (3), so nothing is concluded`);
}

/**
 * Proves `artifact` does not exist in the pouch: a create of it (base null) must apply. When it is
 * refused, it exists only if an update on one of `suspects` (the revisions a create that should not
 * have applied would have set) applies; otherwise unknown.
 */
export async function absent(ctx: CaseContext, pouch: Pouch, artifact: string, what: string, onPresent: Blame, suspects: readonly string[] = []): Promise<Outcome> {
  const o = op(ctx, { type: 'create', artifact, revision: ctx.uuid(), base: null });
  const ex = await commit(ctx, pouch, [o]);
  const u = unexpected(ex, what);
  if (u) return u;
  const f = fates(ctx, ex, [o]);
  if (f.batch === 'applied' || (f.batch === 'unknown' && f.unreadable)) return PASS;
  const c = await control(ctx, pouch, what, ex);
  if (c) return c;
  const seen = await headAtSuspect(ctx, pouch, artifact, suspects);
  if (isOutcome(seen)) return seen;
  if (seen) return blame(onPresent, `${what}: refused (${f.answer}), while ${seen.how} on ${seen.at}, a revision that should never have been set, applies: the artifact exists`);
  return unknownOutcome(`${what}: refused (${f.answer}) while a fresh create applies, and no revision a wrongly applied create would have set is its head: a state the spec does not show (3), so nothing is concluded`);
}

/**
 * Proves a refused commit applied nothing: creating its artifacts must apply. When a create is
 * refused, part of the commit applied only if an update on the revision it named applies (seen
 * directly): then `onApplied` is blamed. Otherwise unknown.
 */
export async function proveNothingApplied(
  ctx: CaseContext,
  pouchId: string,
  creates: readonly { artifact: string; revision?: string }[],
  what: string,
  onApplied: Blame,
): Promise<Outcome> {
  if (creates.length === 0) return PASS;
  const pouch = { id: pouchId, epoch: ctx.uuid() };
  const ops = creates.map((c) => op(ctx, { type: 'create', artifact: c.artifact, revision: ctx.uuid(), base: null }));
  const ex = await commit(ctx, pouch, ops);
  const u = unexpected(ex, 'the follow-up create');
  if (u) return u;
  const f = fates(ctx, ex, ops);
  if (f.batch === 'applied' || (f.batch === 'unknown' && f.unreadable)) return PASS;
  const c = await control(ctx, pouch, what, ex);
  if (c) return c;
  for (const x of creates) {
    if (!x.revision) continue;
    const seen = await headAtSuspect(ctx, pouch, x.artifact, [x.revision]);
    if (isOutcome(seen)) return seen;
    if (seen) return blame(onApplied, `${what} was refused, yet ${x.artifact} has ${x.revision}, the revision that commit named, as its head (${seen.how} on it applies): part of it applied`);
  }
  return unknownOutcome(`${what} was refused; creating the artifact(s) it named is refused afterwards (${f.answer}) while a fresh create applies, yet none of them is at a revision the refused commit named: a state the spec does not show (3), so nothing is concluded`);
}

/** Per run (keyed by the run's environment memory): whether the target serves a plain commit from the browser, unsigned. */
const browserPath = new WeakMap<object, Promise<boolean>>();

/**
 * Whether commits can be sent through the browser credential as well: §4.2 asks Service-Signature of
 * command-line devices only, so where the profile has a browser and the target serves its plain
 * commit, the unsigned path is one more way in, validated apart by many servers. Observed once per
 * run; it reads no reading.
 */
export function browserCommits(ctx: CaseContext): Promise<boolean> {
  if (!ctx.allows('browser')) return Promise.resolve(false);
  let known = browserPath.get(ctx.environment);
  if (!known) {
    const s = prepare(ctx, 'commitOperations', plainRequest('commitOperations'));
    known = ctx.call({ endpoint: 'commitOperations', params: s.params, body: s.body, as: { member: 'browser' } }).then((ex) => ex.verdict === 'accepted');
    browserPath.set(ctx.environment, known);
  }
  return known;
}

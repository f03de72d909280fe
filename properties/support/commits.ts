/**
 * Building semantically valid commits (4.2) on a live target: fresh pouch, artifact and revision
 * ids on every case, opaque crypto fields filled with well-formed placeholders (assumption
 * `opaque-crypto-fields`), and follow-up commits that prove what the head of an artifact is.
 */
import { assumptionMismatch, describeResponse, expectAccepted, resultsOf, unexpected } from '../../src/check/judge.ts';
import type { CaseContext, Outcome } from '../../src/check/property.ts';
import type { OpType } from '../../src/spec/index.ts';
import { pouchPlan } from '../../src/target/pouches.ts';
import type { CallOptions, Exchange } from '../../src/target/client.ts';

export interface Pouch {
  readonly id: string;
  readonly epoch: string;
}

/**
 * A fresh pouch (created on first commit), or one of the profile's under `must-exist` (pouchPlan).
 * A property that commits needs the capability `pouch`, so a run with no usable pouch skips it
 * before this is reached.
 */
export function pouchFor(ctx: CaseContext): Pouch {
  const plan = pouchPlan({ assumptions: ctx.assumptions, pouchIds: ctx.profile.pouchIds });
  const epoch = ctx.uuid();
  switch (plan.kind) {
    case 'fresh':
      return { id: ctx.uuid(), epoch };
    case 'listed':
      return { id: plan.ids[parseInt(ctx.uuid().slice(0, 8), 16) % plan.ids.length]!, epoch };
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

export type Op = Record<string, unknown>;

export function op(ctx: CaseContext, s: OpSpec, extra: Record<string, unknown> = {}): Op {
  return {
    type: s.type,
    artifact_id: s.artifact,
    revision_id: s.revision,
    base_revision_id: s.base,
    key_gen: 1,
    envelope: 'ZW52ZWxvcGU',
    signature: 'c2lnbmF0dXJl',
    signer_member_id: ctx.profile.accounts.primary.device?.memberId ?? ctx.uuid(),
    blob_ids: [],
    ...extra,
  };
}

export function commitBody(pouch: Pouch, ops: readonly Op[], operationId: string): Record<string, unknown> {
  return { operation_id: operationId, epoch: pouch.epoch, ops };
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
    ...rest,
  });
}

/**
 * A step the case needs before it can check anything (creating the artifacts it works on). When
 * a plain create is refused, the target reads something other than the harness does about pouches,
 * signatures or placeholder crypto fields: an assumption mismatch, not a finding about the case.
 */
export function setup(ex: Exchange, what: string): Outcome {
  const u = unexpected(ex, what);
  if (u) return u;
  const acc = expectAccepted(ex, { what });
  if (acc.ok || acc.kind !== 'violation' || ex.verdict === 'protocol-error') return acc;
  return assumptionMismatch('pouch-existence', `${acc.message}: a plain create on a pouch is refused, so nothing about commits can be judged`);
}

export interface Artifact {
  readonly id: string;
  /** The head revision the harness believes in. */
  head: string;
}

/** Creates `n` artifacts in one commit; `outcome` is set when the setup failed. */
export async function createArtifacts(ctx: CaseContext, pouch: Pouch, n: number): Promise<{ artifacts: Artifact[]; outcome?: Outcome }> {
  const artifacts: Artifact[] = Array.from({ length: n }, () => ({ id: ctx.uuid(), head: ctx.uuid() }));
  const ex = await commit(ctx, pouch, artifacts.map((a) => op(ctx, { type: 'create', artifact: a.id, revision: a.head, base: null })));
  const s = setup(ex, `creating ${n} artifact(s)`);
  return s.ok ? { artifacts } : { artifacts, outcome: s };
}

/**
 * Proves `revision` is the head of `artifact` by extending it: an update on it must apply. The
 * harness's belief moves to the new revision when it does.
 */
export async function extend(ctx: CaseContext, pouch: Pouch, a: Artifact, what: string): Promise<Outcome> {
  const next = ctx.uuid();
  const ex = await commit(ctx, pouch, [op(ctx, { type: 'update', artifact: a.id, revision: next, base: a.head })]);
  const acc = expectAccepted(ex, { what });
  if (acc.ok) a.head = next;
  return acc;
}

/** Proves `artifact` does not exist: a create of it (base null) must apply. */
export async function absent(ctx: CaseContext, pouch: Pouch, artifact: string, what: string): Promise<Outcome> {
  const ex = await commit(ctx, pouch, [op(ctx, { type: 'create', artifact, revision: ctx.uuid(), base: null })]);
  return expectAccepted(ex, { what });
}

/** Whether every result of an accepted commit says `applied`. */
export function allApplied(ex: Exchange): boolean {
  const r = resultsOf(ex);
  return r.length > 0 && r.every((x) => x['status'] === 'applied');
}

export function seqsOf(ex: Exchange): { seq: number; high: number }[] {
  return resultsOf(ex).map((r) => ({ seq: Number(r['seq']), high: Number(r['high_water']) }));
}


/**
 * Proves a refused commit applied nothing: creating its artifacts (with the revision ids given)
 * must apply. When that is refused, a create of a fresh artifact in the same pouch tells a side
 * effect (fresh create applies: the refused commit left something behind) from a target that
 * refuses every commit we sign (then nothing can be concluded: the setup outcome).
 */
export async function proveNothingApplied(
  ctx: CaseContext,
  pouchId: string,
  creates: readonly { artifact: string; revision?: string }[],
  what: string,
): Promise<Outcome> {
  if (creates.length === 0) return { ok: true };
  const pouch = { id: pouchId, epoch: ctx.uuid() };
  const ex = await commit(ctx, pouch, creates.map((c) => op(ctx, { type: 'create', artifact: c.artifact, revision: c.revision ?? ctx.uuid(), base: null })));
  const u = unexpected(ex, 'the follow-up create');
  if (u) return u;
  if (ex.response!.status < 400) return expectAccepted(ex, { what: 'the follow-up create' });
  const control = await commit(ctx, pouch, [op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null })]);
  const s = setup(control, 'a create of a fresh artifact in the same pouch');
  if (!s.ok) return s;
  return {
    ok: false,
    kind: 'violation',
    message: `${what} was refused, yet creating the artifact(s) it named is refused afterwards (${describeResponse(ex)}) while a fresh create applies: part of it applied`,
  };
}

/**
 * POST /v1/pouches/{pouchId}/operations (4.2). A batch applies whole or not at all (409, nothing
 * written); each op is checked against the heads as the batch's earlier ops left them.
 */
import { HttpError, yieldTurn, type Ctx, type Reply } from './http-types.ts';
import { canonicalJson } from './json.ts';
import { commitBody, type Op } from './ops.ts';
import { signatureProblem } from './signature.ts';
import type { Artifact, Pouch, State } from './state.ts';
import { fail, isUuid } from './validate.ts';

/** The batch's view: writes go to an overlay over the store until the whole batch is accepted. */
interface Working {
  readonly artifacts: Map<string, Artifact>;
  readonly revisions: Set<string>;
}

function conflict(message: string): never {
  throw new HttpError(409, 'conflict', message);
}

/** Why `op` cannot apply on `a` (the artifact as it stands), or undefined. */
function opProblem(op: Op, a: Artifact | undefined, ctx: Ctx): string | undefined {
  const bug = ctx.bug;
  if (op.type === 'create') {
    if (a && !bug('4.2-5')) return 'the artifact exists';
    if (op.baseRevisionId !== null && !bug('4.2-6')) return 'a create names no base';
    return undefined;
  }
  if (!a) return 'no such artifact';
  const onBase = op.baseRevisionId === a.head || bug('1-2') || (op.type === 'restore' && bug('4.2-10') && a.revisions.includes(op.baseRevisionId ?? ''));
  if (!onBase) return `stale base: the head is ${a.head}`;
  switch (op.type) {
    case 'restore':
      return a.deleted ? undefined : 'the artifact is not deleted';
    case 'update':
    case 'rename':
    case 'delete':
    case 'resolve':
      return a.deleted && !(bug('4.2-11') && op.type !== 'delete') ? 'the artifact is deleted' : undefined;
    default:
      return op.type satisfies never;
  }
}

function artifactKey(pouchId: string, artifactId: string, ctx: Ctx): string {
  return ctx.bug('1-7') ? artifactId : `${pouchId}/${artifactId}`;
}

function read(w: Working, s: State, key: string, ctx: Ctx): Artifact | undefined {
  return (ctx.bug('4.2-9') ? undefined : w.artifacts.get(key)) ?? s.artifacts.get(key);
}

/** Checks the whole batch on an overlay; returns the overlay to write. */
function checkBatch(pouchId: string, ops: readonly Op[], ctx: Ctx): Working {
  const w: Working = { artifacts: new Map(), revisions: new Set() };
  ops.forEach((op, i) => {
    const key = artifactKey(pouchId, op.artifactId, ctx);
    const a = read(w, ctx.state, key, ctx);
    const problem = opProblem(op, a, ctx);
    if (problem) conflict(`ops[${i}]: ${problem}`);
    const rev = `${pouchId}/${op.revisionId}`;
    if ((ctx.state.revisions.has(rev) || w.revisions.has(rev)) && !ctx.bug('4.2-7')) conflict(`ops[${i}]: revision id already used`);
    w.revisions.add(rev);
    const next: Artifact = op.type === 'create' || !a ? { head: op.revisionId, deleted: false, revisions: [] } : { ...a, revisions: [...a.revisions] };
    next.head = op.revisionId;
    next.deleted = op.type === 'delete';
    next.revisions.push(op.revisionId);
    w.artifacts.set(key, next);
  });
  return w;
}

async function write(w: Working, s: State, ctx: Ctx): Promise<void> {
  const entries = [...w.artifacts];
  const half = ctx.bug('1-4') ? Math.ceil(entries.length / 2) : entries.length;
  for (const [k, a] of entries.slice(0, half)) s.artifacts.set(k, a);
  if (half < entries.length) await yieldTurn();
  for (const [k, a] of entries.slice(half)) s.artifacts.set(k, a);
  for (const r of w.revisions) s.revisions.add(r);
}

function results(pouch: Pouch, ops: readonly Op[], ctx: Ctx): unknown[] {
  const before = pouch.seq;
  const seqs = ops.map(() => (ctx.bug('2.6-5') ? pouch.seq + 1 : ++pouch.seq));
  if (ctx.bug('2.6-5')) pouch.seq++;
  const high = ctx.bug('2.6-6') ? before : pouch.seq;
  const big = (n: number): unknown => (ctx.bug('2.6-3') ? String(n) : ctx.bug('2.6-4') ? BigInt(n) + 2n ** 60n : n);
  return ops.map((op, i) => {
    const named = ctx.bug('2.6-2') ? ops[0]! : op;
    const r: Record<string, unknown> = { status: ctx.bug('2.6-1') ? 'ok' : 'applied', artifact_id: named.artifactId, revision_id: named.revisionId, seq: big(seqs[i]!) };
    if (!ctx.bug('4.2-14')) r['high_water'] = big(high);
    return r;
  });
}

/** The pouch, created by the first commit of an account (no endpoint creates pouches); another account's is not found. */
function pouchFor(pouchId: string, ctx: Ctx): { pouch: Pouch; storeId: string } {
  const account = ctx.caller.account;
  const storeKey = ctx.bug('1-6') ? `${account.id}/${pouchId}` : pouchId;
  let pouch = ctx.state.pouches.get(storeKey);
  if (!pouch) ctx.state.pouches.set(storeKey, (pouch = { id: pouchId, owner: account, seq: 0 }));
  if (pouch.owner !== account && !ctx.bug('1-5')) throw new HttpError(404, 'not_found', 'no such pouch');
  return { pouch, storeId: pouchId };
}

function checkSignature(ctx: Ctx): void {
  const mustSign = ctx.caller.kind === 'device' || ctx.bug('5.1-3');
  if (!mustSign) return;
  const name = ctx.bug('5.1-2') ? 'x-service-signature' : 'service-signature';
  const raw = ctx.headers[name];
  const header = Array.isArray(raw) ? raw.join(',') : raw;
  const own = ctx.state.deviceKeys.get(ctx.caller.deviceId ?? '');
  const keys = { own: own!, all: ctx.state.deviceKeys, seen: ctx.state.seenSignatures };
  const problem = own ? signatureProblem({ header, body: ctx.body, rawBody: ctx.rawBody }, keys, ctx.bug) : 'no key enrolled';
  if (problem) throw new HttpError(401, 'bad_signature', `Service-Signature: ${problem}`);
}

function idempotencyKey(pouchId: string, operationId: string, ctx: Ctx): string {
  if (ctx.bug('4.2-13')) return operationId;
  if (ctx.bug('4.2-17')) return `${ctx.caller.account.id}/${operationId}`;
  return `${ctx.caller.account.id}/${pouchId}/${operationId}`;
}

export async function commitOperations(ctx: Ctx): Promise<Reply> {
  const rawId = ctx.params['pouchId']!;
  if (!ctx.bug('4.2-1') && !isUuid(rawId, ctx.bug)) fail('path.pouchId', 'not a UUID (2.2)');
  const pouchId = rawId.toLowerCase();
  checkSignature(ctx);
  const body = commitBody(ctx.body, ctx.bug);
  const { pouch, storeId } = pouchFor(pouchId, ctx);
  const idemKey = idempotencyKey(storeId, body.operationId, ctx);
  const canonical = canonicalJson(ctx.body);
  const seen = ctx.bug('4.2-12') ? undefined : ctx.state.commits.get(idemKey);
  if (seen) {
    if (seen.canonical !== canonical) conflict('operation_id already used for another commit');
    return { data: { results: seen.results } };
  }
  if (ctx.bug('4.2-8')) return applyOpByOp(storeId, pouch, body.ops, ctx, idemKey, canonical);
  let w: Working;
  try {
    w = checkBatch(storeId, body.ops, ctx);
  } catch (e) {
    // 7-3: a refusal sent as per-op statuses on a 200.
    if (!(ctx.bug('7-3') && e instanceof HttpError)) throw e;
    return { data: { results: body.ops.map((op) => ({ status: 'conflict', artifact_id: op.artifactId, revision_id: op.revisionId, seq: 0, high_water: pouch.seq })) } };
  }
  if (ctx.bug('1-3')) await yieldTurn();
  await write(w, ctx.state, ctx);
  const res = results(pouch, body.ops, ctx);
  ctx.state.commits.set(idemKey, { canonical, results: res });
  return { data: { results: res } };
}

/** Bug 4.2-8: each op checked and written alone, so a refused batch keeps its earlier ops. */
async function applyOpByOp(storeId: string, pouch: Pouch, ops: readonly Op[], ctx: Ctx, idemKey: string, canonical: string): Promise<Reply> {
  for (const op of ops) await write(checkBatch(storeId, [op], ctx), ctx.state, ctx);
  const res = results(pouch, ops, ctx);
  ctx.state.commits.set(idemKey, { canonical, results: res });
  return { data: { results: res } };
}

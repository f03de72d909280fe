/**
 * 4.2 Commit operations. What the spec leaves open is decided here, by the server's readings:
 * - `pouch-existence`: a pouch is created by its first commit, or only the fixture's pouches exist (404);
 * - `cross-account-isolation`: another account's pouch id is refused (403), or names a separate
 *   pouch of the caller's own account (pouch ids scoped per account);
 * - `op-semantics`: create needs a null base and a new artifact, every other type needs base == head;
 * - `revision-id-unique`: a revision id is new in the pouch, or only within its artifact;
 * - `conflict-behaviour` × `batch-atomicity`: a conflicting op rejects the request (status per
 *   `conflict-status`) or is reported per op with a status other than applied; the batch applies
 *   all or nothing, or its valid ops apply anyway (see `reply` below for the four combinations);
 * - `seq-semantics`: seq rises by one per applied op in the pouch, or on one counter for all pouches;
 * - `operation-id-idempotency`: a replay answers the first result, is refused, or is evaluated again.
 * Ops of one batch chain (an op may build on an earlier op of the same batch).
 *
 * Linearizability: everything after signature verification up to the apply is one synchronous
 * block, so no other request can run between the conflict check and the apply.
 */
import { HttpError, badRequest } from '../errors.ts';
import { LIMITS, type CommitBody, type CommitData, type OperationResultValue, type PouchOperationValue } from '../../spec/index.ts';
import { dataOut, offSpec, type Connection, type Handler, type OffSpec, type Reply, type RequestContext } from '../context.ts';
import { ENVELOPE_CHUNK_CHARS, MAXIMAL_ENVELOPE_RETRY_AFTER_S, ROLLBACK_WINDOW_MS } from '../fault-catalogue.ts';
import type { FaultSet } from '../faults.ts';
import type { ReadingSet } from '../readings.ts';
import { checkServiceSignature, SIGNATURE_HEADER } from '../signature.ts';
import { storeRoundTrip } from './round-trip.ts';
import type { AppliedOp, PouchKey, PouchView } from '../store.ts';

type Op = Readonly<PouchOperationValue>;
type Context = RequestContext<'commitOperations'>;

/** What became of one op: applied, refused by the conflict check, or not applied because another op was. */
type Verdict =
  | { readonly kind: 'applied'; readonly op: AppliedOp }
  | { readonly kind: 'refused'; readonly op: Op; readonly why: string }
  | { readonly kind: 'aborted'; readonly op: Op };

/** The result statuses of ops that did not apply (`conflict-behaviour=per-op-status`); 2.6 lists only `applied`. */
const NOT_APPLIED = { refused: 'conflict', aborted: 'aborted' } as const;

/** `conflict-status`: the status of a refused commit. `any-4xx` leaves the code to the server: the reference answers 409. */
function conflictStatus(readings: ReadingSet): number {
  const s = readings.of('conflict-status');
  switch (s) {
    case 'any-4xx':
    case '409':
      return 409;
    case '412':
      return 412;
    case '400':
      return 400;
    default:
      return s satisfies never;
  }
}

const refusal = (readings: ReadingSet, code: string, message: string, data?: Reply<'commitOperations'>['data']): HttpError =>
  new HttpError(conflictStatus(readings), code, message, {}, data);

/**
 * The rows that hold a pouch for this caller. With pouch ids scoped per account
 * (`cross-account-isolation=separate-pouch`) both the record and the artifact table are the
 * caller's own; `separate-pouch-leak` forgets the account in the artifact table, and
 * `artifacts-keyed-by-id` the pouch.
 */
export function pouchKey(accountId: string, pouchId: string, readings: ReadingSet, faults: FaultSet): PouchKey {
  // `artifacts-keyed-by-id`: one artifact table per account, whatever pouch an op names.
  if (faults.has('artifacts-keyed-by-id')) return { record: readings.is('cross-account-isolation', 'separate-pouch') ? `${accountId}\n${pouchId}` : pouchId, artifacts: accountId };
  if (!readings.is('cross-account-isolation', 'separate-pouch')) return { record: pouchId, artifacts: pouchId };
  const scoped = `${accountId}\n${pouchId}`;
  return { record: scoped, artifacts: faults.has('separate-pouch-leak') ? pouchId : scoped };
}

/** What identifies the operation behind an operation_id: a replay must name the same ops. */
function fingerprintOf(b: CommitBody): string {
  return JSON.stringify([b.epoch, b.ops.map((o) => [o.type, o.artifact_id, o.revision_id, o.base_revision_id])]);
}

/** `quadratic-blob-ids`: an invented uniqueness rule, checked the slow way. */
// Stryker disable all: runs only under the quadratic-blob-ids and quadratic-envelope faults (docs/mutation.md)
function checkBlobIdsQuadratic(ops: readonly Op[]): void {
  ops.forEach((op, k) => {
    const ids = op.blob_ids;
    for (let i = 0; i < ids.length; i++) {
      if (ids.indexOf(ids[i]) !== i) throw badRequest('invalid_body', `ops[${k}].blob_ids: duplicate blob id`);
    }
  });
}

/** `quadratic-envelope`: an envelope streamed in chunks, the whole prefix received so far checked again after every chunk. */
function checkEnvelopesQuadratic(ops: readonly Op[]): void {
  ops.forEach((op, k) => {
    for (let end = ENVELOPE_CHUNK_CHARS; end < op.envelope.length + ENVELOPE_CHUNK_CHARS; end += ENVELOPE_CHUNK_CHARS) {
      if (!BASE64URL_PREFIX.test(op.envelope.slice(0, end))) throw badRequest('invalid_body', `ops[${k}].envelope: not base64url`);
    }
  });
}
const BASE64URL_PREFIX = /^[A-Za-z0-9_-]*$/;
// Stryker restore all

/** The ops of this batch applied so far (they chain: a later op sees them). */
class Staged {
  readonly heads = new Map<string, string>();
  /** Whether each artifact the batch touched is deleted after its ops so far (unnamed `live-state`). */
  readonly deleted = new Map<string, boolean>();
  private readonly revisions = new Set<string>();
  private readonly revisionsOfArtifact = new Set<string>();
  add(op: Op): void {
    this.heads.set(op.artifact_id, op.revision_id);
    this.deleted.set(op.artifact_id, op.type === 'delete');
    this.revisions.add(op.revision_id);
    this.revisionsOfArtifact.add(`${op.artifact_id}\n${op.revision_id}`);
  }
  used(revisionId: string): boolean {
    return this.revisions.has(revisionId);
  }
  usedBy(artifactId: string, revisionId: string): boolean {
    return this.revisionsOfArtifact.has(`${artifactId}\n${revisionId}`);
  }
}

/** Why `op` conflicts with the pouch and the ops staged before it, or undefined. */
function conflictOf(ctx: Context, pouch: PouchView | undefined, staged: Staged, op: Op): string | undefined {
  const { faults, readings } = ctx;
  const storedHead = pouch?.head(op.artifact_id);
  const fromStore = ctx.readings.of('batch-chaining') === 'pre-batch-heads' || !staged.heads.has(op.artifact_id);
  const head = fromStore ? storedHead : staged.heads.get(op.artifact_id);
  const exists = head !== undefined;
  // Validation guarantees the member is present; only a validator that lets it be absent (fault nullable-missing-as-null) makes `??` matter.
  const base = op.base_revision_id ?? null;
  if (op.type === 'create') {
    if (base !== null && !faults.has('create-base-ignored')) return 'a create needs base_revision_id null';
    if (exists && !faults.has('create-overwrites')) return 'create of an artifact that already exists';
  } else {
    if (!exists) return `${op.type} of an artifact that does not exist`;
    // Unnamed (3: states not shown): a deleted artifact takes only a restore.
    if (ctx.unnamed.has('deleted-is-final') && op.type !== 'restore' && !staged.heads.has(op.artifact_id) && (pouch?.deleted(op.artifact_id) ?? false)) return `${op.type} of a deleted artifact: only a restore brings it back`;
    // Unnamed (3: states not shown): the state an op needs, after the batch's earlier ops too.
    if (ctx.unnamed.has('live-state')) {
      const gone = fromStore ? (pouch?.deleted(op.artifact_id) ?? false) : staged.deleted.get(op.artifact_id) === true;
      if (gone !== (op.type === 'restore')) return `${op.type} of a ${gone ? 'deleted' : 'live'} artifact: ${gone ? 'only a restore brings it back' : 'only a deleted artifact is restored'}`;
    }
    if (base !== head) {
      const earlier = base !== null && (pouch?.isRevisionOf(op.artifact_id, base) ?? false);
      // `restore-any-revision`: a restore of a deleted artifact read as "bring back this revision".
      const restoring = faults.has('restore-any-revision') && op.type === 'restore' && !staged.heads.has(op.artifact_id) && (pouch?.deleted(op.artifact_id) ?? false);
      // `browser-stale-base-accepted`: the browser's unsigned path (4.2) is a handler of its own, written without the head check.
      const lax = faults.has('stale-base-accepted') || (faults.has('browser-stale-base-accepted') && ctx.caller.kind === 'browser');
      if (!((lax || restoring) && earlier)) return "base_revision_id is not the artifact's head revision";
    }
  }
  if (faults.has('revision-reuse-accepted')) return undefined;
  const perArtifact = readings.is('revision-id-unique', 'per-artifact');
  const reused = perArtifact
    ? // `revision-batch-unchecked`: the artifact's revisions are looked up in the store only, not among the batch's earlier ops.
      (!faults.has('revision-batch-unchecked') && staged.usedBy(op.artifact_id, op.revision_id)) || (pouch?.isRevisionOf(op.artifact_id, op.revision_id) ?? false)
    : staged.used(op.revision_id) || (pouch?.revisionUsed(op.revision_id) ?? false);
  return reused ? `revision_id ${op.revision_id} is already used in this ${perArtifact ? 'artifact' : 'pouch'}` : undefined;
}

/**
 * The conflict check for one batch: a verdict per op. Under atomic batches the first conflict
 * ends the batch: rejected (thrown) under `reject-request`, or that op refused and every other
 * aborted under `per-op-status`. Under per-op atomicity every op is judged and the valid ones apply.
 */
function plan(ctx: Context, key: PouchKey, pouch: PouchView | undefined, body: CommitBody): Verdict[] {
  const { faults, readings, store } = ctx;
  const perOp = readings.is('batch-atomicity', 'per-op');
  const partial = faults.has('partial-batch');
  const staged = new Staged();
  let seq = readings.is('seq-semantics', 'global') ? store.globalSeq() : (pouch?.seq ?? 0);
  let appliedCount = 0;
  const out: Verdict[] = [];
  for (const [k, op] of body.ops.entries()) {
    const why = conflictOf(ctx, pouch, staged, op);
    if (why !== undefined) {
      if (!perOp) {
        if (readings.is('conflict-behaviour', 'reject-request')) {
          throw refusal(readings, 'conflict', `ops[${k}] (artifact ${op.artifact_id}): ${why}; nothing was applied`);
        }
        return body.ops.map((o, j): Verdict => (j === k ? { kind: 'refused', op: o, why } : { kind: 'aborted', op: o }));
      }
      out.push({ kind: 'refused', op, why: `ops[${k}] (artifact ${op.artifact_id}): ${why}` });
      continue;
    }
    if (!faults.has('seq-per-batch') || appliedCount === 0) seq++;
    appliedCount++;
    const applied: AppliedOp = { type: op.type, artifactId: op.artifact_id, revisionId: op.revision_id, seq };
    if (partial) store.applyOps(key, ctx.caller.accountId, [applied]); // applied as it goes: a later conflict leaves it in place
    staged.add(op);
    out.push({ kind: 'applied', op: applied });
  }
  return out;
}

/** A result 2.6 lists: the op applied. */
const appliedResult = (op: AppliedOp, highWater: number): OperationResultValue => ({
  status: 'applied',
  artifact_id: op.artifactId,
  revision_id: op.revisionId,
  seq: op.seq,
  high_water: highWater,
});

/**
 * Every op's result, under `conflict-behaviour=per-op-status` those that did not apply too, with a
 * status 2.6 does not list. A non-applied op has no seq of its own: 0, which no applied op ever gets.
 * `unshaped` (fault `per-op-result-unshaped`): a non-applied op's result names it and nothing more.
 */
const resultsOf = (verdicts: readonly Verdict[], highWater: number, unshaped: boolean): CommitData | OffSpec => {
  if (verdicts.every((v) => v.kind === 'applied')) return { results: verdicts.map((v) => appliedResult(v.op, highWater)) };
  const results = verdicts.map((v) => {
    if (v.kind === 'applied') return appliedResult(v.op, highWater);
    const named = { status: NOT_APPLIED[v.kind], artifact_id: v.op.artifact_id };
    return unshaped ? named : { ...named, revision_id: v.op.revision_id, seq: 0, high_water: highWater };
  });
  return offSpec({ results });
};

// Stryker disable all: the seq-snowflake fault only (docs/mutation.md)
/** Milliseconds since 2020-01-01 UTC: the epoch of the `seq-snowflake` ids. */
const SNOWFLAKE_EPOCH_MS = Date.UTC(2020, 0, 1);

/**
 * `seq-snowflake`: seq and high_water come from a 64-bit id generator (milliseconds since the epoch
 * shifted left by 22 bits, plus the counter), written as JSON numbers: far beyond the largest value
 * 2.6 allows, and rounded by any client that reads them as doubles.
 */
function asSnowflakes(data: CommitData | OffSpec): unknown {
  const shift = (Date.now() - SNOWFLAKE_EPOCH_MS) * 2 ** 22;
  // called only for a listed CommitData, never an off-spec answer
  const { results } = data as CommitData;
  return { results: results.map((r) => ({ ...r, seq: shift + r.seq, high_water: shift + r.high_water })) };
}
// Stryker restore all

/**
 * The body as the handler reads it, after the checks that come before any state is read: the
 * Service-Signature, and the faults that refuse or slow a request on its body alone.
 */
function admittedBody(ctx: Context): CommitBody {
  const { faults, readings, caller } = ctx;
  // `nullable-missing-rewritten`: the binder fills the absent nullable with its default before anything reads the body, the verifier included.
  const body = faults.has('nullable-missing-rewritten') ? { ...ctx.body, ops: ctx.body.ops.map((o) => ({ ...o, base_revision_id: o.base_revision_id ?? null })) } : ctx.body;
  if (faults.has('optional-member-required') && body.ops.some((o) => !('merge_parent_id' in o))) throw new HttpError(400, 'invalid', 'ops[].merge_parent_id: required');
  // Section 5 names command-line devices; `signature-required-callers=everyone` asks it of browsers too.
  if (caller.kind === 'device' || readings.is('signature-required-callers', 'everyone')) {
    checkServiceSignature({ header: ctx.headers[SIGNATURE_HEADER], rawBody: ctx.rawBody, body, caller, directory: ctx.directory, faults, readings });
  }
  if (faults.has('retry-after-503-maximal') && body.ops.some((o) => o.envelope.length === LIMITS.envelopeLength.max)) {
    throw new HttpError(503, 'unavailable', 'the envelope store timed out: retry later', { 'retry-after': String(MAXIMAL_ENVELOPE_RETRY_AFTER_S) });
  }
  if (faults.has('quadratic-blob-ids')) checkBlobIdsQuadratic(body.ops);
  if (faults.has('quadratic-envelope')) checkEnvelopesQuadratic(body.ops);
  return body;
}

/** The pouch the commit is for, refused when it must exist and does not, or belongs to another account. */
function ownedPouch(ctx: Context, key: PouchKey): PouchView | undefined {
  const { readings, faults, caller } = ctx;
  const pouch = ctx.store.pouch(key);
  if (readings.is('pouch-existence', 'must-exist') && pouch?.owner === undefined) {
    throw new HttpError(404, 'pouch_not_found', 'no such pouch: only the pouches listed in the profile exist');
  }
  if (pouch?.owner !== undefined && pouch.owner !== caller.accountId && !faults.has('cross-account-access')) {
    throw new HttpError(403, 'forbidden', 'this pouch belongs to another account');
  }
  return pouch;
}

/** Where a commit's operation_id is remembered, and what identifies its operations. */
interface Idempotency {
  readonly scope: string;
  readonly fingerprint: string;
  /** `operation-id-global`: one table for the whole service, whose hit compares nothing. */
  readonly global: boolean;
}

/** The remembered answer to an operation_id already committed (`operation-id-idempotency`), or a refusal of the replay. */
function replayOf(ctx: Context, body: CommitBody, id: Idempotency): Reply<'commitOperations'> | undefined {
  const { readings } = ctx;
  const idempotency = readings.of('operation-id-idempotency');
  if (idempotency === 'not-deduplicated') return undefined;
  const first = ctx.store.rememberedCommit(id.scope, body.operation_id);
  if (!first) return undefined;
  if (idempotency === 'replay-rejected') throw refusal(readings, 'operation_id_replayed', 'this operation_id was already committed; nothing was applied again');
  if (first.fingerprint !== id.fingerprint && !id.global) throw refusal(readings, 'operation_id_reused', 'operation_id was already used for different operations; nothing was applied');
  if (first.error) throw new HttpError(first.status, first.error.code, first.error.message, {}, first.data);
  return { status: first.status, data: first.data };
}

/**
 * The answer once the applied ops are stored, remembered under its operation_id when something
 * applied: a refusal listing the applied ops (`conflict-behaviour=reject-request`), or the results.
 */
function answer(ctx: Context, body: CommitBody, id: Idempotency, verdicts: readonly Verdict[], applied: readonly AppliedOp[], highWater: number): Reply<'commitOperations'> {
  const { faults, readings, store } = ctx;
  const refused = verdicts.filter((v) => v.kind === 'refused');
  const remember = (r: Omit<Parameters<typeof store.rememberCommit>[2], 'fingerprint'>): void => {
    // Only commits that applied something are remembered: a refused attempt can be retried with the same id.
    if (applied.length > 0) store.rememberCommit(id.scope, body.operation_id, { fingerprint: id.fingerprint, ...r });
  };
  if (refused.length > 0 && readings.is('conflict-behaviour', 'reject-request')) {
    // Per-op atomicity with whole-request rejection: the valid ops applied, and the 4xx says the
    // request did not apply as sent; its data lists the results of the ops that did.
    const data = dataOut<CommitData>({ results: applied.map((op) => appliedResult(op, highWater)) }, faults);
    const why = refused.map((v) => (v.kind === 'refused' ? v.why : '')).join('; ');
    const message = `${why}; ${applied.length === 0 ? 'nothing was applied' : `the other ${applied.length} op(s) were applied (data.results)`}`;
    remember({ status: conflictStatus(readings), data, error: { code: 'conflict', message } });
    throw refusal(readings, 'conflict', message, data);
  }
  const listed = resultsOf(verdicts, highWater, faults.has('per-op-result-unshaped'));
  // resultsOf answers CommitData unless a fault asks otherwise, which is not the case here
  const results = ctx.unnamed.has('results-reordered') ? offSpec({ results: [...(listed as CommitData).results].reverse() }) : listed;
  const reply: Reply<'commitOperations'> = { status: 200, data: dataOut(faults.has('seq-snowflake') ? offSpec(asSnowflakes(results)) : results, faults) };
  remember({ status: reply.status, data: reply.data });
  return reply;
}

// Stryker disable all: the nemesis-only faults (rollback-on-disconnect, commit-dedup-by-request-id, stream-partial-batch) only (docs/mutation.md)
/** `commit-dedup-by-request-id`: the connection each operation_id record is leased to (the first attempt's), per store. */
const leases = new WeakMap<object, Map<string, Connection>>();

/** `commit-dedup-by-request-id`: the record leased to the connection that committed it, unless one is already. */
function leaseRecord(ctx: Context, id: Idempotency): void {
  if (!ctx.faults.has('commit-dedup-by-request-id') || !ctx.connection) return;
  const held = leases.get(ctx.store) ?? new Map<string, Connection>();
  leases.set(ctx.store, held);
  const key = `${id.scope}\n${ctx.body.operation_id}`;
  if (!held.has(key)) held.set(key, ctx.connection);
}

/**
 * `commit-dedup-by-request-id`: a commit whose operation_id record is leased to a connection that
 * has closed since is taken for a request the server dropped half-way: when every op's revision is
 * its artifact's head already, the ops are written again as sent, with new seqs, and answered as
 * applied (the record is left as the first attempt's). Undefined when the fault does not apply.
 */
/**
 * `commit-dedup-by-request-id`: waits, at most LEASE_WAIT_MS, for the connection the record is leased
 * to when a commit of its operation_id comes on another one: a retry can reach the server before the
 * hang-up that caused it does, and the lease must see the hang-up to misjudge the retry every time.
 */
async function leaseSettled(ctx: Context, scope: string, body: CommitBody): Promise<void> {
  const holder = leases.get(ctx.store)?.get(`${scope}\n${body.operation_id}`);
  if (!holder || holder === ctx.connection || holder.destroyed) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      holder.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, LEASE_WAIT_MS);
    holder.once('close', done);
  });
}

/** How long a retry on another connection waits for the leased one to close (the nemesis closes it at once). */
const LEASE_WAIT_MS = 200;

function writtenAgain(ctx: Context, id: Idempotency, key: PouchKey, pouch: PouchView | undefined, body: CommitBody): Reply<'commitOperations'> | undefined {
  const holder = leases.get(ctx.store)?.get(`${id.scope}\n${body.operation_id}`);
  if (!pouch || !holder || holder === ctx.connection || !holder.destroyed) return undefined;
  if (!body.ops.every((o) => pouch.head(o.artifact_id) === o.revision_id)) return undefined;
  let seq = ctx.readings.is('seq-semantics', 'global') ? ctx.store.globalSeq() : pouch.seq;
  const applied = body.ops.map((o): AppliedOp => ({ type: o.type, artifactId: o.artifact_id, revisionId: o.revision_id, seq: ++seq }));
  ctx.store.applyOps(key, ctx.caller.accountId, applied);
  const highWater = ctx.store.pouch(key)?.seq ?? seq;
  return { status: 200, data: dataOut({ results: applied.map((op) => appliedResult(op, highWater)) }, ctx.faults) };
}

/**
 * `rollback-on-disconnect`: the transaction stays open ROLLBACK_WINDOW_MS after its answer, bound to
 * the request; the client hanging up a keep-alive connection before then rolls it back (`undo`). A
 * request that asked for `connection: close` is closed by the server itself, which is no hang-up.
 */
function rollBackOnHangUp(ctx: Context, undo: () => void): void {
  const c = ctx.connection;
  if (!c || /close/i.test(String(ctx.headers.connection ?? ''))) return;
  const events = ['end', 'error', 'close'] as const;
  const done = (): void => {
    clearTimeout(timer);
    for (const e of events) c.off(e, hangUp);
  };
  const hangUp = (): void => {
    done();
    undo();
  };
  const timer = setTimeout(done, ROLLBACK_WINDOW_MS);
  for (const e of events) c.once(e, hangUp);
}

/**
 * `stream-partial-batch`: the ops of a commit body cut mid-way, read whole by a streaming parser
 * and applied in its transaction: a conflict rolls it back; otherwise the cut ends the stream like
 * the end of the batch and they are committed. No signature could be checked over a body that
 * never ended, and no operation_id is remembered (no answer was written).
 */
export function applyStreamedOps(ctx: Context): void {
  const key = pouchKey(ctx.caller.accountId, ctx.params.pouchId, ctx.readings, ctx.faults);
  try {
    const verdicts = plan(ctx, key, ownedPouch(ctx, key), ctx.body);
    const applied = verdicts.flatMap((v) => (v.kind === 'applied' ? [v.op] : []));
    if (applied.length === verdicts.length) ctx.store.applyOps(key, ctx.caller.accountId, applied);
  } catch {
    // A refusal (a foreign pouch, a conflict under reject-request): the transaction is rolled back.
  }
}
// Stryker restore all

export const commitOperations: Handler<'commitOperations'> = async (ctx) => {
  const { faults, readings, store, caller } = ctx;
  const body = admittedBody(ctx);
  if (faults.has('commit-dedup-by-request-id')) await leaseSettled(ctx, faults.has('operation-id-global') ? '' : `${caller.accountId}\n${ctx.params.pouchId}`, body);

  // ---- from here to the apply: no await (unless check-then-act-race, check-then-act-rename-delete or batch-split-under-load is on) ----
  const key = pouchKey(caller.accountId, ctx.params.pouchId, readings, faults);
  const pouch = ownedPouch(ctx, key);
  // `operation-id-global`: one idempotency table for the whole service, keyed by operation_id alone,
  // whose hit answers the remembered response as it was (a response cache, which compares nothing).
  const global = faults.has('operation-id-global');
  const id: Idempotency = { scope: global ? '' : `${caller.accountId}\n${ctx.params.pouchId}`, fingerprint: fingerprintOf(body), global };
  const again = faults.has('commit-dedup-by-request-id') ? writtenAgain(ctx, id, key, pouch, body) : undefined;
  if (again) return again;
  const replay = replayOf(ctx, body, id);
  if (replay) return replay;
  const before = pouch?.seq ?? 0;
  const verdicts = plan(ctx, key, pouch, body);
  const applied = verdicts.flatMap((v) => (v.kind === 'applied' ? [v.op] : []));
  const renamesOrDeletes = body.ops.some((o) => o.type === 'rename' || o.type === 'delete');
  if (faults.has('check-then-act-race') || (faults.has('check-then-act-rename-delete') && renamesOrDeletes)) {
    await storeRoundTrip(); // between check and act
  }
  const undo = faults.has('rollback-on-disconnect') && applied.length > 0 ? store.savepoint(key, applied) : undefined;
  if (!faults.has('partial-batch') && applied.length > 0) {
    if (faults.has('batch-split-under-load') && applied.length > 1) {
      store.applyOps(key, caller.accountId, applied.slice(0, 1));
      await storeRoundTrip(); // the rest in a second write, on the verdicts taken before the first
      store.applyOps(key, caller.accountId, applied.slice(1));
    } else store.applyOps(key, caller.accountId, applied);
  }
  const highWater = faults.has('high-water-stale') ? before : (store.pouch(key)?.seq ?? before);
  if (applied.length > 0) leaseRecord(ctx, id);
  if (undo) rollBackOnHangUp(ctx, undo);
  return answer(ctx, body, id, verdicts, applied, highWater);
};

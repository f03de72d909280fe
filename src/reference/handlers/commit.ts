/**
 * 4.2 Commit operations. Registry defaults: pouches are created by their first commit and owned by
 * the committing account; create needs a null base and a new artifact, every other type needs
 * base == head; revision ids are unique per pouch; ops of one batch chain; the batch is atomic and
 * a conflict rejects the whole request (409); seq rises by one per applied op and high_water is the
 * pouch's highest seq after the batch; a repeated operation_id answers the first result again.
 *
 * Linearizability: everything after signature verification up to the apply is one synchronous
 * block, so no other request can run between the conflict check and the apply.
 */
import { HttpError, badRequest, conflict } from '../errors.ts';
import { integerOut, type Handler, type Reply, type RequestContext } from '../context.ts';
import { checkServiceSignature, SIGNATURE_HEADER } from '../signature.ts';
import type { AppliedOp, PouchView } from '../store.ts';

interface Op {
  readonly type: string;
  readonly artifact_id: string;
  readonly revision_id: string;
  readonly base_revision_id: string | null;
  readonly blob_ids: readonly string[];
}
interface CommitBody {
  readonly operation_id: string;
  readonly epoch: string;
  readonly ops: readonly Op[];
}

/** What identifies the operation behind an operation_id: a replay must name the same ops. */
function fingerprintOf(b: CommitBody): string {
  return JSON.stringify([b.epoch, b.ops.map((o) => [o.type, o.artifact_id, o.revision_id, o.base_revision_id])]);
}

/** `quadratic-blob-ids`: an invented uniqueness rule, checked the slow way. */
function checkBlobIdsQuadratic(ops: readonly Op[]): void {
  ops.forEach((op, k) => {
    const ids = op.blob_ids;
    for (let i = 0; i < ids.length; i++) {
      if (ids.indexOf(ids[i]!) !== i) throw badRequest('invalid_body', `ops[${k}].blob_ids: duplicate blob id`);
    }
  });
}

/** The conflict check for one batch against a pouch; returns the ops to apply. Throws 409. */
function plan(ctx: RequestContext, pouchId: string, pouch: PouchView | undefined, body: CommitBody): AppliedOp[] {
  const { faults } = ctx;
  const stagedHeads = new Map<string, string>();
  const stagedRevisions = new Set<string>();
  const partial = faults.has('partial-batch');
  let seq = pouch?.seq ?? 0;
  const out: AppliedOp[] = [];
  body.ops.forEach((op, k) => {
    const where = `ops[${k}] (artifact ${op.artifact_id})`;
    const storedHead = pouch?.head(op.artifact_id);
    const head = faults.has('no-batch-chaining') || !stagedHeads.has(op.artifact_id) ? storedHead : stagedHeads.get(op.artifact_id);
    const exists = head !== undefined;
    if (op.type === 'create') {
      if (op.base_revision_id !== null) throw conflict(`${where}: a create needs base_revision_id null; nothing was applied`);
      if (exists && !faults.has('create-overwrites')) throw conflict(`${where}: create of an artifact that already exists; nothing was applied`);
    } else {
      if (!exists) throw conflict(`${where}: ${op.type} of an artifact that does not exist; nothing was applied`);
      if (op.base_revision_id !== head) {
        const earlier = op.base_revision_id !== null && pouch?.artifactOfRevision(op.base_revision_id) === op.artifact_id;
        if (!(faults.has('stale-base-accepted') && earlier)) {
          throw conflict(`${where}: base_revision_id is not the artifact's head revision; nothing was applied`);
        }
      }
    }
    const reused = stagedRevisions.has(op.revision_id) || pouch?.artifactOfRevision(op.revision_id) !== undefined;
    if (reused && !faults.has('revision-reuse-accepted')) throw conflict(`${where}: revision_id ${op.revision_id} is already used in this pouch; nothing was applied`);
    if (!faults.has('seq-per-batch') || k === 0) seq++;
    const applied: AppliedOp = { artifactId: op.artifact_id, revisionId: op.revision_id, seq };
    if (partial) ctx.store.applyOps(pouchId, ctx.caller.accountId, [applied]); // applied as it goes: a later conflict leaves it in place
    stagedHeads.set(op.artifact_id, op.revision_id);
    stagedRevisions.add(op.revision_id);
    out.push(applied);
  });
  return out;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export const commitOperations: Handler = async (ctx) => {
  const { faults, store, caller } = ctx;
  const body = ctx.body as CommitBody;
  const pouchId = ctx.params['pouchId']!;
  // Section 5: devices sign; a browser's commit needs no Service-Signature (assumption signature-required-callers).
  if (caller.kind === 'device') {
    checkServiceSignature({ header: ctx.headers[SIGNATURE_HEADER], rawBody: ctx.rawBody, body, caller, directory: ctx.directory, faults });
  }
  if (faults.has('quadratic-blob-ids')) checkBlobIdsQuadratic(body.ops);

  // ---- from here to the apply: no await (unless the check-then-act-race fault is on) ----
  const pouch = store.pouch(pouchId);
  if (pouch && pouch.owner !== caller.accountId && !faults.has('cross-account-access')) {
    throw new HttpError(403, 'forbidden', 'this pouch belongs to another account');
  }
  const scope = `${caller.accountId}\n${pouchId}`;
  const fingerprint = fingerprintOf(body);
  if (!faults.has('operation-id-ignored')) {
    const first = store.rememberedCommit(scope, body.operation_id);
    if (first) {
      if (first.fingerprint !== fingerprint) {
        throw new HttpError(409, 'operation_id_reused', 'operation_id was already used for different operations; nothing was applied');
      }
      return { status: first.status, data: first.data };
    }
  }
  const before = pouch?.seq ?? 0;
  const ops = plan(ctx, pouchId, pouch, body);
  if (faults.has('check-then-act-race')) {
    await tick(); // a store round-trip between check and act
  }
  if (!faults.has('partial-batch')) store.applyOps(pouchId, caller.accountId, ops);
  const highWater = faults.has('high-water-stale') ? before : (store.pouch(pouchId)?.seq ?? before);
  const reply: Reply = {
    status: 200,
    data: {
      results: ops.map((o) => ({
        status: 'applied',
        artifact_id: o.artifactId,
        revision_id: o.revisionId,
        seq: integerOut(o.seq, faults),
        high_water: integerOut(highWater, faults),
      })),
    },
  };
  store.rememberCommit(scope, body.operation_id, { fingerprint, status: reply.status, data: reply.data });
  return reply;
};

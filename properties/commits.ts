/**
 * 4.2 Commits: "Commits 1 to 50 signed, encrypted operations with optimistic concurrency on revision
 * ids." Every case works on fresh artifacts in a fresh pouch (or a listed one under
 * `pouch-existence`=must-exist) and proves what the head of an artifact is by extending it, since
 * the spec shows no read endpoint. What a commit did to each op is asked of the one commit judge,
 * which knows every form a refusal may take (a 4xx of any code, or a per-op status).
 *
 * Grounds: that a stale op does not apply is optimistic concurrency, the spec's own words; how a
 * refusal looks, whether revision ids are unique, whether a batch chains or is atomic, what seq
 * means and what a replayed operation_id does are registry readings.
 */
import fc from 'fast-check';
import { resultsFor } from '../src/check/judge/commit-outcome.ts';
import { assumptionMismatch, expectAccepted, Notes, refusedAfterResend, resultsOf, unexpected, violation, type Blame } from '../src/check/judge/judge.ts';
import { readingJudgement, specJudgement, type ReadsDeclaration } from '../src/check/judge/judgements.ts';
import { PASS, defineProperty, notApplicable, type CaseContext, type Outcome, type Property } from '../src/check/property.ts';
import type { OpType } from '../src/spec/index.ts';
import type { Exchange } from '../src/target/client.ts';
import { absent, arbVia, commit, createArtifacts, extend, fates, LATER_TYPES, lawPouch, liveChains, namesId, op, pouchFor, proveNothingApplied, setup, type Artifact, type Op, type Pouch } from './support/commits.ts';

const arbLaterType = fc.constantFrom(...LATER_TYPES);

// ---- judgements ---------------------------------------------------------------------------------

/**
 * What the heads of a pouch are after a commit, as the harness tracks them: which ops an answer
 * applied (results matched to ops; a multi-op 4xx under per-op atomicity), whether a batch builds on
 * its own revisions, which revision ids are taken, what a re-sent operation_id did, and the rule that
 * decides a fit. A head tracked under another reading of these is a head that was never there.
 */
export const HEADS_READS: ReadsDeclaration = {
  reads: ['op-semantics', 'commit-results', 'batch-atomicity', 'batch-chaining', 'revision-id-unique', 'operation-id-idempotency'],
};

/** Optimistic concurrency: an op built on anything but the head does not apply (a create's null base included). */
export const STALE_NOT_APPLIED = specJudgement(
  'commits.stale-op-not-applied',
  'An op whose base_revision_id is not its artifact\'s head (a create\'s null base on an existing artifact included) does not apply, and the head stays.',
  'commitOperations',
  // How a refusal looks (conflict-behaviour, conflict-status, error-response) is not read: every form of it counts as not applied.
  HEADS_READS,
);
// Each reading judgement reads its own reading (readingJudgement adds it) and those that say which ops applied.
const REVISION_UNIQUE = readingJudgement('commits.revision-id-unique', 'A revision id already used (in the artifact, or the pouch) is refused.', 'revision-id-unique', { reads: ['commit-results', 'batch-atomicity'] });
const CHAINS = readingJudgement('commits.batch-chains', 'An op may build on the revision an earlier op of the same batch created.', 'batch-chaining', { reads: ['commit-results', 'batch-atomicity'] });
// A per-op status is a result too: conflict-behaviour says whether a result other than applied is one.
const RESULTS_PER_OP = readingJudgement('commits.results-per-op', 'An applied commit answers one result per op, naming it.', 'commit-results', { reads: ['conflict-behaviour'] });
const SEQ = readingJudgement('commits.seq-rises', 'seq strictly increases over the applied ops of a pouch; high_water covers every seq of its batch.', 'seq-semantics', { reads: ['commit-results', 'batch-atomicity'] });
const ATOMIC = readingJudgement('commits.atomic', 'A batch with a conflicting op applies nothing.', 'batch-atomicity', { reads: ['commit-results', 'conflict-behaviour', 'op-semantics'] });
const REPLAY = readingJudgement('commits.replay-safe', 'A replayed operation_id answers the first result or is refused, and applies nothing new.', 'operation-id-idempotency', { reads: ['commit-results', 'batch-atomicity'] });
// The form of a refusal: its status (conflict-status, error-response) and, for a batch, which ops it names.
const CONFLICT_FORM = readingJudgement('commits.conflict-form', 'A conflict is refused in the form the run reads (a 4xx, or a per-op status).', 'conflict-behaviour', { reads: ['conflict-status', 'error-response', 'batch-atomicity'] });

/** op-semantics=base-only: a create starts an artifact from nothing, so it names no base (the spec shows no state rules). */
const CREATE_NULL_BASE = readingJudgement('commits.create-null-base', 'A create of a new artifact with a non-null base_revision_id does not apply.', 'op-semantics', { reads: ['commit-results'] });

const onMoved = { judgement: STALE_NOT_APPLIED } as const;

/**
 * The stale op was sent: it must not have applied, whatever form the refusal took (a different form
 * is noted as a reading); then an update on the head must still apply.
 */
async function staleRefused(ctx: CaseContext, pouch: Pouch, a: Artifact, ex: Exchange, stale: Op, what: string): Promise<Outcome> {
  const u = unexpected(ex, what);
  if (u) return u;
  const notes = new Notes();
  const f = fates(ctx, ex, [stale]);
  if (f.ops[0] === 'applied') return violation(STALE_NOT_APPLIED, `${what}: applied (${f.answer})`);
  if (f.ops[0] === 'refused') notes.add(f.conflictForm);
  return notes.result(await extend(ctx, pouch, a, `an update on the head after ${what}`, onMoved, [stale.revision_id]));
}

/**
 * An op on the head of an artifact, sent to another pouch of the same account: that pouch holds no
 * such artifact, so under op-semantics (base-only: the base must be the head of the artifact, in the
 * pouch the op names) it does not apply, and the artifact's own pouch keeps its head. A server that
 * keys artifacts by artifact_id alone applies it and moves the other pouch's artifact.
 */
async function otherPouch(ctx: CaseContext, pouch: Pouch, a: Artifact, type: OpType): Promise<Outcome> {
  // Under pouch-existence=must-exist another of the profile's pouches, drawn a few times; a profile that lists one has no other.
  const draws = Array.from({ length: 4 }, () => pouchFor(ctx));
  const other = draws.find((p) => p.id.toLowerCase() !== pouch.id.toLowerCase());
  if (!other) return notApplicable('one pouch only: an op on an artifact of another pouch cannot be sent');
  const moved = op(ctx, { type, artifact: a.id, revision: ctx.uuid(), base: a.head });
  const what = `a ${type} on the head of an artifact of another pouch of the account`;
  const ex = await commit(ctx, other, [moved]);
  const u = unexpected(ex, what);
  if (u) return u;
  const f = fates(ctx, ex, [moved]);
  if (f.ops[0] === 'applied') return assumptionMismatch('op-semantics', `${what}: applied (${f.answer}), though the pouch it was sent to holds no such artifact`);
  return extend(ctx, pouch, a, `an update on the head in the artifact's own pouch after ${what}`, { assumption: 'op-semantics' }, [moved.revision_id]);
}

// ---- properties ---------------------------------------------------------------------------------

// 4.2: an op whose base is not the artifact's head is refused, and the head does not move.
const staleBaseRejected = defineProperty({
  id: 'commits.stale-base-rejected',
  section: '4.2',
  invariant: 'An op whose base_revision_id is not the head of its artifact does not apply, and the head stays where it was; nor does an op sent to another pouch on the head of an artifact it does not hold (op-semantics).',
  assumptions: ['op-semantics', 'conflict-behaviour', 'conflict-status', 'pouch-existence'],
  judgements: [STALE_NOT_APPLIED, CONFLICT_FORM],
  needs: ['device', 'pouch'],
  arbitrary: () =>
    fc.record({
      type: arbLaterType,
      stale: fc.constantFrom('previous', 'first', 'unknown', 'other-pouch'),
      moves: fc.integer({ min: 1, max: 3 }),
      via: arbVia,
    }),
  async check(ctx, c) {
    const pouch = await lawPouch(ctx, c.via);
    const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
    if (outcome) return outcome;
    const a = artifacts[0];
    const history = [a.head];
    for (let i = 0; i < c.moves; i++) {
      const moved = await extend(ctx, pouch, a, `moving the head (update ${i + 1})`, onMoved);
      if (!moved.ok) return moved;
      history.push(a.head);
    }
    if (c.stale === 'other-pouch') return otherPouch(ctx, pouch, a, c.type);
    const base = c.stale === 'unknown' ? ctx.uuid() : c.stale === 'first' ? history[0] : history[history.length - 2];
    const stale = op(ctx, { type: c.type, artifact: a.id, revision: ctx.uuid(), base });
    const ex = await commit(ctx, pouch, [stale]);
    return staleRefused(ctx, pouch, a, ex, stale, `a ${c.type} on a ${c.stale} base instead of the head`);
  },
});

// 4.2: a create names a new artifact; on an existing one its null base is stale.
const createExistingRejected = defineProperty({
  id: 'commits.create-existing-rejected',
  section: '4.2',
  invariant: 'A create of an artifact that already exists does not apply, and the existing artifact keeps its head; nor does a create of a new artifact that names a base (op-semantics).',
  assumptions: ['op-semantics', 'conflict-behaviour', 'conflict-status', 'pouch-existence'],
  judgements: [STALE_NOT_APPLIED, CONFLICT_FORM, CREATE_NULL_BASE],
  needs: ['device', 'pouch'],
  arbitrary: () => fc.record({ before: fc.constantFrom<'none' | OpType | 'new-with-base'>('none', 'update', 'delete', 'rename', 'new-with-base'), via: arbVia }),
  async check(ctx, c) {
    const pouch = await lawPouch(ctx, c.via);
    const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
    if (outcome) return outcome;
    const a = artifacts[0];
    if (c.before === 'new-with-base') {
      // The base names a real revision (of another artifact), so only the create's own rule can refuse it.
      const based = op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: a.head });
      const what = 'a create of a new artifact naming a base revision';
      const ex = await commit(ctx, pouch, [based]);
      const u = unexpected(ex, what);
      if (u) return u;
      const f = fates(ctx, ex, [based]);
      if (f.ops[0] === 'applied') return assumptionMismatch('op-semantics', `${what}: applied (${f.answer})`);
      const notes = new Notes();
      if (f.ops[0] === 'refused') notes.add(f.conflictForm);
      return notes.result(await extend(ctx, pouch, a, `an update on the head after ${what}`, onMoved));
    }
    if (c.before !== 'none') {
      const next = op(ctx, { type: c.before, artifact: a.id, revision: ctx.uuid(), base: a.head });
      const moved = await commit(ctx, pouch, [next]);
      const s = await setup(ctx, pouch, moved, [next], `a ${c.before} on the head`);
      if (!s.ok) return s;
      a.head = next.revision_id;
    }
    const again = op(ctx, { type: 'create', artifact: a.id, revision: ctx.uuid(), base: null });
    const ex = await commit(ctx, pouch, [again]);
    return staleRefused(ctx, pouch, a, ex, again, `a second create of an existing artifact${c.before !== 'none' ? ` (after a ${c.before})` : ''}`);
  },
});

// 4.2 + revision-id-unique: revision ids name versions; one already used never names a new one.
const revisionReuseRejected = defineProperty({
  id: 'commits.revision-reuse-rejected',
  section: '4.2',
  invariant: 'An op whose revision_id is already used does not apply: within its artifact, and across the pouch under revision-id-unique=per-pouch.',
  assumptions: ['revision-id-unique', 'op-semantics', 'conflict-behaviour', 'conflict-status', 'pouch-existence', 'batch-atomicity'],
  judgements: [REVISION_UNIQUE, CONFLICT_FORM, STALE_NOT_APPLIED],
  needs: ['device', 'pouch'],
  arbitrary: () => fc.record({ reuse: fc.constantFrom('own-head', 'own-older', 'other-artifact', 'same-batch', 'own-after-other', 'own-same-batch'), via: arbVia }),
  async check(ctx, c) {
    if (c.reuse === 'own-same-batch' && ctx.assumptions['batch-atomicity'] === 'per-op') {
      return notApplicable('under batch-atomicity=per-op the first op of a batch reusing its own revision id may apply alone, and its result names the same artifact and revision as the reuse: which of the two applied cannot be read');
    }
    const pouch = await lawPouch(ctx, c.via);
    const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
    if (outcome) return outcome;
    const a = artifacts[0];
    const first = a.head;
    let ops: Op[];
    if (c.reuse === 'own-head') {
      ops = [op(ctx, { type: 'update', artifact: a.id, revision: a.head, base: a.head })];
    } else if (c.reuse === 'own-older') {
      const moved = await extend(ctx, pouch, a, 'moving the head', onMoved);
      if (!moved.ok) return moved;
      ops = [op(ctx, { type: 'update', artifact: a.id, revision: first, base: a.head })];
    } else if (c.reuse === 'own-after-other') {
      // Another artifact takes A's revision id first (allowed per artifact, refused per pouch); A's own
      // reuse is refused either way. A store that keeps one artifact per revision id has forgotten A.
      const taken = [op(ctx, { type: 'create', artifact: ctx.uuid(), revision: first, base: null })];
      const u = unexpected(await commit(ctx, pouch, taken), 'another artifact created with the revision id of the first');
      if (u) return u;
      ops = [op(ctx, { type: 'update', artifact: a.id, revision: first, base: a.head })];
    } else if (c.reuse === 'own-same-batch') {
      // One batch uses a new revision id twice in A: the second use is a reuse within the artifact, refused
      // under either reading (the batch's own earlier ops count, not only what the store held before).
      const r = ctx.uuid();
      ops = [op(ctx, { type: 'update', artifact: a.id, revision: r, base: a.head }), op(ctx, { type: 'update', artifact: a.id, revision: r, base: r })];
    } else if (c.reuse === 'other-artifact') {
      ops = [op(ctx, { type: 'create', artifact: ctx.uuid(), revision: first, base: null })];
    } else {
      const r = ctx.uuid();
      ops = [op(ctx, { type: 'create', artifact: ctx.uuid(), revision: r, base: null }), op(ctx, { type: 'create', artifact: ctx.uuid(), revision: r, base: null })];
    }
    const ex = await commit(ctx, pouch, ops);
    const what = `an op reusing revision id (${c.reuse})`;
    const u = unexpected(ex, what);
    if (u) return u;
    const f = fates(ctx, ex, ops);
    const notes = new Notes();
    const crossArtifact = c.reuse === 'other-artifact' || c.reuse === 'same-batch';
    const perArtifact = ctx.assumptions['revision-id-unique'] === 'per-artifact';
    // The op that reuses: the second of a same-batch pair (the first names the id first).
    const reuser = f.ops[c.reuse === 'same-batch' ? 1 : 0];
    // Two ops naming one artifact and one revision id cannot be told apart by their results: the reuse
    // applied only if a success lists both as applied.
    const same = (x: Record<string, unknown>): boolean => x['status'] === 'applied' && namesId(x['artifact_id'], a.id) && namesId(x['revision_id'], ops[1].revision_id);
    const reused = c.reuse === 'own-same-batch' ? (ex.response?.status ?? 500) < 300 && resultsOf(ex).filter(same).length >= 2 : reuser === 'applied';
    if (reused && !(crossArtifact && perArtifact)) {
      notes.add(assumptionMismatch('revision-id-unique', `${what}: applied (${f.answer})`));
      // Reusing a revision id moved the head: the next proof uses what the target now holds.
      if (c.reuse !== 'other-artifact' && c.reuse !== 'same-batch') a.head = ops[0].revision_id;
    } else if (f.batch === 'refused') notes.add(f.conflictForm);
    // own-same-batch: its first op is valid alone and its reuse cannot apply without it, so a head
    // found at their revision after a refusal is the first op applied alone: a batch applied in part
    // (batch-atomicity), not a stale op applied.
    const moved: Blame = c.reuse === 'own-same-batch' ? { assumption: 'batch-atomicity' } : onMoved;
    return notes.result(await extend(ctx, pouch, a, 'an update on the head after the reuse', moved, ops.filter((o) => o.artifact_id === a.id).map((o) => o.revision_id)));
  },
});

// 4.2 + batch-chaining: ops of one batch apply in order, so op k+1 may build on op k's revision.
const batchChains = defineProperty({
  id: 'commits.batch-chains',
  section: '4.2',
  invariant: 'Within one batch, an op may build on the revision an earlier op of the same batch created; each result names its op.',
  assumptions: ['batch-chaining', 'commit-results', 'op-semantics', 'pouch-existence'],
  judgements: [CHAINS, RESULTS_PER_OP, STALE_NOT_APPLIED],
  needs: ['device', 'pouch'],
  arbitrary: () => fc.record({ chain: fc.array(arbLaterType, { minLength: 1, maxLength: 6 }), artifacts: fc.integer({ min: 1, max: 2 }), via: arbVia }),
  async check(ctx, c) {
    const pouch = await lawPouch(ctx, c.via);
    const heads: Artifact[] = [];
    const ops: Op[] = [];
    for (let i = 0; i < c.artifacts; i++) {
      const a = { id: ctx.uuid(), head: ctx.uuid() };
      ops.push(op(ctx, { type: 'create', artifact: a.id, revision: a.head, base: null }));
      heads.push(a);
    }
    const chain = liveChains(c.chain, heads);
    for (const [type, a] of chain) {
      const next = ctx.uuid();
      ops.push(op(ctx, { type, artifact: a.id, revision: next, base: a.head }));
      a.head = next;
    }
    const ex = await commit(ctx, pouch, ops);
    const what = `a batch of ${ops.length} chained ops (${['create', ...chain.map(([t]) => t)].join(' → ')})`;
    const u = unexpected(ex, what);
    if (u) return u;
    const f = fates(ctx, ex, ops);
    if (f.unreadable) return assumptionMismatch('commit-results', `${what}: the results name none of the ops (${f.answer})`);
    if (f.batch !== 'applied') {
      // A copy sent again after no answer may be refused for its own first copy: says nothing of chaining.
      const resent = refusedAfterResend(ex);
      if (resent) return resent;
      if (ctx.assumptions['batch-chaining'] === 'pre-batch-heads') return notApplicable(`${what}: refused, as batch-chaining=pre-batch-heads expects (an op may not build on its batch's own revisions)`);
      // The first op of each artifact builds on nothing earlier in the batch; a refusal of it is no chaining question.
      return assumptionMismatch('batch-chaining', `${what}: not applied as a whole (${f.answer})`);
    }
    for (const a of heads) {
      const e = await extend(ctx, pouch, a, 'an update on the last revision of the chain', onMoved);
      if (!e.ok) return e;
    }
    return PASS;
  },
});

// 2.6 + seq-semantics: seq grows with every applied op of the pouch; high_water covers every seq of its batch.
const seqIncreasing = defineProperty({
  id: 'commits.seq-increasing',
  section: '2.6',
  invariant: 'seq strictly increases over the applied ops of a pouch, and each result\'s high_water is at least every seq of its batch.',
  assumptions: ['seq-semantics', 'commit-results', 'pouch-existence'],
  judgements: [SEQ, RESULTS_PER_OP],
  needs: ['device', 'pouch'],
  arbitrary: () => fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 3 }),
  async check(ctx, sizes) {
    const pouch = pouchFor(ctx);
    let last: number | undefined;
    for (const [b, n] of sizes.entries()) {
      const ops = Array.from({ length: n }, () => op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null }));
      const ex = await commit(ctx, pouch, ops);
      const s = await setup(ctx, pouch, ex, ops, `batch ${b + 1} of ${n} creates`);
      if (!s.ok) return s;
      // What seq means is a reading, but its range is stated (2.6): values beyond it break the answer, and are not compared.
      const answer = expectAccepted(ex, { what: `batch ${b + 1} of ${n} creates` });
      if (!answer.ok) return answer;
      const results = seqsOf(ex, ops);
      if (!results) return assumptionMismatch('commit-results', `batch ${b + 1} of ${n} ops: the results do not name each op once`);
      const maxSeq = Math.max(...results.map((x) => x.seq));
      for (const [i, { seq, high }] of results.entries()) {
        if (last !== undefined && !(seq > last)) {
          return assumptionMismatch('seq-semantics', `batch ${b + 1}, op ${i + 1}: seq ${seq} does not exceed the previous applied op's seq ${last}`);
        }
        if (!(high >= maxSeq)) return assumptionMismatch('seq-semantics', `batch ${b + 1}, op ${i + 1}: high_water ${high} is below seq ${maxSeq} of the same batch`);
        last = seq;
      }
    }
    return PASS;
  },
});

/** seq and high_water per op, in op order, from the results the commit judge matches to them; undefined when one is missing. */
function seqsOf(ex: Exchange, ops: readonly Op[]): { seq: number; high: number }[] | undefined {
  const results = resultsFor(ex, ops);
  const present = results?.filter((r) => r !== undefined);
  if (!results || !present || results.length !== ops.length || present.length !== results.length) return undefined;
  return present.map((r) => ({ seq: Number(r['seq']), high: Number(r['high_water']) }));
}

type Conflict = 'stale-base' | 'create-existing' | 'reused-revision';

// 4.2 + batch-atomicity: a batch with one conflicting op applies nothing at all.
const atomicBatch = defineProperty({
  id: 'commits.atomic-batch',
  section: '4.2',
  invariant: 'A batch in which one op conflicts applies none of its ops; the conflicting op never applies.',
  assumptions: ['batch-atomicity', 'conflict-behaviour', 'conflict-status', 'revision-id-unique', 'op-semantics', 'pouch-existence'],
  judgements: [ATOMIC, STALE_NOT_APPLIED, CONFLICT_FORM],
  needs: ['device', 'pouch'],
  arbitrary: () =>
    fc
      .integer({ min: 2, max: 6 })
      .chain((size) =>
        fc.record({
          size: fc.constant(size),
          // Late conflicts are where a one-by-one apply leaves earlier ops behind.
          at: fc.oneof(fc.constant(size - 1), fc.integer({ min: 0, max: size - 1 })),
          conflict: fc.constantFrom<Conflict>('stale-base', 'create-existing', 'reused-revision'),
          via: arbVia,
        }),
      ),
  async check(ctx, c) {
    const pouch = await lawPouch(ctx, c.via);
    const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
    if (outcome) return outcome;
    const x = artifacts[0];
    const first = x.head;
    const moved = await extend(ctx, pouch, x, 'moving the head', onMoved);
    if (!moved.ok) return moved;
    const fresh: Artifact[] = [];
    const ops: Op[] = [];
    for (let i = 0; i < c.size; i++) {
      if (i === c.at) {
        ops.push(
          c.conflict === 'stale-base'
            ? op(ctx, { type: 'update', artifact: x.id, revision: ctx.uuid(), base: first })
            : c.conflict === 'create-existing'
              ? op(ctx, { type: 'create', artifact: x.id, revision: ctx.uuid(), base: null })
              : op(ctx, { type: 'update', artifact: x.id, revision: first, base: x.head }),
        );
      } else {
        const a = { id: ctx.uuid(), head: ctx.uuid() };
        fresh.push(a);
        ops.push(op(ctx, { type: 'create', artifact: a.id, revision: a.head, base: null }));
      }
    }
    const ex = await commit(ctx, pouch, ops);
    const what = `a batch of ${c.size} ops whose op ${c.at + 1} conflicts (${c.conflict})`;
    const u = unexpected(ex, what);
    if (u) return u;
    const f = fates(ctx, ex, ops);
    const notes = new Notes();
    const bad = f.ops[c.at];
    const reuse = c.conflict === 'reused-revision';
    if (bad === 'applied') {
      // A reused revision id is a reading; a stale base or a create over an existing artifact is optimistic concurrency.
      if (!reuse) return violation(STALE_NOT_APPLIED, `${what}: the conflicting op applied (${f.answer})`);
      return assumptionMismatch('revision-id-unique', `${what}: the op reusing a revision id applied (${f.answer})`);
    }
    const perOp = ctx.assumptions['batch-atomicity'] === 'per-op';
    if (f.batch === 'partial' && !perOp) notes.add(assumptionMismatch('batch-atomicity', `${what}: the other ops applied while the conflicting one did not (${f.answer})`));
    else if ((f.batch === 'refused' || f.batch === 'unknown') && !perOp) {
      if (f.batch === 'refused') notes.add(f.conflictForm);
      // The answer says nothing applied, or none came (a batch with a conflicting op never applies as
      // a whole, so an atomic one applies nothing whatever became of it, e.g. its body cut mid-way by
      // the nemesis); the other ops' artifacts must still be free to create, with their very revision ids.
      const said = f.batch === 'refused' ? what : `${what}, whose outcome is unknown (${f.answer}),`;
      const free = await proveNothingApplied(ctx, pouch.id, fresh.map((a) => ({ artifact: a.id, revision: a.head })), said, { assumption: 'batch-atomicity' });
      if (!free.ok) return notes.result(free);
    }
    return notes.result(await extend(ctx, pouch, x, 'an update on the conflicting artifact\'s head', onMoved, [ops[c.at].revision_id]));
  },
});

// 4.2 + operation-id-idempotency: an operation_id names one attempt; a retry applies nothing again.
const operationIdReplay = defineProperty({
  id: 'commits.operation-id-replay',
  section: '4.2',
  invariant: 'Re-sending an operation_id applies nothing a second time: the replay answers the first result (or is refused) and changes no head.',
  assumptions: ['operation-id-idempotency', 'op-semantics', 'conflict-behaviour', 'conflict-status', 'pouch-existence'],
  judgements: [REPLAY, STALE_NOT_APPLIED],
  needs: ['device', 'pouch'],
  arbitrary: () => fc.record({ replay: fc.constantFrom('identical', 'other-ops'), size: fc.integer({ min: 1, max: 3 }), kind: fc.constantFrom('create', 'update'), via: arbVia }),
  async check(ctx, c) {
    const pouch = await lawPouch(ctx, c.via);
    const { artifacts, outcome } = await createArtifacts(ctx, pouch, c.size);
    if (outcome) return outcome;
    const operationId = ctx.uuid();
    let ops: Op[];
    if (c.kind === 'create') {
      const fresh = Array.from({ length: c.size }, () => ({ id: ctx.uuid(), head: ctx.uuid() }));
      ops = fresh.map((a) => op(ctx, { type: 'create', artifact: a.id, revision: a.head, base: null }));
      artifacts.push(...fresh);
    } else {
      ops = artifacts.map((a) => {
        const o = op(ctx, { type: 'update', artifact: a.id, revision: ctx.uuid(), base: a.head });
        a.head = o.revision_id;
        return o;
      });
    }
    const firstEx = await commit(ctx, pouch, ops, { operationId });
    const s = await setup(ctx, pouch, firstEx, ops, 'the first attempt');
    if (!s.ok) return s;
    const reading = ctx.assumptions['operation-id-idempotency'];
    const other: Artifact[] = [];
    const replayOps =
      c.replay === 'identical'
        ? ops
        : Array.from({ length: c.size }, () => {
            const a = { id: ctx.uuid(), head: ctx.uuid() };
            other.push(a);
            return op(ctx, { type: 'create', artifact: a.id, revision: a.head, base: null });
          });
    const replay = await commit(ctx, pouch, replayOps, { operationId });
    const what = `a replay of operation_id with ${c.replay === 'identical' ? 'the same ops' : 'other ops'}`;
    const u = unexpected(replay, what);
    if (u) return u;
    const notes = new Notes();
    const f = fates(ctx, replay, replayOps);
    if (c.replay === 'identical') {
      if (f.ops.some((x) => x === 'refused') && reading === 'replay-first-result') notes.add(assumptionMismatch('operation-id-idempotency', `${what}: refused (${f.answer}) instead of answering the first result`));
      if (f.batch === 'applied' && reading === 'replay-rejected') notes.add(assumptionMismatch('operation-id-idempotency', `${what}: answered (${f.answer}) instead of being refused`));
      if (f.batch === 'applied' && JSON.stringify(resultsOf(firstEx)) !== JSON.stringify(resultsOf(replay))) {
        // Answered as applied, with results of its own: the ops (now stale) applied a second time.
        return violation(STALE_NOT_APPLIED, `${what}: answered results ${JSON.stringify(resultsOf(replay))} instead of the first attempt's ${JSON.stringify(resultsOf(firstEx))}: the ops applied again on bases that were no longer the heads`);
      }
    }
    // Whatever the answer, the heads are the first attempt's, and the other ops created nothing (unless operation ids mean nothing).
    for (const a of artifacts) {
      const e = await extend(ctx, pouch, a, 'an update on the head the first attempt set', onMoved, replayOps.filter((o) => o.artifact_id === a.id).map((o) => o.revision_id));
      if (!e.ok) return notes.result(e);
    }
    for (const a of other) {
      const free = await absent(ctx, pouch, a.id, 'creating an artifact that only the replay named', { assumption: 'operation-id-idempotency' }, [a.head]);
      if (!free.ok && !(free.kind === 'assumption' && reading === 'not-deduplicated')) return notes.result(free);
    }
    return notes.result(PASS);
  },
});


const COMMITS: readonly Property[] = [staleBaseRejected, createExistingRejected, revisionReuseRejected, batchChains, seqIncreasing, atomicBatch, operationIdReplay];
export default COMMITS;

/**
 * 4.2 Commits: optimistic concurrency on revision ids. Every case works on fresh artifacts in a
 * fresh pouch (or a listed one under `pouch-existence`=must-exist) and proves what the head of an
 * artifact is by extending it, since the spec shows no read endpoint.
 */
import fc from 'fast-check';
import { assumptionMismatch, effectOf, expectAccepted, expectRejected, resultsOf, violation } from '../src/check/judge.ts';
import { PASS, defineProperty, type Outcome, type Property } from '../src/check/property.ts';
import { OP_TYPES, type OpType } from '../src/spec/index.ts';
import type { Exchange } from '../src/target/client.ts';
import { absent, allApplied, commit, createArtifacts, extend, op, pouchFor, proveNothingApplied, seqsOf, setup, type Artifact, type Op } from './support/commits.ts';

const LATER_TYPES = OP_TYPES.filter((t): t is Exclude<OpType, 'create'> => t !== 'create');
const arbLaterType = fc.constantFrom(...LATER_TYPES);

/**
 * A commit that had to be refused but answered 2xx: a success whose results mark the op as not
 * applied follows `conflict-behaviour`=per-op-status; one that claims `applied` is a lost update.
 */
function refusedOrConflictStatus(ex: Exchange, what: string): Outcome {
  const r = expectRejected(ex, { what });
  if (r.ok || r.kind !== 'violation' || effectOf(ex) !== 'applied') return r;
  if (!allApplied(ex)) {
    return assumptionMismatch('conflict-behaviour', `${what}: answered 2xx with a result status other than applied instead of a 4xx`);
  }
  return r;
}

// 4.2: an op whose base is not the artifact's head is refused, and the head does not move.
const staleBaseRejected = defineProperty({
  id: 'commits.stale-base-rejected',
  section: '4.2',
  invariant: 'An op whose base_revision_id is not the head of its artifact is refused, and the head stays where it was.',
  assumptions: ['op-semantics', 'conflict-behaviour', 'pouch-existence'],
  needs: ['device'],
  arbitrary: () =>
    fc.record({
      type: arbLaterType,
      stale: fc.constantFrom('previous', 'first', 'unknown'),
      moves: fc.integer({ min: 1, max: 3 }),
    }),
  async check(ctx, c) {
    const pouch = pouchFor(ctx);
    const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
    if (outcome) return outcome;
    const a = artifacts[0]!;
    const history = [a.head];
    for (let i = 0; i < c.moves; i++) {
      const moved = await extend(ctx, pouch, a, `moving the head (update ${i + 1})`);
      if (!moved.ok) return moved;
      history.push(a.head);
    }
    const base = c.stale === 'unknown' ? ctx.uuid() : c.stale === 'first' ? history[0]! : history[history.length - 2]!;
    const ex = await commit(ctx, pouch, [op(ctx, { type: c.type, artifact: a.id, revision: ctx.uuid(), base })]);
    const refused = refusedOrConflictStatus(ex, `a ${c.type} on a ${c.stale} base instead of the head`);
    if (!refused.ok) return refused;
    return extend(ctx, pouch, a, 'an update on the head the refused op named as stale');
  },
});

// 4.2: a create names a new artifact; on an existing one its null base is stale.
const createExistingRejected = defineProperty({
  id: 'commits.create-existing-rejected',
  section: '4.2',
  invariant: 'A create of an artifact that already exists is refused and the existing artifact keeps its head.',
  assumptions: ['op-semantics', 'conflict-behaviour', 'pouch-existence'],
  needs: ['device'],
  arbitrary: () => fc.record({ before: fc.constantFrom<'none' | OpType>('none', 'update', 'delete', 'rename'), sameRevision: fc.boolean() }),
  async check(ctx, c) {
    const pouch = pouchFor(ctx);
    const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
    if (outcome) return outcome;
    const a = artifacts[0]!;
    if (c.before !== 'none') {
      const next = ctx.uuid();
      const moved = await commit(ctx, pouch, [op(ctx, { type: c.before, artifact: a.id, revision: next, base: a.head })]);
      const s = expectAccepted(moved, { what: `a ${c.before} on the head` });
      if (!s.ok) return s;
      a.head = next;
    }
    const ex = await commit(ctx, pouch, [op(ctx, { type: 'create', artifact: a.id, revision: ctx.uuid(), base: null })]);
    const refused = refusedOrConflictStatus(ex, `a second create of an existing artifact${c.before !== 'none' ? ` (after a ${c.before})` : ''}`);
    if (!refused.ok) return refused;
    return extend(ctx, pouch, a, 'an update on the head the refused create would have replaced');
  },
});

// 4.2: revision ids name versions; one already used for the same artifact can never name a new one.
const revisionReuseRejected = defineProperty({
  id: 'commits.revision-reuse-rejected',
  section: '4.2',
  invariant: 'An op whose revision_id is already used is refused: within its artifact under every reading, across the pouch under revision-id-unique=per-pouch.',
  assumptions: ['revision-id-unique', 'op-semantics', 'pouch-existence'],
  needs: ['device'],
  arbitrary: () => fc.record({ reuse: fc.constantFrom('own-head', 'own-older', 'other-artifact', 'same-batch') }),
  async check(ctx, c) {
    const pouch = pouchFor(ctx);
    const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
    if (outcome) return outcome;
    const a = artifacts[0]!;
    const first = a.head;
    let ex: Exchange;
    if (c.reuse === 'own-head') {
      ex = await commit(ctx, pouch, [op(ctx, { type: 'update', artifact: a.id, revision: a.head, base: a.head })]);
    } else if (c.reuse === 'own-older') {
      const moved = await extend(ctx, pouch, a, 'moving the head');
      if (!moved.ok) return moved;
      ex = await commit(ctx, pouch, [op(ctx, { type: 'update', artifact: a.id, revision: first, base: a.head })]);
    } else if (c.reuse === 'other-artifact') {
      ex = await commit(ctx, pouch, [op(ctx, { type: 'create', artifact: ctx.uuid(), revision: first, base: null })]);
    } else {
      const r = ctx.uuid();
      ex = await commit(ctx, pouch, [
        op(ctx, { type: 'create', artifact: ctx.uuid(), revision: r, base: null }),
        op(ctx, { type: 'create', artifact: ctx.uuid(), revision: r, base: null }),
      ]);
    }
    const acrossArtifacts = c.reuse === 'other-artifact' || c.reuse === 'same-batch';
    // Across artifacts, uniqueness is a reading; within one artifact every reading forbids reuse.
    const what = `an op reusing revision id (${c.reuse})`;
    const r = expectRejected(ex, acrossArtifacts ? { what, assumption: 'revision-id-unique' } : { what });
    if (!r.ok) return r;
    return extend(ctx, pouch, a, 'an update on the head after the refused reuse');
  },
});

// 4.2: ops of one batch apply in order, so op k+1 may build on op k's revision.
const batchChains = defineProperty({
  id: 'commits.batch-chains',
  section: '4.2',
  invariant: 'Within one batch, an op may build on the revision an earlier op of the same batch created; each result names its op.',
  assumptions: ['op-semantics', 'pouch-existence'],
  needs: ['device'],
  arbitrary: () => fc.record({ chain: fc.array(arbLaterType, { minLength: 1, maxLength: 6 }), artifacts: fc.integer({ min: 1, max: 2 }) }),
  async check(ctx, c) {
    const pouch = pouchFor(ctx);
    const heads: Artifact[] = [];
    const ops: Op[] = [];
    for (let i = 0; i < c.artifacts; i++) {
      const a = { id: ctx.uuid(), head: ctx.uuid() };
      ops.push(op(ctx, { type: 'create', artifact: a.id, revision: a.head, base: null }));
      heads.push(a);
    }
    c.chain.forEach((type, i) => {
      const a = heads[i % heads.length]!;
      const next = ctx.uuid();
      ops.push(op(ctx, { type, artifact: a.id, revision: next, base: a.head }));
      a.head = next;
    });
    const ex = await commit(ctx, pouch, ops);
    const acc = expectAccepted(ex, { what: `a batch of ${ops.length} chained ops (${['create', ...c.chain].join(' → ')})` });
    if (!acc.ok) return acc;
    const results = resultsOf(ex);
    if (results.length !== ops.length) return violation(`a batch of ${ops.length} ops answered ${results.length} results`);
    for (const [i, r] of results.entries()) {
      if (r['status'] !== 'applied' || r['artifact_id'] !== ops[i]!['artifact_id'] || r['revision_id'] !== ops[i]!['revision_id']) {
        return violation(`result ${i + 1} (${JSON.stringify(r)}) does not report op ${i + 1} (${String(ops[i]!['revision_id'])}) as applied`);
      }
    }
    for (const a of heads) {
      const e = await extend(ctx, pouch, a, 'an update on the last revision of the chain');
      if (!e.ok) return e;
    }
    return PASS;
  },
});

// 2.6: seq grows with every applied op of the pouch; high_water covers every seq of its batch.
const seqIncreasing = defineProperty({
  id: 'commits.seq-increasing',
  section: '2.6',
  invariant: 'seq strictly increases over the applied ops of a pouch, and each result\'s high_water is at least every seq of its batch.',
  assumptions: ['seq-semantics', 'pouch-existence'],
  needs: ['device'],
  arbitrary: () => fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 3 }),
  async check(ctx, sizes) {
    const pouch = pouchFor(ctx);
    let last: number | undefined;
    for (const [b, n] of sizes.entries()) {
      const ops = Array.from({ length: n }, () => op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null }));
      const ex = await commit(ctx, pouch, ops);
      const s = b === 0 ? setup(ex, `batch 1 of ${n} creates`) : expectAccepted(ex, { what: `batch ${b + 1} of ${n} creates` });
      if (!s.ok) return s;
      const seqs = seqsOf(ex);
      if (seqs.length !== n) return violation(`batch ${b + 1} of ${n} ops answered ${seqs.length} results`);
      const maxSeq = Math.max(...seqs.map((x) => x.seq));
      for (const [i, { seq, high }] of seqs.entries()) {
        if (last !== undefined && !(seq > last)) {
          return violation(`batch ${b + 1}, result ${i + 1}: seq ${seq} does not exceed the previous applied op's seq ${last}`);
        }
        if (!(high >= maxSeq)) return violation(`batch ${b + 1}, result ${i + 1}: high_water ${high} is below seq ${maxSeq} of the same batch`);
        last = seq;
      }
    }
    return PASS;
  },
});

type Conflict = 'stale-base' | 'create-existing' | 'reused-revision';

// 4.2 + batch-atomicity: a batch with one conflicting op applies nothing at all.
const atomicBatch = defineProperty({
  id: 'commits.atomic-batch',
  section: '4.2',
  invariant: 'A batch in which one op conflicts is refused as a whole: none of its other ops applies.',
  assumptions: ['batch-atomicity', 'conflict-behaviour', 'op-semantics', 'pouch-existence'],
  needs: ['device'],
  arbitrary: () =>
    fc
      .integer({ min: 2, max: 6 })
      .chain((size) =>
        fc.record({
          size: fc.constant(size),
          // Late conflicts are where a one-by-one apply leaves earlier ops behind.
          at: fc.oneof(fc.constant(size - 1), fc.integer({ min: 0, max: size - 1 })),
          conflict: fc.constantFrom<Conflict>('stale-base', 'create-existing', 'reused-revision'),
        }),
      ),
  async check(ctx, c) {
    const pouch = pouchFor(ctx);
    const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
    if (outcome) return outcome;
    const x = artifacts[0]!;
    const first = x.head;
    const moved = await extend(ctx, pouch, x, 'moving the head');
    if (!moved.ok) return moved;
    const fresh: Artifact[] = [];
    const ops: Op[] = [];
    for (let i = 0; i < c.size; i++) {
      if (i === c.at) {
        const bad =
          c.conflict === 'stale-base'
            ? op(ctx, { type: 'update', artifact: x.id, revision: ctx.uuid(), base: first })
            : c.conflict === 'create-existing'
              ? op(ctx, { type: 'create', artifact: x.id, revision: ctx.uuid(), base: null })
              : op(ctx, { type: 'update', artifact: x.id, revision: first, base: x.head });
        ops.push(bad);
      } else {
        const a = { id: ctx.uuid(), head: ctx.uuid() };
        fresh.push(a);
        ops.push(op(ctx, { type: 'create', artifact: a.id, revision: a.head, base: null }));
      }
    }
    const ex = await commit(ctx, pouch, ops);
    const what = `a batch of ${c.size} ops whose op ${c.at + 1} conflicts (${c.conflict})`;
    if (effectOf(ex) === 'applied' && !allApplied(ex)) {
      // Per-op statuses: the reading of conflict-behaviour and batch-atomicity the harness does not hold.
      return assumptionMismatch('batch-atomicity', `${what}: answered 2xx with per-op statuses instead of refusing the batch`);
    }
    const refused = expectRejected(ex, { what });
    if (!refused.ok) return refused;
    // The other ops' artifacts must still be free to create, with their very revision ids.
    const free = await proveNothingApplied(ctx, pouch.id, fresh.map((a) => ({ artifact: a.id, revision: a.head })), what);
    if (!free.ok) return free;
    return extend(ctx, pouch, x, 'an update on the conflicting artifact\'s head');
  },
});

// 4.2 + operation-id-idempotency: an operation_id names one attempt; a retry applies nothing again.
const operationIdReplay = defineProperty({
  id: 'commits.operation-id-replay',
  section: '4.2',
  invariant: 'Re-sending an operation_id applies nothing a second time: the replay answers the first result (or is refused) and changes no head.',
  assumptions: ['operation-id-idempotency', 'op-semantics', 'pouch-existence'],
  needs: ['device'],
  arbitrary: () => fc.record({ replay: fc.constantFrom('identical', 'other-ops'), size: fc.integer({ min: 1, max: 3 }), kind: fc.constantFrom('create', 'update') }),
  async check(ctx, c) {
    const pouch = pouchFor(ctx);
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
        const next = ctx.uuid();
        const o = op(ctx, { type: 'update', artifact: a.id, revision: next, base: a.head });
        a.head = next;
        return o;
      });
    }
    const firstEx = await commit(ctx, pouch, ops, { operationId });
    const s = expectAccepted(firstEx, { what: 'the first attempt' });
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
    const eff = effectOf(replay);
    if (eff === 'maybe') return expectAccepted(replay, { what });
    if (eff === 'refused' && reading === 'replay-first-result' && c.replay === 'identical') {
      return assumptionMismatch('operation-id-idempotency', `${what}: refused (${replay.response?.status}) instead of answering the first result`);
    }
    if (eff === 'applied' && c.replay === 'identical') {
      const a = JSON.stringify(resultsOf(firstEx));
      const b = JSON.stringify(resultsOf(replay));
      if (a !== b) return violation(`${what}: answered results ${b} instead of the first attempt's ${a}: the ops applied again`);
    }
    // Whatever the answer, the heads are the first attempt's and the other ops created nothing.
    for (const a of artifacts) {
      const e = await extend(ctx, pouch, a, 'an update on the head the first attempt set');
      if (!e.ok) return e;
    }
    for (const a of other) {
      const free = await absent(ctx, pouch, a.id, 'creating an artifact that only the replay named');
      if (!free.ok) {
        return reading === 'not-deduplicated' ? PASS : assumptionMismatch('operation-id-idempotency', `${what}: the replay's own ops applied (${free.message})`);
      }
    }
    return PASS;
  },
});

const COMMITS: readonly Property[] = [staleBaseRejected, createExistingRejected, revisionReuseRejected, batchChains, seqIncreasing, atomicBatch, operationIdReplay];
export default COMMITS;

/**
 * The commit model (src/check/model/commit-model.ts): what it predicts for each op type under the
 * readings, and how it judges answers: a violation only for an op that fits no reading's head.
 */
import { describe, expect, it } from 'vitest';
import { fits, judgeCommit, judgeReplay, judgeSeq, PouchModel, predict, type ModelOp } from '../../src/check/model/commit-model.ts';
import { resolveAssumptions, type OpType } from '../../src/spec/index.ts';

const DEFAULTS = resolveAssumptions();
const reading = (o: Record<string, string>) => resolveAssumptions(o);

let n = 0;
const id = (p: string): string => `${p}-${++n}`;
const mk = (type: OpType, artifact: string, base: string | null, revision = id('r')): ModelOp => ({ type, artifact_id: artifact, revision_id: revision, base_revision_id: base });

/** A pouch holding one artifact with the given history of revisions (oldest first). */
function pouchWith(...revisions: string[]): { pouch: PouchModel; a: string } {
  const pouch = new PouchModel('A');
  const a = id('a');
  pouch.record(
    revisions.map((r, i) => mk(i === 0 ? 'create' : 'update', a, i === 0 ? null : revisions[i - 1]!, r)),
    revisions.map(() => 'applied'),
  );
  return { pouch, a };
}

describe('predict', () => {
  it.each(['update', 'rename', 'delete', 'restore', 'resolve'] as const)('%s applies on the head and is refused on an earlier or unknown base', (type) => {
    const { pouch, a } = pouchWith('r1', 'r2');
    expect(predict(pouch, [mk(type, a, 'r2')], DEFAULTS)).toEqual(['applied']);
    expect(predict(pouch, [mk(type, a, 'r1')], DEFAULTS)).toEqual(['refused']);
    expect(predict(pouch, [mk(type, a, id('unknown'))], DEFAULTS)).toEqual(['refused']);
  });

  it('a create needs a new artifact; on an existing one (even deleted) its null base is stale', () => {
    const { pouch, a } = pouchWith('r1');
    expect(predict(pouch, [mk('create', id('a'), null)], DEFAULTS)).toEqual(['applied']);
    expect(predict(pouch, [mk('create', a, null)], DEFAULTS)).toEqual(['refused']);
    pouch.record([mk('delete', a, 'r1', 'r2')], ['applied']);
    expect(predict(pouch, [mk('create', a, null)], DEFAULTS)).toEqual(['refused']);
    // op-semantics=base-only: a deleted artifact's head is the delete; restore, update, resolve build on it.
    expect(predict(pouch, [mk('restore', a, 'r2')], DEFAULTS)).toEqual(['applied']);
    expect(predict(pouch, [mk('restore', a, 'r1')], DEFAULTS)).toEqual(['refused']);
  });

  it('a chained batch applies under batch-chaining=chained and is refused under pre-batch-heads', () => {
    const { pouch, a } = pouchWith('r1');
    const batch = [mk('update', a, 'r1', 'r2'), mk('rename', a, 'r2', 'r3'), mk('resolve', a, 'r3')];
    expect(predict(pouch, batch, DEFAULTS)).toEqual(['applied', 'applied', 'applied']);
    expect(predict(pouch, batch, reading({ 'batch-chaining': 'pre-batch-heads' }))).toEqual(['refused', 'refused', 'refused']);
    expect(predict(pouch, batch, reading({ 'batch-chaining': 'pre-batch-heads', 'batch-atomicity': 'per-op' }))).toEqual(['applied', 'refused', 'refused']);
  });

  it('a conflict refuses the whole batch when atomic, only itself under per-op', () => {
    const { pouch, a } = pouchWith('r1', 'r2');
    const batch = [mk('create', id('a'), null), mk('restore', a, 'r1')];
    expect(predict(pouch, batch, DEFAULTS)).toEqual(['refused', 'refused']);
    expect(predict(pouch, batch, reading({ 'batch-atomicity': 'per-op' }))).toEqual(['applied', 'refused']);
  });

  it('a revision id used in the pouch is refused under per-pouch, allowed on another artifact under per-artifact', () => {
    const { pouch } = pouchWith('r1');
    expect(predict(pouch, [mk('create', id('a'), null, 'r1')], DEFAULTS)).toEqual(['refused']);
    expect(predict(pouch, [mk('create', id('a'), null, 'r1')], reading({ 'revision-id-unique': 'per-artifact' }))).toEqual(['applied']);
  });
});

describe('judgeCommit', () => {
  it('a stale op applied is a violation naming the op', () => {
    const { pouch, a } = pouchWith('r1', 'r2', 'r3');
    const ops = [mk('restore', a, 'r1')];
    const v = judgeCommit(pouch, ops, predict(pouch, ops, DEFAULTS), ['applied'], DEFAULTS);
    expect(v).toMatchObject({ kind: 'stale', op: 0 });
    expect(v.kind === 'stale' && v.message).toMatch(/op 1 \(restore on base r1\) applied, though its base is not the artifact's head \(r3\)/);
  });

  it('a create over an existing artifact applied is a violation', () => {
    const { pouch, a } = pouchWith('r1');
    const ops = [mk('create', a, null)];
    expect(judgeCommit(pouch, ops, predict(pouch, ops, DEFAULTS), ['applied'], DEFAULTS).kind).toBe('stale');
  });

  it('a chained op refused is a batch-chaining reading, never a violation, in both directions', () => {
    const { pouch, a } = pouchWith('r1');
    const ops = [mk('update', a, 'r1', 'r2'), mk('delete', a, 'r2')];
    expect(judgeCommit(pouch, ops, predict(pouch, ops, DEFAULTS), ['refused', 'refused'], DEFAULTS)).toMatchObject({ kind: 'reading', assumption: 'batch-chaining' });
    const pre = reading({ 'batch-chaining': 'pre-batch-heads' });
    expect(judgeCommit(pouch, ops, predict(pouch, ops, pre), ['applied', 'applied'], pre)).toMatchObject({ kind: 'reading', assumption: 'batch-chaining' });
  });

  it('an op only a state rule refuses (a later op of a deleted artifact, a restore of a live one) names op-semantics, not chaining', () => {
    const { pouch, a } = pouchWith('r1');
    const ops = [mk('update', a, 'r1', 'r2'), mk('delete', a, 'r2', 'r3'), mk('update', a, 'r3')];
    const predicted = predict(pouch, ops, DEFAULTS);
    // Refused whole: a state rule explains it as well as chaining does, and is named.
    const whole = judgeCommit(pouch, ops, predicted, ['refused', 'refused', 'refused'], DEFAULTS);
    expect(whole).toMatchObject({ kind: 'reading', assumption: 'op-semantics' });
    expect(whole.kind === 'reading' && whole.message).toMatch(/op 3 \(update on base r3\) was refused: an update of a deleted artifact.*refused whole \(or it does not chain: batch-chaining\)/);
    // Refused alone, after the chained ops before it applied: chaining works, the state rule is all that is left.
    expect(judgeCommit(pouch, ops, predicted, ['applied', 'applied', 'refused'], reading({ 'batch-atomicity': 'per-op' }))).toMatchObject({ kind: 'reading', assumption: 'op-semantics' });
    const restore = [mk('restore', a, 'r1')];
    const r = judgeCommit(pouch, restore, predict(pouch, restore, DEFAULTS), ['refused'], DEFAULTS);
    expect(r.kind === 'reading' && r.message).toMatch(/a restore of a live artifact/);
  });

  it('two ops on the pre-batch head both applied fit pre-batch-heads: a reading, not stale, under chained', () => {
    const { pouch, a } = pouchWith('r1');
    const ops = [mk('update', a, 'r1'), mk('rename', a, 'r1')];
    expect(judgeCommit(pouch, ops, predict(pouch, ops, DEFAULTS), ['applied', 'applied'], DEFAULTS)).toMatchObject({ kind: 'reading', assumption: 'batch-chaining' });
  });

  it('a partial batch is a batch-atomicity reading; an atomic refusal under per-op too', () => {
    const { pouch, a } = pouchWith('r1', 'r2');
    const ops = [mk('create', id('a'), null), mk('update', a, 'r1')];
    expect(judgeCommit(pouch, ops, predict(pouch, ops, DEFAULTS), ['applied', 'refused'], DEFAULTS)).toMatchObject({ kind: 'reading', assumption: 'batch-atomicity' });
    const perOp = reading({ 'batch-atomicity': 'per-op' });
    expect(judgeCommit(pouch, ops, predict(pouch, ops, perOp), ['refused', 'refused'], perOp)).toMatchObject({ kind: 'reading', assumption: 'batch-atomicity' });
    expect(judgeCommit(pouch, ops, predict(pouch, ops, perOp), ['applied', 'refused'], perOp)).toEqual({ kind: 'ok' });
  });

  it('an op on the head refused is an op-semantics reading; unknown fates are not judged', () => {
    const { pouch, a } = pouchWith('r1', 'r2');
    const ops = [mk('delete', a, 'r2')];
    expect(judgeCommit(pouch, ops, predict(pouch, ops, DEFAULTS), ['refused'], DEFAULTS)).toMatchObject({ kind: 'reading', assumption: 'op-semantics' });
    expect(judgeCommit(pouch, [mk('update', a, 'r1')], ['refused'], ['unknown'], DEFAULTS)).toEqual({ kind: 'ok' });
  });

  it('record: applied ops move the head, ops of unknown fate lose the artifact', () => {
    const { pouch, a } = pouchWith('r1');
    const b = id('a');
    pouch.record([mk('create', b, null, 'b1'), mk('rename', a, 'r1', 'r2')], ['applied', 'applied']);
    expect([pouch.head(a), pouch.head(b)]).toEqual(['r2', 'b1']);
    expect(pouch.usable().map((x) => x.id)).toEqual([a, b]);
    pouch.record([mk('update', b, 'b1')], ['unknown']);
    expect(pouch.usable().map((x) => x.id)).toEqual([a]);
    expect(fits(mk('update', a, 'r2'), pouch.head(a))).toBe(true);
  });
});

describe('judgeReplay', () => {
  const ops = [mk('create', 'x', null, 'x1')];
  const first = { operationId: 'o', ops, results: ['{"seq":1}'] };
  it.each([
    ['replay-first-result', ['applied'], ['{"seq":1}'], 'ok'],
    ['replay-first-result', ['refused'], [undefined], 'operation-id-idempotency'],
    ['replay-rejected', ['refused'], [undefined], 'ok'],
    ['replay-rejected', ['applied'], ['{"seq":1}'], 'operation-id-idempotency'],
    ['not-deduplicated', ['refused'], [undefined], 'ok'],
    ['not-deduplicated', ['applied'], ['{"seq":1}'], 'operation-id-idempotency'],
    ['not-deduplicated', ['applied'], ['{"seq":2}'], 'stale'],
    ['replay-first-result', ['applied'], ['{"seq":2}'], 'stale'],
  ] as const)('under %s, %j with results %j: %s', (r, fates, results, want) => {
    const v = judgeReplay(first, fates, results, reading({ 'operation-id-idempotency': r }));
    expect(v.kind === 'reading' ? v.assumption : v.kind).toBe(want);
  });
});

describe('judgeSeq', () => {
  it('seq rises along the pouch across commits; high_water covers the batch', () => {
    const pouch = new PouchModel('A');
    expect(judgeSeq(pouch, [{ seq: 1, highWater: 2 }, { seq: 2, highWater: 2 }])).toEqual({ kind: 'ok' });
    expect(judgeSeq(pouch, [{ seq: 7, highWater: 7 }])).toEqual({ kind: 'ok' }); // gaps: seq-semantics=global allows them
    expect(judgeSeq(pouch, [{ seq: 7, highWater: 7 }])).toMatchObject({ kind: 'reading', assumption: 'seq-semantics' });
    expect(judgeSeq(pouch, [{ seq: 8, highWater: 8 }, { seq: 9, highWater: 8 }])).toMatchObject({ kind: 'reading', assumption: 'seq-semantics' });
    expect(judgeSeq(pouch, [])).toEqual({ kind: 'ok' });
  });
});

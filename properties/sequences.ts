/**
 * 4.2 Commits, as sequences: "Commits 1 to 50 signed, encrypted operations with optimistic
 * concurrency on revision ids." Sequences of commits of every op type (2.5: create, update, rename,
 * delete, restore, resolve) over two pouches, built with fast-check's model-based testing: chained
 * batches, deliberate conflicts on stale bases, creates of existing artifacts, operation_id replays.
 * A model of the pouches (src/check/model/commit-model.ts) predicts each answer under the run's readings;
 * a failing sequence shrinks to the shortest one, shown as numbered steps, one request per step.
 *
 * Grounds: an op that fits no reading's head applied (a stale base, a create over an existing
 * artifact, a replay applied again) breaks optimistic concurrency, the spec's own words. Chaining,
 * atomicity, revision-id uniqueness, what seq means, what a replay answers and that nothing but the
 * base is checked (so an op on the head of a deleted artifact applies) are registry readings.
 */
import fc from 'fast-check';
import { resultsFor } from '../src/check/judge/commit-outcome.ts';
import { judgeCommit, judgeReplay, judgeSeq, PouchModel, predict, type ArtifactModel, type ModelVerdict } from '../src/check/model/commit-model.ts';
import { assumptionMismatch, Notes, unexpected, violation } from '../src/check/judge/judge.ts';
import { readingJudgement } from '../src/check/judge/judgements.ts';
import { PASS, defineProperty, type CaseContext, type Outcome } from '../src/check/property.ts';
import { LIMITS, OP_TYPES, type OpType } from '../src/spec/index.ts';
import type { Exchange } from '../src/target/client.ts';
import { HEADS_READS, STALE_NOT_APPLIED } from './commits.ts';
import { commit, fates, LATER_TYPES, op, pouchFor, type LaterType, type Op, type Pouch } from './support/commits.ts';

// Deletes weigh more: what follows a delete (restore, resolve, an update on it) is where histories go wrong.
const arbLater = fc.oneof({ arbitrary: fc.constantFrom(...LATER_TYPES), weight: 2 }, { arbitrary: fc.constant<LaterType>('delete'), weight: 1 });

const POUCHES = 2;
/** How a step names an artifact of its pouch: the k-th most recently touched, modulo the artifacts the pouch has. */
const ARTIFACT_CHOICES = 4;
const MAX_STEPS = 16;
const POUCH_LABELS = ['A', 'B'] as const;

// The readings the model judges by (their findings are assumptions, listed for `pouchproof list --grounds`):
// each reads its own and every reading the model's heads are built under (commits.ts HEADS_READS).
const READINGS = [
  readingJudgement('commits.sequence-seq-rises', 'seq strictly increases over the applied ops of a pouch along a sequence of commits; high_water covers every seq of its batch.', 'seq-semantics', HEADS_READS),
  readingJudgement('commits.sequence-chains', 'An op building on an earlier op of its batch applies under chained batches, and is refused under pre-batch heads.', 'batch-chaining', HEADS_READS),
  readingJudgement('commits.sequence-atomic', 'A batch with a refused op applies nothing (atomic), or all its other fitting ops (per-op).', 'batch-atomicity', HEADS_READS),
  readingJudgement('commits.sequence-base-only', 'An op on its artifact\'s head applies whatever the ops before it did (a delete included): nothing but the base is checked.', 'op-semantics', HEADS_READS),
  readingJudgement('commits.sequence-replay', 'A replayed operation_id answers the first results, is refused, or is evaluated again, as the run reads it.', 'operation-id-idempotency', HEADS_READS),
  readingJudgement('commits.sequence-revision-unique', 'A revision id already used (in the pouch, or the artifact) is refused.', 'revision-id-unique', HEADS_READS),
  readingJudgement('commits.sequence-results', 'An answer names each op\'s result by its ids.', 'commit-results', HEADS_READS),
];

/** The world a sequence runs in: the pouches (fresh, or the profile's) and the model of each. */
interface World {
  readonly pouches: readonly { readonly pouch: Pouch; readonly model: PouchModel }[];
  /** Every fully applied commit, in order, with its body's ops: what a replay step re-sends. */
  readonly applied: { readonly step: number; readonly p: number; readonly operationId: string; readonly ops: readonly Op[]; readonly results: readonly string[] }[];
  step: number;
  /** Readings the target followed instead, where the sequence could go on from what it did (a state rule). */
  readonly notes: Notes;
}

/** Ends the sequence with an outcome (a finding, or a reading the target follows instead). */
class Stop extends Error {
  constructor(readonly outcome: Outcome) {
    super('sequence stopped');
  }
}

function stop(world: World, what: string, o: Outcome): never {
  throw new Stop(stepped(world, what, o));
}

/** `o` with the step it came from in its message. */
function stepped(world: World, what: string, o: Outcome): Outcome {
  return o.ok ? o : { ...o, message: `step ${world.step} (${what}): ${o.message}` };
}

function verdictOutcome(v: ModelVerdict): Outcome {
  switch (v.kind) {
    case 'ok':
      return PASS;
    case 'stale':
      return violation(STALE_NOT_APPLIED, v.message);
    case 'reading':
      return assumptionMismatch(v.assumption, v.message);
    default:
      return v satisfies never;
  }
}

const jsonOf = (r: Record<string, unknown> | undefined): string | undefined => (r === undefined ? undefined : JSON.stringify(r));

function pouchOf(world: World, p: number): { pouch: Pouch; model: PouchModel; p: number } {
  const i = p % world.pouches.length;
  return { ...world.pouches[i], p: i };
}

/** A fresh name_index (2.5: exactly its stated length, base64url characters). */
function nameIndex(ctx: CaseContext): string {
  const n = LIMITS.nameIndexLength.max;
  let s = '';
  while (s.length < n) s += ctx.uuid().replace(/-/g, '');
  return s.slice(0, n);
}

/** Ops chained on `artifact` from `head`: each builds on the one before; resolve and rename carry their optional fields. */
function chain(ctx: CaseContext, artifact: string, head: string, earlier: string | undefined, types: readonly LaterType[]): Op[] {
  let base = head;
  let parent = earlier;
  return types.map((type) => {
    const revision = ctx.uuid();
    const extra: Partial<Op> =
      type === 'resolve' ? { conflict_id: ctx.uuid(), merge_parent_id: parent ?? null } : type === 'rename' ? { name_index: nameIndex(ctx) } : {};
    const o = op(ctx, { type, artifact, revision, base }, extra);
    parent = base;
    base = revision;
    return o;
  });
}

/** Sends one fresh commit and judges it against the model; moves the model by what applied. */
async function send(world: World, ctx: CaseContext, p: number, ops: readonly Op[], what: string): Promise<void> {
  world.step++;
  const { pouch, model } = pouchOf(world, p);
  const predicted = predict(model, ops, ctx.assumptions);
  const operationId = ctx.uuid();
  const ex = await commit(ctx, pouch, ops, { operationId });
  const u = unexpected(ex, what);
  if (u) stop(world, what, u);
  const f = fates(ctx, ex, ops);
  if (f.unreadable) stop(world, what, assumptionMismatch('commit-results', `the results name none of the ops (${f.answer})`));
  const v = judgeCommit(model, ops, predicted, f.ops, ctx.assumptions);
  // A state rule section 3 leaves open refused an op base-only applies: noted, and the sequence goes on
  // from what the target did (the model records the fates it answered), still judging every later op's base.
  if (v.kind === 'reading' && v.assumption === 'op-semantics') world.notes.add(stepped(world, what, verdictOutcome(v)));
  else if (v.kind !== 'ok') stop(world, what, verdictOutcome(v));
  if (f.ops.includes('refused') && !f.conflictForm.ok) stop(world, what, f.conflictForm);
  const results = resultsFor(ex, ops) ?? [];
  const seqs = f.ops.flatMap((fate, i) => {
    const r = results[i];
    return fate === 'applied' && r ? [{ seq: Number(r['seq']), highWater: Number(r['high_water']) }] : [];
  });
  const s = judgeSeq(model, seqs);
  if (s.kind !== 'ok') stop(world, what, verdictOutcome(s));
  model.record(ops, f.ops);
  if (f.batch === 'applied') world.applied.push({ step: world.step, p: pouchOf(world, p).p, operationId, ops, results: ops.map((_, i) => jsonOf(results[i]) ?? '') });
}

/** A step: a command of fast-check's model-based testing that knows whether it ran (a step whose check fails is skipped). */
interface Cmd extends fc.AsyncCommand<World, CaseContext> {
  readonly ran: boolean;
}

/**
 * The artifact a step names: the one its pouch's ops touched last (k = 0), the one before, and so
 * on (modulo how many the pouch has), so steps tend to work on one artifact's history; labelled by
 * the order the pouch's artifacts were made in. Steps record the label they resolved (each run
 * works on its own clone of the steps), so the shrunk sequence reads with the artifacts it used.
 */
function pick(world: World, p: number, k: number, o: { readonly deleted?: boolean } = {}): { a: ArtifactModel; label: string } {
  const { model } = pouchOf(world, p);
  const usable = model.usable();
  // A restore is drawn onto a deleted artifact where there is one: a stale base there is what "bring back that revision" misreads.
  const deleted = o.deleted ? usable.filter((x) => x.deleted && x.revisions.length >= 2) : [];
  const from = deleted.length > 0 ? deleted : usable;
  const a = from[k % from.length];
  return { a, label: `artifact ${model.ordinal(a.id)} of pouch ${model.label}` };
}

/** Creates fresh artifacts in one commit, then chains ops on the first of them in the same batch. */
class Create implements Cmd {
  constructor(
    readonly p: number,
    readonly count: number,
    readonly then: readonly LaterType[],
    readonly named: boolean,
  ) {}
  ran = false;
  private target = '';
  check(): boolean {
    return true;
  }
  [fc.cloneMethod](): Create {
    return new Create(this.p, this.count, this.then, this.named);
  }
  async run(world: World, ctx: CaseContext): Promise<void> {
    this.ran = true;
    const creates = Array.from({ length: this.count }, () =>
      op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null }, this.named ? { name_index: nameIndex(ctx) } : {}),
    );
    const first = creates[0];
    this.target = `pouch ${pouchOf(world, this.p).model.label}`;
    await send(world, ctx, this.p, [...creates, ...chain(ctx, first.artifact_id, first.revision_id, undefined, this.then)], this.toString());
  }
  toString(): string {
    return `create ${this.count} artifact(s)${this.named ? ' with name_index' : ''}${this.then.length ? `, then ${this.then.join(' → ')} on the first, in the same batch` : ''} (${this.target || `pouch ${POUCH_LABELS[this.p]}`})`;
  }
}

/** Chains ops on an artifact's head, in one batch. */
class Edit implements Cmd {
  constructor(
    readonly p: number,
    readonly k: number,
    readonly types: readonly LaterType[],
  ) {}
  ran = false;
  private target = '';
  check(world: Readonly<World>): boolean {
    return pouchOf(world, this.p).model.usable().length > 0;
  }
  async run(world: World, ctx: CaseContext): Promise<void> {
    this.ran = true;
    const { a, label } = pick(world, this.p, this.k);
    this.target = label;
    const head = a.revisions[a.revisions.length - 1];
    await send(world, ctx, this.p, chain(ctx, a.id, head, a.revisions[a.revisions.length - 2], this.types), this.toString());
  }
  [fc.cloneMethod](): Edit {
    return new Edit(this.p, this.k, this.types);
  }
  toString(): string {
    return `${this.types.join(' → ')} on the head of ${this.target || `artifact ${this.k + 1} of pouch ${POUCH_LABELS[this.p]}`}`;
  }
}

type StaleBase = 'previous' | 'first' | 'unknown';

/** A deliberate conflict: an op on a base that is not the head (or a create of an existing artifact), alone or beside a fresh create. */
class Conflict implements Cmd {
  constructor(
    readonly p: number,
    readonly k: number,
    readonly type: OpType,
    readonly base: StaleBase,
    readonly beside: 'alone' | 'after-a-create' | 'before-a-create',
  ) {}
  ran = false;
  private target = '';
  check(world: Readonly<World>): boolean {
    const usable = pouchOf(world, this.p).model.usable();
    if (usable.length === 0) return false;
    return this.type === 'create' || this.base === 'unknown' || pick(world, this.p, this.k, { deleted: this.type === 'restore' }).a.revisions.length >= 2;
  }
  [fc.cloneMethod](): Conflict {
    return new Conflict(this.p, this.k, this.type, this.base, this.beside);
  }
  async run(world: World, ctx: CaseContext): Promise<void> {
    this.ran = true;
    const { a, label } = pick(world, this.p, this.k, { deleted: this.type === 'restore' });
    this.target = label;
    const n = a.revisions.length;
    const base = this.type === 'create' ? null : this.base === 'unknown' ? ctx.uuid() : this.base === 'first' ? a.revisions[0] : a.revisions[n - 2];
    const extra: Partial<Op> = this.type === 'resolve' ? { conflict_id: ctx.uuid(), merge_parent_id: a.revisions[n - 1] } : {};
    const stale = op(ctx, { type: this.type, artifact: a.id, revision: ctx.uuid(), base }, extra);
    const fresh = op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null });
    const ops = this.beside === 'alone' ? [stale] : this.beside === 'after-a-create' ? [fresh, stale] : [stale, fresh];
    await send(world, ctx, this.p, ops, this.toString());
  }
  toString(): string {
    const what = this.type === 'create' ? 'create (null base) of the existing' : `${this.type} on the ${this.base} revision (not the head) of`;
    return `${what} ${this.target || `artifact ${this.k + 1} of pouch ${POUCH_LABELS[this.p]}`}${this.beside === 'alone' ? '' : `, ${this.beside.replace(/-/g, ' ')} of a fresh artifact`}`;
  }
}

/** Re-sends an applied commit, same operation_id and same ops. */
class Replay implements Cmd {
  ran = false;
  private target = '';
  constructor(readonly j: number) {}
  check(world: Readonly<World>): boolean {
    return world.applied.length > 0;
  }
  [fc.cloneMethod](): Replay {
    return new Replay(this.j);
  }
  async run(world: World, ctx: CaseContext): Promise<void> {
    this.ran = true;
    world.step++;
    const first = world.applied[this.j % world.applied.length];
    this.target = `step ${first.step}`;
    const { pouch, model } = pouchOf(world, first.p);
    const what = this.toString();
    const ex: Exchange = await commit(ctx, pouch, first.ops, { operationId: first.operationId });
    const u = unexpected(ex, what);
    if (u) stop(world, what, u);
    const f = fates(ctx, ex, first.ops);
    const results = (resultsFor(ex, first.ops) ?? []).map(jsonOf);
    const v = judgeReplay({ operationId: first.operationId, ops: first.ops, results: first.results }, f.ops, first.ops.map((_, i) => results[i]), ctx.assumptions);
    if (v.kind !== 'ok') stop(world, what, verdictOutcome(v));
    model.lose(first.ops.filter((_, i) => f.ops[i] === 'unknown').map((o) => o.artifact_id));
  }
  toString(): string {
    return `replay ${this.target || `applied commit ${this.j + 1}`}: same operation_id, same ops`;
  }
}

// Most steps stay in one pouch, so they meet each other's artifacts; some go to the other.
const arbPouch = fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.nat(POUCHES - 1), weight: 1 });
// Restores and resolves on stale bases are where "bring back that revision" mistakes live.
const arbConflictType = fc.oneof({ arbitrary: fc.constantFrom<OpType>('restore', 'resolve'), weight: 1 }, { arbitrary: fc.constantFrom(...OP_TYPES), weight: 1 });
const arbArtifact = fc.oneof({ arbitrary: fc.constant(0), weight: 2 }, { arbitrary: fc.nat(ARTIFACT_CHOICES - 1), weight: 1 });

const arbCreate = fc
  .record({ p: arbPouch, count: fc.integer({ min: 1, max: 2 }), later: fc.array(arbLater, { maxLength: 2 }), named: fc.boolean() })
  .map((r) => new Create(r.p, r.count, r.later, r.named));

/**
 * Sequences of steps. A plain array of commands rather than `fc.commands`: its shrinking does not
 * depend on which commands ran, so a replay token (seed and shrink path) reproduces the shrunk
 * sequence; `fc.asyncModelRun` skips the steps whose check fails either way.
 */
export const arbSteps = (): fc.Arbitrary<Cmd[]> =>
  fc.array(
    fc.oneof<fc.Arbitrary<Cmd>[]>(
      // Creating is what every other step needs first: twice as likely.
      arbCreate,
      arbCreate,
      fc.record({ p: arbPouch, k: arbArtifact, types: fc.array(arbLater, { minLength: 1, maxLength: 3 }) }).map((r) => new Edit(r.p, r.k, r.types)),
      fc
        .record({
          p: arbPouch,
          k: arbArtifact,
          type: arbConflictType,
          // An earlier revision of the artifact is the subtle stale base; an unknown one the plain.
          base: fc.constantFrom<StaleBase>('previous', 'previous', 'first', 'unknown'),
          beside: fc.constantFrom('alone' as const, 'after-a-create' as const, 'before-a-create' as const),
        })
        .map((r) => new Conflict(r.p, r.k, r.type, r.base, r.beside)),
      fc.nat(MAX_STEPS - 1).map((j) => new Replay(j)),
    ),
    { maxLength: MAX_STEPS, size: 'max' },
  );

/** The steps that ran, numbered; step n sent the case's request n. */
export function describeSteps(steps: readonly Cmd[]): string {
  const ran = [...steps].filter((c) => c.ran);
  return ran.map((c, i) => `${i + 1}. ${c.toString()}`).join('\n') + `\n(${ran.length} step(s), one request each, in the order of the curl lines)`;
}

/** Two pouches (one when the profile's pouches are the only ones and both picks are the same). */
function worldFor(ctx: CaseContext): World {
  const first = pouchFor(ctx);
  const second = pouchFor(ctx);
  const list = second.id === first.id ? [first] : [first, second];
  return { pouches: list.map((pouch, i) => ({ pouch, model: new PouchModel(POUCH_LABELS[i]) })), applied: [], step: 0, notes: new Notes() };
}

// 4.2: along any sequence of commits over two pouches, an op applies only on its artifact's head, and the model predicts every answer.
const modelSequences = defineProperty({
  id: 'commits.model-sequences',
  section: '4.2',
  invariant: 'Along any sequence of commits of every op type over two pouches, no op applies on a base that is not its artifact\'s head (nor a create over an existing artifact, nor a replay a second time), and every answer is the one the model predicts under the run\'s readings.',
  assumptions: ['op-semantics', 'batch-chaining', 'batch-atomicity', 'commit-results', 'seq-semantics', 'operation-id-idempotency', 'revision-id-unique', 'conflict-behaviour', 'conflict-status', 'pouch-existence'],
  judgements: [STALE_NOT_APPLIED, ...READINGS],
  needs: ['device', 'pouch'],
  runs: 30,
  showAllRequests: true,
  arbitrary: () => arbSteps(),
  async check(ctx, steps) {
    const world = worldFor(ctx);
    try {
      await fc.asyncModelRun(() => ({ model: world, real: ctx }), steps);
    } catch (e) {
      if (e instanceof Stop) return world.notes.result(e.outcome);
      throw e;
    }
    return world.notes.result(PASS);
  },
  describe: describeSteps,
});

export default [modelSequences];

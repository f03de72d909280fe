/**
 * A model of pouches and their artifacts for sequences of commits (4.2): what each commit should do
 * to each op under the run's readings, and how to judge what the target did. Pure: no requests, no
 * clock; the sequences property (properties/sequences.ts) drives it with the fates the commit judge
 * (`commitOutcome`) reads from each answer.
 *
 * What it rests on: an op whose base is not its artifact's head (a create's null base on an existing
 * artifact included) does not apply: optimistic concurrency, the spec's own words (4.2). Everything
 * else is a registry reading and judged as one: whether a batch chains (`batch-chaining`) or applies
 * all or nothing (`batch-atomicity`), whether revision ids are unique (`revision-id-unique`), that
 * nothing but the base is checked (`op-semantics`), what seq and high_water are (`seq-semantics`),
 * what a replayed operation_id does (`operation-id-idempotency`). Where the readings disagree about
 * an op (an op building on an earlier op of its batch, applied by a server that checks pre-batch
 * heads) the model does not call it stale: a violation needs an op that fits no reading.
 */
import { deletes, keepsLiveState, type AssumptionName, type AssumptionSet, type OpType } from '../../spec/index.ts';
import type { OpFate } from '../judge/commit-outcome.ts';

/** The fields of an op (2.5) the model reads. */
export interface ModelOp {
  readonly type: OpType;
  readonly artifact_id: string;
  readonly revision_id: string;
  readonly base_revision_id: string | null;
}

export interface ArtifactModel {
  readonly id: string;
  /** Every applied revision, oldest first; the last is the head. */
  readonly revisions: string[];
  /** Its head is a delete: what a restore brings back. */
  deleted: boolean;
}

/** A commit that applied all its ops, kept so a later step can replay its operation_id. */
export interface AppliedCommit {
  readonly operationId: string;
  readonly ops: readonly ModelOp[];
  /** Each op's result as first answered (JSON), in op order. */
  readonly results: readonly string[];
}

export type Prediction = 'applied' | 'refused';

/** What the model makes of one answer: nothing wrong, an op that fits no reading, or a reading not followed. */
export type ModelVerdict =
  | { readonly kind: 'ok' }
  | { readonly kind: 'stale'; readonly op: number; readonly message: string }
  | { readonly kind: 'reading'; readonly assumption: AssumptionName; readonly message: string };

const OK: ModelVerdict = { kind: 'ok' };

export class PouchModel {
  private readonly byId = new Map<string, ArtifactModel>();
  /** Artifacts whose head the model no longer knows (an op of unknown fate touched them): never used again. */
  private readonly lost = new Set<string>();
  private readonly usedRevisions = new Set<string>();
  /** The highest seq seen applied in this pouch; undefined before the first. */
  lastSeq: number | undefined;

  constructor(readonly label: string) {}

  /** Whether the artifact's head is a delete; undefined for one the pouch does not hold, or whose head it lost. */
  deleted(artifact: string): boolean | undefined {
    return this.lost.has(artifact) ? undefined : this.byId.get(artifact)?.deleted;
  }

  head(artifact: string): string | undefined {
    const a = this.byId.get(artifact);
    return a ? a.revisions[a.revisions.length - 1] : undefined;
  }

  /** Artifact ids, the one an applied op touched last first. */
  private touched: string[] = [];

  /** Artifacts whose head is known, the one touched last first. */
  usable(): ArtifactModel[] {
    // touched holds only ids registered in byId when first touched
    return this.touched.filter((id) => !this.lost.has(id)).map((id) => this.byId.get(id)!);
  }

  /** 1 for the pouch's first artifact, and so on (0 for one it does not hold). */
  ordinal(artifact: string): number {
    return [...this.byId.keys()].indexOf(artifact) + 1;
  }

  revisionUsed(artifact: string, revision: string, perArtifact: boolean): boolean {
    return perArtifact ? (this.byId.get(artifact)?.revisions.includes(revision) ?? false) : this.usedRevisions.has(revision);
  }

  /** Moves the model by what the target did: applied ops extend their artifact, ops of unknown fate lose it. */
  record(ops: readonly ModelOp[], fates: readonly OpFate[]): void {
    ops.forEach((op, i) => {
      const fate = fates[i];
      if (fate === 'unknown') this.lost.add(op.artifact_id);
      if (fate !== 'applied') return;
      let a = this.byId.get(op.artifact_id);
      if (!a) {
        a = { id: op.artifact_id, revisions: [], deleted: false };
        this.byId.set(a.id, a);
      }
      a.revisions.push(op.revision_id);
      a.deleted = deletes(op.type);
      this.usedRevisions.add(op.revision_id);
      this.touched = [op.artifact_id, ...this.touched.filter((id) => id !== op.artifact_id)];
    });
  }

  /** An op of unknown fate touched these artifacts. */
  lose(artifacts: readonly string[]): void {
    for (const a of artifacts) this.lost.add(a);
  }
}

/** Whether `op` builds on `head` (undefined: the artifact does not exist): 4.2's optimistic concurrency. */
export function fits(op: ModelOp, head: string | undefined): boolean {
  return op.type === 'create' ? op.base_revision_id === null && head === undefined : head !== undefined && op.base_revision_id === head;
}

const chainedIn = (r: AssumptionSet): boolean => r['batch-chaining'] === 'chained';

/** What each op of a fresh commit does under the run's readings. */
export function predict(pouch: PouchModel, ops: readonly ModelOp[], readings: AssumptionSet): Prediction[] {
  const chained = chainedIn(readings);
  const perArtifact = readings['revision-id-unique'] === 'per-artifact';
  const staged = new Map<string, string>();
  const stagedRevisions = new Set<string>();
  const out = ops.map((op): Prediction => {
    const head = chained && staged.has(op.artifact_id) ? staged.get(op.artifact_id) : pouch.head(op.artifact_id);
    const key = perArtifact ? `${op.artifact_id} ${op.revision_id}` : op.revision_id;
    const reused = stagedRevisions.has(key) || pouch.revisionUsed(op.artifact_id, op.revision_id, perArtifact);
    if (!fits(op, head) || reused) return 'refused';
    staged.set(op.artifact_id, op.revision_id);
    stagedRevisions.add(key);
    return 'applied';
  });
  return readings['batch-atomicity'] === 'atomic' && out.includes('refused') ? out.map(() => 'refused') : out;
}

const describeOp = (op: ModelOp, i: number): string => `op ${i + 1} (${op.type} on base ${op.base_revision_id ?? 'null'})`;

/**
 * Judges a fresh commit's answer against the prediction. An applied op that fits no reading's head
 * (the pouch's, or the batch's under either chaining) is stale: a violation. Any other departure
 * names the reading it follows instead; an op of unknown fate is not judged.
 */
export function judgeCommit(pouch: PouchModel, ops: readonly ModelOp[], predicted: readonly Prediction[], fates: readonly OpFate[], readings: AssumptionSet): ModelVerdict {
  const stateRule = stateRuleOps(pouch, ops, predicted);
  // A batch refused whole that holds such an op is explained by a state rule as well as by chaining;
  // the state rule is named (a probe that found the batch chained leaves only it).
  const first = fates.every((f) => f === 'refused') ? stateRule.find((i) => predicted[i] === 'applied') : undefined;
  if (first !== undefined) return reading('op-semantics', `${stateRuleRefusal(ops, first)}; the batch was refused whole (or it does not chain: batch-chaining)`);
  const chained = chainedIn(readings);
  const perArtifact = readings['revision-id-unique'] === 'per-artifact';
  const staged = new Map<string, string>();
  const stagedRevisions = new Set<string>();
  const mismatches: ModelVerdict[] = [];
  for (const [i, op] of ops.entries()) {
    const fate = fates[i];
    if (fate === 'unknown' || fate === undefined) continue;
    const inBatch = staged.get(op.artifact_id);
    const stored = pouch.head(op.artifact_id);
    const headRun = chained && inBatch !== undefined ? inBatch : stored;
    const headOther = !chained && inBatch !== undefined ? inBatch : stored;
    const what = describeOp(op, i);
    if (fate === 'applied') {
      if (predicted[i] !== 'applied') {
        if (!fits(op, headRun) && !fits(op, headOther)) {
          return { kind: 'stale', op: i, message: `${what} applied, though its base is not the artifact's head (${stored ?? 'none: the artifact does not exist'}${inBatch !== undefined ? `, or ${inBatch} after the earlier ops of the batch` : ''})` };
        }
        const key = perArtifact ? `${op.artifact_id} ${op.revision_id}` : op.revision_id;
        if (!fits(op, headRun)) mismatches.push(reading('batch-chaining', `${what} applied against the heads ${chained ? 'before the batch' : 'the earlier ops of the batch set'}`));
        else if (stagedRevisions.has(key) || pouch.revisionUsed(op.artifact_id, op.revision_id, perArtifact)) mismatches.push(reading('revision-id-unique', `${what} applied with a revision id already used`));
        else mismatches.push(reading('batch-atomicity', `${what} applied although another op of the batch was refused`));
      }
      staged.set(op.artifact_id, op.revision_id);
      stagedRevisions.add(perArtifact ? `${op.artifact_id} ${op.revision_id}` : op.revision_id);
    } else if (predicted[i] === 'applied') {
      const otherRefused = fates.some((f, j) => j !== i && f === 'refused');
      const buildsOnBatch = ops.slice(0, i).some((o, j) => o.artifact_id === op.artifact_id && predicted[j] === 'applied');
      if (stateRule.includes(i)) mismatches.push(reading('op-semantics', stateRuleRefusal(ops, i)));
      else if (chained && buildsOnBatch) mismatches.push(reading('batch-chaining', `${what} was refused although it builds on the revision an earlier op of the batch created`));
      else if (otherRefused && readings['batch-atomicity'] === 'per-op') mismatches.push(reading('batch-atomicity', `${what} was refused with the rest of the batch, though it builds on the head`));
      else mismatches.push(reading('op-semantics', `${what} was refused, though its base is the artifact's head (${stored ?? 'none'})`));
    }
  }
  // A chained op refused takes its whole (atomic) batch with it: the chaining is what the target reads otherwise.
  return mismatches.find((m) => m.kind === 'reading' && m.assumption === 'batch-chaining') ?? mismatches[0] ?? OK;
}

/**
 * The ops of a batch whose fate a state rule would decide where section 3 shows none: a restore of a
 * live artifact, or another type on a deleted one, by the pouch's state and the batch's ops predicted
 * to apply before them. op-semantics=base-only applies them; a server with state rules refuses them.
 */
function stateRuleOps(pouch: PouchModel, ops: readonly ModelOp[], predicted: readonly Prediction[]): number[] {
  const deleted = new Map<string, boolean>();
  const out: number[] = [];
  for (const [i, op] of ops.entries()) {
    const gone = deleted.get(op.artifact_id) ?? pouch.deleted(op.artifact_id);
    if (op.type !== 'create' && gone !== undefined && !keepsLiveState(op.type, gone)) out.push(i);
    if (predicted[i] === 'applied') deleted.set(op.artifact_id, deletes(op.type));
  }
  return out;
}

const stateRuleRefusal = (ops: readonly ModelOp[], i: number): string => {
  const op = ops[i];
  const type = op?.type ?? 'later op';
  const which = type === 'restore' ? 'a restore of a live artifact' : `${type === 'update' ? 'an' : 'a'} ${type} of a deleted artifact`;
  return `${op ? describeOp(op, i) : `op ${i + 1}`} was refused: ${which}, which op-semantics=base-only applies and only a state rule the registry does not name refuses`;
};

function reading(assumption: AssumptionName, message: string): ModelVerdict {
  return { kind: 'reading', assumption, message };
}

/**
 * Judges a replay of an applied commit's operation_id with the very same ops. Whatever the reading,
 * an op answered as applied with a result other than its first answer applied again, on a base that
 * is no longer its head: stale. The reading decides whether the replay answers the first results
 * (`replay-first-result`), is refused (`replay-rejected`), or is evaluated again (`not-deduplicated`:
 * its ops, now stale, are refused).
 */
export function judgeReplay(first: AppliedCommit, fates: readonly OpFate[], results: readonly (string | undefined)[], readings: AssumptionSet): ModelVerdict {
  for (const [i, fate] of fates.entries()) {
    if (fate === 'applied' && results[i] !== undefined && results[i] !== first.results[i]) {
      return { kind: 'stale', op: i, message: `${describeOp(first.ops[i], i)} of the replay answered ${results[i]} instead of its first answer ${first.results[i]}: it applied again on a base that was no longer the head` };
    }
  }
  if (fates.some((f) => f === 'unknown')) return OK;
  const reading = readings['operation-id-idempotency'];
  const answered = fates.every((f) => f === 'applied');
  if (reading === 'replay-first-result' && !answered) return { kind: 'reading', assumption: 'operation-id-idempotency', message: 'the replay was refused instead of answering the first result' };
  if (reading !== 'replay-first-result' && fates.some((f) => f === 'applied')) {
    return { kind: 'reading', assumption: 'operation-id-idempotency', message: `the replay answered the first result instead of being ${reading === 'replay-rejected' ? 'refused' : 'evaluated again (and refused as stale)'}` };
  }
  return OK;
}

/** seq and high_water of one applied op's result. */
export interface SeqReading {
  readonly seq: number;
  readonly highWater: number;
}

/**
 * `seq-semantics`, under either reading: seq strictly increases over the applied ops of a pouch, in
 * op order; each high_water is at least every seq of its batch. Raises the pouch's last seq.
 */
export function judgeSeq(pouch: PouchModel, applied: readonly SeqReading[]): ModelVerdict {
  if (applied.length === 0) return OK;
  const bad = applied.find((r) => !Number.isSafeInteger(r.seq) || !Number.isSafeInteger(r.highWater));
  if (bad) return reading('seq-semantics', `seq ${String(bad.seq)} / high_water ${String(bad.highWater)} is not an integer`);
  const max = Math.max(...applied.map((r) => r.seq));
  let last = pouch.lastSeq;
  for (const [i, r] of applied.entries()) {
    if (last !== undefined && !(r.seq > last)) return reading('seq-semantics', `applied op ${i + 1} of the batch has seq ${r.seq}, not above the pouch's previous seq ${last}`);
    if (!(r.highWater >= max)) return reading('seq-semantics', `applied op ${i + 1} of the batch has high_water ${r.highWater}, below seq ${max} of the same batch`);
    last = r.seq;
  }
  pouch.lastSeq = last;
  return OK;
}

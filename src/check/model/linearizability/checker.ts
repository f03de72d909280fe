/**
 * Linearizability checking by the Wing & Gong search as Porcupine implements it (Lowe's
 * improvements): the history is cut into the model's partitions; each partition's calls and
 * returns are sorted by time into a linked list; the search walks it, linearizing a call when the
 * model allows it (lifting the call and its return out of the list) and backtracking when it meets
 * the return of a call it has not linearized; a cache of (linearized set, state) pairs prunes
 * every configuration already explored. An operation with an unknown outcome (its answer lost:
 * Jepsen's `:info`) has no return: it can be linearized at any point after its call, however late,
 * or left out, so the search succeeds as soon as every operation with a known outcome is linearized.
 * That is Knossos's reading of `:info`, and what Porcupine gets from a return after every other
 * event and a model that takes the op either way (test/check/linearizability-oracle.test.ts holds
 * the search to a brute-force oracle on such histories).
 *
 * The search is bounded by a step budget: past it the answer is `unknown`, never a violation. A
 * violation comes with a minimal witness: the operations whose observed outcomes are needed for
 * the contradiction, every other operation of the partition being free to have taken effect at any
 * moment after its call, or not at all (weakening an operation only adds linearizations, so the
 * witness alone proves the whole partition non-linearizable). Pure: no I/O, no clock.
 */
import { isPending, weakened, type Operation } from './history.ts';
import { partitionsOf, type Model } from './model.ts';

export interface CheckOptions {
  /** Search steps per partition (and per minimisation trial); default 200 000. */
  readonly maxSteps?: number;
  /** Reduce a violation to a minimal witness (default true). */
  readonly minimise?: boolean;
}

export type CheckResult<I, O> =
  | { readonly kind: 'ok'; readonly steps: number }
  /** The budget ran out in `partition` before the search could decide: nothing is concluded. */
  | { readonly kind: 'unknown'; readonly steps: number; readonly partition: string }
  | {
      readonly kind: 'violation';
      readonly steps: number;
      readonly partition: string;
      /** Operations whose observed outcomes cannot all be linearized (time order kept). */
      readonly witness: readonly Operation<I, O>[];
      /** The partition's other operations, taken as having had any outcome (or none). */
      readonly others: readonly Operation<I, O>[];
    };

export const DEFAULT_MAX_STEPS = 200_000;

type Verdict = 'ok' | 'violation' | 'unknown';

interface Node {
  readonly op: number;
  /** 0: call, 1: return (calls sort before returns at equal times: touching intervals overlap). */
  readonly kind: 0 | 1;
  readonly time: number;
  match: Node | undefined;
  prev: Node | undefined;
  next: Node | undefined;
}

function byTime(a: Node, b: Node): number {
  if (a.time !== b.time) return a.time < b.time ? -1 : 1;
  return a.kind - b.kind || a.op - b.op;
}

function lift(n: Node): void {
  // a call node is always linked to its return node (eventList)
  const m = n.match!;
  // every listed node has a prev: the list starts at a sentinel head
  n.prev!.next = n.next;
  if (n.next) n.next.prev = n.prev;
  // the return node is listed too, after the sentinel head
  m.prev!.next = m.next;
  if (m.next) m.next.prev = m.prev;
}

function unlift(n: Node): void {
  // a call node is always linked to its return node (eventList)
  const m = n.match!;
  // the return node had a prev when lifted, and lift keeps it
  m.prev!.next = m;
  if (m.next) m.next.prev = m;
  // the call node had a prev when lifted, and lift keeps it
  n.prev!.next = n;
  if (n.next) n.next.prev = n;
}

/** The calls and returns of the operations in time order, as a doubly linked list after a sentinel head (a pending call returns at infinity). */
function eventList<I, O>(ops: readonly Operation<I, O>[]): Node {
  const nodes: Node[] = [];
  ops.forEach((op, i) => {
    const call: Node = { op: i, kind: 0, time: op.call, match: undefined, prev: undefined, next: undefined };
    // A return recorded before its call (a clock glitch) is read as the call's own moment.
    const ret: Node = { op: i, kind: 1, time: op.ret === undefined ? Infinity : Math.max(op.ret, op.call), match: undefined, prev: undefined, next: undefined };
    call.match = ret;
    nodes.push(call, ret);
  });
  nodes.sort(byTime);
  const head: Node = { op: -1, kind: 0, time: -Infinity, match: undefined, prev: undefined, next: undefined };
  let last = head;
  for (const n of nodes) {
    last.next = n;
    n.prev = last;
    last = n;
  }
  return head;
}

/** One partition: is there a linearization? */
export function searchPartition<S, I, O>(model: Model<S, I, O>, ops: readonly Operation<I, O>[], maxSteps: number): { verdict: Verdict; steps: number } {
  const head = eventList(ops);
  let remaining = ops.filter((o) => !isPending(o)).length;
  const words = new Uint32Array(Math.ceil(ops.length / 32) || 1);
  const flip = (i: number): void => {
    words[i >>> 5] ^= 1 << (i & 31);
  };
  const seen = new Set<string>();
  const stack: { node: Node; state: S }[] = [];
  let state = model.init();
  let entry = head.next;
  let steps = 0;
  for (;;) {
    if (remaining === 0) return { verdict: 'ok', steps };
    if (++steps > maxSteps) return { verdict: 'unknown', steps };
    if (entry && entry.kind === 0) {
      const op = ops[entry.op];
      const r = model.step(state, op.input, op.output);
      if (r.ok) {
        flip(entry.op);
        const key = `${words.join(',')}|${model.key(r.state)}`;
        if (!seen.has(key)) {
          seen.add(key);
          stack.push({ node: entry, state });
          state = r.state;
          if (!isPending(op)) remaining--;
          lift(entry);
          entry = head.next;
          continue;
        }
        flip(entry.op);
      }
      entry = entry.next;
      continue;
    }
    // The return of an operation not linearized yet (or the end of the list): undo the last choice.
    const top = stack.pop();
    if (!top) return { verdict: 'violation', steps };
    state = top.state;
    flip(top.node.op);
    if (!isPending(ops[top.node.op])) remaining++;
    unlift(top.node);
    entry = top.node.next;
  }
}

/**
 * The operations of a non-linearizable partition whose outcomes the contradiction needs: each in
 * turn is weakened to "any outcome or none", and stays so when the partition is still refuted.
 */
function minimise<S, I, O>(model: Model<S, I, O>, ops: readonly Operation<I, O>[], maxSteps: number): { witness: Operation<I, O>[]; others: Operation<I, O>[]; steps: number } {
  let current = [...ops];
  let steps = 0;
  // Latest first: the contradiction usually sits among the later operations.
  for (let i = current.length - 1; i >= 0; i--) {
    if (isPending(current[i])) continue;
    const trial = current.map((o, j) => (j === i ? weakened(o) : o));
    const r = searchPartition(model, trial, maxSteps);
    steps += r.steps;
    if (r.verdict === 'violation') current = trial;
  }
  const kept = new Set(current.filter((o) => !isPending(o)).map((o) => o.id));
  return { witness: ops.filter((o) => kept.has(o.id)), others: ops.filter((o) => !kept.has(o.id)), steps };
}

/** Checks every partition of `history` against `model`. A violation wins over an unknown partition. */
export function checkLinearizable<S, I, O>(model: Model<S, I, O>, history: readonly Operation<I, O>[], o: CheckOptions = {}): CheckResult<I, O> {
  const maxSteps = o.maxSteps ?? DEFAULT_MAX_STEPS;
  let steps = 0;
  let unknown: string | undefined;
  for (const [partition, ops] of partitionsOf(model, history)) {
    const sorted = [...ops].sort((a, b) => a.call - b.call || a.id - b.id);
    const r = searchPartition(model, sorted, maxSteps);
    steps += r.steps;
    if (r.verdict === 'unknown') unknown ??= partition;
    if (r.verdict !== 'violation') continue;
    if (o.minimise === false) return { kind: 'violation', steps, partition, witness: sorted, others: [] };
    const m = minimise(model, sorted, maxSteps);
    return { kind: 'violation', steps: steps + m.steps, partition, witness: m.witness, others: m.others };
  }
  return unknown === undefined ? { kind: 'ok', steps } : { kind: 'unknown', steps, partition: unknown };
}

/**
 * A sequential specification for the checker (Porcupine's `Model`): an initial state, a step that
 * says whether an operation with its observed output is legal in a state (and the state after it),
 * and a key for memoising states. A model may also split a history into independent partitions
 * (one per key, e.g. per artifact), which the checker then checks one by one.
 *
 * Contract for unknown outcomes: `step(state, input, undefined)` must allow every effect a known
 * output could have had, except "no effect at all", which the checker provides itself by leaving
 * the operation out of the linearization.
 */
import type { Operation } from './history.ts';

export type Step<S> = { readonly ok: true; readonly state: S } | { readonly ok: false };

export interface Model<S, I, O> {
  init(): S;
  step(state: S, input: I, output: O | undefined): Step<S>;
  /** Equal keys for equal states (memoisation). */
  key(state: S): string;
  /** The partition an operation belongs to; absent: one partition for the whole history. */
  partition?(input: I): string;
}

/** Groups operations by the model's partition key, keeping their order. */
export function partitionsOf<S, I, O>(model: Model<S, I, O>, history: readonly Operation<I, O>[]): Map<string, Operation<I, O>[]> {
  const out = new Map<string, Operation<I, O>[]>();
  for (const op of history) {
    const k = model.partition ? model.partition(op.input) : '';
    let list = out.get(k);
    if (!list) out.set(k, (list = []));
    list.push(op);
  }
  return out;
}

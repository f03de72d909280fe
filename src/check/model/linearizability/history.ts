/**
 * A concurrent history as a linearizability checker reads it: operations with the moments they
 * were invoked and completed (any monotonic clock, one per history). An operation whose outcome is
 * unknown (a timeout, a 5xx) has no completion: it may have taken effect at any moment after its
 * invocation, or not at all (Porcupine gives such calls an infinite return time; here they may also
 * stay out of the linearization altogether).
 */

export interface Operation<I, O> {
  /** Unique within the history; names the operation in results and timelines. */
  readonly id: number;
  /** Who issued it (a client's operations are sequential, but the checker does not rely on that). */
  readonly client: string;
  readonly input: I;
  /** The observed output; undefined when the outcome is unknown. */
  readonly output: O | undefined;
  /** Invocation time. */
  readonly call: number;
  /** Completion time; undefined when the outcome is unknown (never seen to complete). */
  readonly ret: number | undefined;
}

/** Whether the outcome of `op` is unknown (it may or may not have taken effect). */
export const isPending = (op: Operation<unknown, unknown>): boolean => op.ret === undefined;

/** The same operation with its outcome forgotten: it may have taken effect at any moment after its call, or not at all. */
export function weakened<I, O>(op: Operation<I, O>): Operation<I, O> {
  return { ...op, output: undefined, ret: undefined };
}

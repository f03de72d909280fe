/**
 * The exit code of an error that ends a command before it could report: 4 for bad input to
 * pouchproof itself, 3 for a target that cannot be reached (exit-code.ts gives the meanings). An
 * error of neither kind is pouchproof's own trouble: it has shown nothing about the target, so it
 * could not vouch (2), rather than claim the target broke the spec (1).
 */
import { EXIT } from '../check/run/index.ts';
import { TargetUnreachableError } from '../target/connect-probe.ts';
import { UsageError } from './usage-error.ts';

/** Bad input as each command's own error classes name it (`load`'s, `serve`'s): exit 4 as a UsageError is. */
type ErrorClass = abstract new (...args: never[]) => Error;

export function exitCodeOfError(e: unknown, usageClasses: readonly ErrorClass[] = []): 2 | 3 | 4 {
  if (e instanceof TargetUnreachableError) return EXIT.unreachable;
  if (e instanceof UsageError || usageClasses.some((c) => e instanceof c)) return EXIT.configError;
  return EXIT.inconclusive;
}

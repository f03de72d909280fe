/**
 * Errors in pouchproof's own input: printed as one line, exit code 4. Apart from command.ts so the
 * library's declarations, which export it, need no yargs types.
 */
import { errorMessage } from '../spec/index.ts';

export class UsageError extends Error {}

/** Runs a parser of pouchproof's own input; whatever it throws becomes a UsageError (one line, exit 4). */
export function asUsage<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new UsageError(errorMessage(e));
  }
}

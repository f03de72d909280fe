/** Bad input to a command, of the given error classes, as one line on stderr and exit code 4; an unreachable target, exit 3. */
import { TargetUnreachableError } from '../target/connect-probe.ts';
import { exitCodeOfError } from './error-exit.ts';
import { errorMessage } from '../spec/index.ts';

type ErrorClass = abstract new (...args: never[]) => Error;

export function oneLineErrors<A>(handle: (argv: A) => Promise<number>, classes: readonly ErrorClass[]): (argv: A) => Promise<number> {
  return async (argv) => {
    try {
      return await handle(argv);
    } catch (e) {
      if (!(e instanceof TargetUnreachableError) && !classes.some((c) => e instanceof c)) throw e;
      process.stderr.write(`pouchproof: ${errorMessage(e).replace(/[\r\n]+/g, ' ')}\n`);
      return exitCodeOfError(e, classes);
    }
  };
}

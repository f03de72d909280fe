/** The shape every `pouchproof` command module has, and the error for bad input to pouchproof itself. */
import type { Argv } from 'yargs';

export interface CommandModule {
  readonly describe: string;
  builder(y: Argv): Argv;
  /** Resolves to the process exit code. */
  handler(argv: Record<string, unknown>): Promise<number>;
}

export { UsageError } from './usage-error.ts';

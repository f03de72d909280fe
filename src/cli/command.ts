/** The shape every `pouchproof` command module has, and the error for bad input to pouchproof itself. */
import type { Argv } from 'yargs';

export interface CommandModule {
  readonly describe: string;
  /** Shown under "Examples:" in `--help`: a command line and what it does. Every command has at least one. */
  readonly examples: readonly (readonly [command: string, meaning: string])[];
  builder(y: Argv): Argv;
  /** Resolves to the process exit code. */
  handler(argv: Record<string, unknown>): Promise<number>;
}

export { asUsage, UsageError } from './usage-error.ts';

/**
 * The shape every `pouchproof` command module has, and the error for bad input to pouchproof itself.
 * A command's options are typed by its own builder: the handler reads what the builder declared,
 * with the types yargs infers from it, so no handler needs a cast of its argv.
 */
import type { Argv } from 'yargs';

/** The words on the command line that are no option (yargs' `_`): the command's name, then any positional. */
export interface Words {
  readonly _?: readonly (string | number)[];
}

/** A flag's value as a handler reads it: a repeated flag's list is read, never changed. */
type Read<T> = T extends readonly (infer E)[] ? readonly E[] : T;

/**
 * What a handler reads of the options `A` its builder declared. An option that may be absent may be
 * left out altogether, as a caller other than yargs (a test, the library) leaves it; an option with a
 * default or `demandOption` is always there.
 */
export type Flags<A> = { readonly [K in keyof A as undefined extends A[K] ? K : never]?: Read<A[K]> } & {
  readonly [K in keyof A as undefined extends A[K] ? never : K]: Read<A[K]>;
} & Words;

/** The options a builder function declares, as its handler reads them. */
export type FlagsOf<B extends (y: Argv) => Argv<unknown>> = Flags<B extends (y: Argv) => Argv<infer A> ? A : never>;

/**
 * A command: its builder declares the options `A`, and its handler reads them. `CommandModule` without
 * an argument is any command, as the registry in main.ts holds them; yargs hands each handler what
 * its own builder declared, a pairing `defineCommand` ties to one `A` per module.
 */
export interface CommandModule<A = unknown> {
  readonly describe: string;
  /** Shown under "Examples:" in `--help`: a command line and what it does. Every command has at least one. */
  readonly examples: readonly (readonly [command: string, meaning: string])[];
  builder(y: Argv): Argv<A>;
  /** Resolves to the process exit code. */
  handler(argv: Flags<A>): Promise<number>;
}

/** A command whose handler reads its options as its builder typed them (`A` is inferred from the builder). */
export function defineCommand<A>(command: CommandModule<A>): CommandModule<A> {
  return command;
}

export { asUsage, UsageError } from './usage-error.ts';

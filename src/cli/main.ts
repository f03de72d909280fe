/**
 * The `pouchproof` command line. Each command lives in `commands/<name>.ts` and is loaded only when
 * invoked, so start-up stays fast and a command's dependencies never burden another's.
 */
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { UsageError, type CommandModule } from './command.ts';
import { closest } from './suggest.ts';
// Its own module, not the session's index: `--version` loads nothing else.
import { toolVersion, EXIT } from '../check/run/index.ts';
import { exitCodeOfError } from './error-exit.ts';
import { boundHeapGrowth } from './heap.ts';

export { UsageError, type CommandModule };

export const COMMANDS: Record<string, { describe: string; load: () => Promise<{ default: CommandModule }> }> = {
  start: { describe: 'the full job against the embedded reference: conformance run, then a short commit-throughput run', load: () => import('./commands/start.ts') },
  run: { describe: 'run the conformance suite against a target', load: () => import('./commands/run.ts') },
  replay: { describe: 'reproduce one finding from its replay token', load: () => import('./commands/replay.ts') },
  list: { describe: 'list every property with its section and assumptions', load: () => import('./commands/list.ts') },
  mutants: { describe: 'run the suite once per named fault of the reference and print the kill matrix', load: () => import('./commands/mutants.ts') },
  serve: { describe: 'start the embedded reference server', load: () => import('./commands/serve.ts') },
  load: { describe: 'run a load scenario', load: () => import('./commands/load.ts') },
  compare: { describe: 'the same generated cases against several targets, side by side', load: () => import('./commands/compare.ts') },
  probe: { describe: 'run reading discovery: which reading of each "not shown" of the spec a target takes (what --assume auto runs first)', load: () => import('./commands/probe.ts') },
  openapi: { describe: 'write the spec model as an OpenAPI 3.1 document', load: () => import('./commands/openapi.ts') },
  inventory: { describe: 'print the spec constraint inventory and the assumption registry', load: () => import('./commands/inventory.ts') },
};

/** Commands under another (`pouchproof load merge`), recognised when they follow their parent directly. */
const SUBCOMMANDS: Record<string, Record<string, { usage: string; load: () => Promise<{ default: CommandModule }> }>> = {
  load: {
    merge: { usage: 'merge [inputs..]', load: () => import('./commands/load-merge.ts') },
    k8s: { usage: 'k8s', load: () => import('./commands/load-k8s.ts') },
  },
};


async function dispatch(argv: string[]): Promise<number> {
  const name = argv.find((a) => !a.startsWith('-'));
  const entry = name ? COMMANDS[name] : undefined;
  if (entry && name !== 'load') boundHeapGrowth();
  let y = yargs(argv).scriptName('pouchproof').strict().help().version(false).exitProcess(false);
  let exit = 0;
  const subName = name ? argv[argv.indexOf(name) + 1] : undefined;
  const sub = name && subName ? SUBCOMMANDS[name]?.[subName] : undefined;
  if (name && entry && sub) {
    const mod = (await sub.load()).default;
    y = y.command(name, entry.describe, (b) =>
      b.command(sub.usage, mod.describe, (c) => withExamples(mod, c), async (args) => {
        exit = await mod.handler(args);
      }),
    );
  } else if (name && entry) {
    const mod = (await entry.load()).default;
    y = y.command(name, mod.describe, (b) => withExamples(mod, b), async (args) => {
      exit = await mod.handler(args);
    });
  } else {
    y = y.version('version', 'print the version of pouchproof', toolVersion()).alias('version', 'V');
    for (const [n, c] of Object.entries(COMMANDS)) y = y.command(n, c.describe);
    y = y.demandCommand(1, `name a command: ${Object.keys(COMMANDS).join(', ')} (pouchproof --help describes them)`);
  }
  let failed = false;
  try {
    await y
      .fail((msg, err) => {
        if (err && !(err instanceof UsageError)) throw err;
        // Report once, then throw (getOptions is on every yargs instance but not in its typings: hence the cast below) so yargs stops here instead of running the handler anyway.
        if (!failed) process.stderr.write(`pouchproof: ${withSuggestion(msg ?? err?.message ?? '', entry ? optionNames(y as unknown as OptionsHolder) : Object.keys(COMMANDS), !!entry)}\n`);
        failed = true;
        throw err ?? new UsageError(msg);
      })
      .parseAsync();
  } catch (err) {
    if (!failed) throw err;
  }
  return failed ? EXIT.configError : exit;
}

/** A command's options, and its examples under "Examples:" in --help. */
function withExamples(mod: CommandModule, y: Argv): Argv {
  return mod.examples.reduce((acc, [cmd, meaning]) => acc.example(cmd, meaning), mod.builder(y));
}

/** The long names of the options a command knows, as typed on the command line. */
type OptionsHolder = { getOptions(): { key: Record<string, unknown>; hiddenOptions?: string[] } };
function optionNames(y: OptionsHolder): string[] {
  // Not in yargs' typings, but on every instance: the options the command's builder declared.
  const o = y.getOptions();
  const hidden = new Set(o.hiddenOptions ?? []);
  return Object.keys(o.key).filter((k) => k.length > 1 && !hidden.has(k) && k !== '$0' && !/[A-Z]/.test(k));
}

/**
 * yargs' "Unknown argument(s): a, b" with the closest valid name for each: an unknown flag names the
 * option it most likely meant, an unknown command the command.
 */
function withSuggestion(msg: string, known: readonly string[], options: boolean): string {
  const m = /^Unknown arguments?: (.+)$/.exec(msg);
  if (!m) return msg;
  const words = m[1].split(', ');
  // yargs names a kebab-case flag twice, as typed and camel-cased: keep the spelling the user typed.
  const kebab = (w: string) => w.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const typed = words.filter((w) => !/[A-Z]/.test(w) || !words.includes(kebab(w)));
  const parts = typed.map((word) => {
    const shown = options && word.length > 1 ? `--${word}` : options ? `-${word}` : word;
    const near = closest(word, known);
    const what = options ? 'option' : 'command';
    return `unknown ${what} ${shown}${near ? ` (did you mean ${options ? '--' : ''}${near}?)` : ''}`;
  });
  return `${parts.join('; ')}; --help lists them`;
}

function endOnClosedPipe(e: NodeJS.ErrnoException): void {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
}

/** Runs the command line; sets `process.exitCode` and never throws (bin/pouchproof.js calls it). */
export async function main(argv: readonly string[] = hideBin(process.argv)): Promise<void> {
  // A reader that goes away (`pouchproof openapi | head`) ends the output, not the process with a stack trace.
  if (!process.stdout.listeners('error').includes(endOnClosedPipe)) process.stdout.on('error', endOnClosedPipe);
  try {
    process.exitCode = await dispatch([...argv]);
  } catch (err: unknown) {
    const msg = err instanceof Error ? err.message : String(err);
    process.stderr.write(`pouchproof: ${msg}\n`);
    if (process.env.POUCHPROOF_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    process.exitCode = exitCodeOfError(err);
  }
}

import { chmod, writeFile } from 'node:fs/promises';
import { makeDir } from '../../report/make-dir.ts';
import { dirname, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { defineCommand, type FlagsOf } from '../command.ts';
import { EXIT } from '../../check/run/index.ts';
import { errorCode, errorMessage, ASSUMPTIONS, type Readings } from '../../spec/index.ts';
import { FAULTS, NEMESIS_ONLY_FAULTS, READING_SITES, UNNAMED, choicesLine, faultInfo, isFaultName, keyOf, loadFixture, parseReadingArgs, readingsList, startReference, type Fixture, type ReferenceOptions, type RunningReference } from '../../reference/index.ts';

const DEFAULT_PORT = 4567;
const DEFAULT_PROFILE = 'reports/reference-profile.json';

/** The options of `serve`. */
function serveOptions(y: Argv) {
  return y
    .option('port', { type: 'number', default: DEFAULT_PORT, describe: 'port to listen on (0: any free port)' })
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on' })
    .option('fault', { type: 'string', array: true, default: [], describe: 'switch on a named fault (repeatable; see --list-faults)' })
    .option('reading', { type: 'string', array: true, default: [], describe: 'serve another reading where the spec is silent: NAME=VALUE (repeatable or comma-separated; see --list-readings)' })
    .option('fixture', { type: 'string', describe: 'JSON file with the accounts, tokens and device keys to accept (default: fresh ones)' })
    .option('profile-out', { type: 'string', default: DEFAULT_PROFILE, describe: 'where to write the generated target profile' })
    .option('list-faults', { type: 'boolean', default: false, describe: 'print the fault catalogue and exit' })
    .option('list-readings', { type: 'boolean', default: false, describe: 'print every assumption a server decides, its readings, and exit' })
    .option('unnamed', { type: 'string', array: true, default: [], describe: 'serve a choice the spec allows that no reading of the registry names (repeatable; see --list-unnamed)' })
    .option('list-unnamed', { type: 'boolean', default: false, describe: 'print the unnamed behaviours the reference can serve, and exit' });
}

/** `pouchproof serve`: the embedded reference, with a profile file the conformance run can use as is. */
const serve = defineCommand({
  describe: 'start the embedded reference server',
  examples: [
    ['pouchproof serve --port 8080', 'the embedded reference, with reports/reference-profile.json to run against it'],
    ['pouchproof serve --fault lax-pattern --reading usage-row-key=day-only', 'a faulty reference in another reading'],
  ],
  builder: serveOptions,
  async handler(argv) {
    try {
      return await run(argv);
    } catch (e) {
      if (!(e instanceof BadInput)) throw e;
      process.stderr.write(`pouchproof: ${e.message}\n`);
      return EXIT.configError;
    }
  },
});

/** pouchproof's own input is wrong: one line, exit 4. */
class BadInput extends Error {}

type ServeFlags = FlagsOf<typeof serveOptions>;

/** `--list-faults`, `--list-readings`, `--list-unnamed`: prints the catalogue asked for; false when none was. */
function printedList(argv: ServeFlags): boolean {
  if (argv['list-faults']) {
    for (const f of FAULTS) process.stdout.write(`${f.name.padEnd(32)} ${f.area.padEnd(11)} ${f.description}  [killed by: ${f.expectedKillers.join(', ')}]\n`);
    for (const f of NEMESIS_ONLY_FAULTS) process.stdout.write(`${f.name.padEnd(32)} ${f.area.padEnd(11)} ${f.description}  [killed under --nemesis by: ${f.expectedKillers.join(', ')}]\n`);
    return true;
  }
  if (argv['list-readings']) {
    for (const a of ASSUMPTIONS) {
      const site = READING_SITES[a.name];
      const mark = a.decidedBy === 'harness' ? 'harness ' : a.choices.length > 1 ? 'served  ' : 'fixed   ';
      process.stdout.write(`${mark} ${a.name.padEnd(28)} ${choicesLine(a.name)}  [${a.decidedBy === 'harness' ? 'decided by the run, not the server' : site}]\n`);
    }
    process.stdout.write('served: every choice can be switched on with --reading NAME=VALUE; fixed: one reading only; harness: how pouchproof drives the run\n');
    return true;
  }
  if (argv['list-unnamed']) {
    for (const u of UNNAMED) process.stdout.write(`${u.name.padEnd(20)} ${u.description}  [${u.allowedBy}]\n`);
    return true;
  }
  return false;
}

const isNemesisOnly = (f: string): boolean => NEMESIS_ONLY_FAULTS.some((n) => n.name === f);

/** A comma-separated, repeatable flag's values. */
const listed = (values: readonly string[]): string[] => values.flatMap((f) => f.split(',')).map((f) => f.trim()).filter(Boolean);

/** What to serve and where, from the flags: any bad value is a `BadInput`. */
async function referenceOptionsOf(argv: ServeFlags): Promise<ReferenceOptions & { port: number; faults: string[]; readings: Readings }> {
  const port = argv.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new BadInput(`--port must be an integer from 0 to 65535, not ${String(port)}`);
  const faults = listed(argv.fault);
  const unknown = faults.filter((f) => !isFaultName(f) && !isNemesisOnly(f));
  if (unknown.length > 0) throw new BadInput(`unknown fault ${unknown.map((f) => `"${f}"`).join(', ')}; run pouchproof serve --list-faults for the catalogue`);
  let readings: Readings;
  let fixture: Fixture | undefined;
  try {
    readings = parseReadingArgs(argv.reading);
    if (argv['fixture'] !== undefined) fixture = await loadFixture(argv.fixture);
  } catch (e) {
    throw new BadInput(errorMessage(e));
  }
  // A crash fault takes this process down for real, as an uncaught exception would (exit 70, EX_SOFTWARE).
  const onCrash = (): void => {
    process.stderr.write('pouchproof reference: crashed on a request (a crash fault is switched on): exiting\n');
    process.exit(70);
  };
  return { host: argv.host, port, faults, readings, unnamed: listed(argv.unnamed), onCrash, ...(fixture ? { fixture } : {}) };
}

/** Writes the profile, readable by the owner only: it holds this run's tokens and private keys. */
async function writeProfile(ref: RunningReference, profilePath: string): Promise<void> {
  try {
    await makeDir(dirname(profilePath));
    await writeFile(profilePath, JSON.stringify(ref.profile, null, 2) + '\n', { mode: 0o600 });
    await chmod(profilePath, 0o600);
  } catch (e) {
    await ref.close();
    throw new BadInput(`cannot write the profile to ${profilePath}: ${errorCode(e) ?? errorMessage(e)}`);
  }
}

/** Settles on the first SIGINT or SIGTERM; the handlers are in place when it returns. */
function untilSignalled(): Promise<void> {
  return new Promise<void>((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Where the server listens, what it serves, and the command that runs the suite against it under the right readings. */
function announce(ref: RunningReference, profilePath: string, readings: Readings, faults: readonly string[]): void {
  const active = readingsList(ref.readings).map(keyOf);
  const nemesisOnly = faults.filter(isNemesisOnly);
  // Readings a fault *is* are the defect under test: the suite is not told to assume them.
  const required: Readings = Object.assign({}, ...ref.faults.filter(isFaultName).map((f) => faultInfo(f).requires ?? {}), readings);
  const judged = readingsList(required).map(keyOf);
  process.stdout.write(
    `pouchproof reference listening on ${ref.url}\n` +
      `profile written to ${profilePath}\n` +
      (ref.faults.length > 0 ? `faults switched on: ${ref.faults.join(', ')}\n` : 'no faults switched on\n') +
      // A nemesis-only fault is not among the reference's faults (nothing shows it on a clean wire): said apart.
      (nemesisOnly.length > 0 ? `nemesis-only faults switched on (run with --nemesis to see them): ${nemesisOnly.join(', ')}\n` : '') +
      (active.length > 0 ? `readings served (registry defaults otherwise): ${active.join(', ')}\n` : 'readings served: the registry defaults\n') +
      `run the suite against it: pouchproof run --profile ${profilePath}\n` +
      (judged.length > 0 ? `  judged under these readings: pouchproof run --profile ${profilePath} ${judged.map((k) => `--assume ${k}`).join(' ')}\n` : '') +
      'stop with Ctrl-C\n',
  );
}

async function run(argv: ServeFlags): Promise<number> {
  if (printedList(argv)) return 0;
  const options = await referenceOptionsOf(argv);
  let ref: RunningReference;
  try {
    ref = await startReference(options);
  } catch (e) {
    throw new BadInput(errorMessage(e));
  }
  const profilePath = resolve(argv['profile-out']);
  await writeProfile(ref, profilePath);
  // Handlers go in before the URL is printed: whoever reads it may signal at once.
  const stopped = untilSignalled();
  announce(ref, profilePath, options.readings, options.faults);
  await stopped;
  await ref.close();
  process.stdout.write('pouchproof reference stopped\n');
  return 0;
}

export default serve;

/**
 * `npm run mutation [-- --mutate <glob>] [--no-readings] [--readings-only] [--summary]`: Stryker over the reference with the
 * pouchproof suite as the oracle (docs/mutation.md), then the score, a per-file table, the surviving
 * mutants and the ones judged equivalent (mutation/equivalent.json).
 *
 * One Stryker run per scope (each entry of the config's `mutate`, or the `--mutate` given), each
 * with its own incremental file and report, so a run stopped part-way keeps every scope it finished
 * (Stryker writes its results only at its end) and a rerun redoes only what changed.
 *
 * Per scope, two halves of the oracle (mutation/oracle.test.ts):
 * 1. default: every property under the default readings, one test per property;
 * 2. readings (skipped with --no-readings): one test per (alternative reading decided in the scope's
 *    code, property relying on it), as a second run restricted to the source ranges of the mutants
 *    the first left alive, so a mutant the default half killed is not paid for again, and per-test
 *    coverage runs only the pairs that reach a mutant. Code only an alternative reading runs is
 *    judged here. A scope where no reading is decided (store.ts, json-scan.ts) has no readings half.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { ALTERNATIVES, READING_SITES } from '../src/reference/index.ts';
import { mutantsOf, parseEquivalents, render, type Equivalent, type Report } from './summary.ts';

const CONFIG = 'stryker.config.json';
/**
 * Modules that decide no reading but hold code only an alternative reading runs, decided by their
 * callers: the store's per-revision artifact sets, global seq and rows held are read only under
 * readings of `handlers/commit.ts` and `handlers/usage.ts`; the JSON scanner's duplicate-key paths only
 * under the readings of `body.ts`. Their readings half runs the callers' readings.
 */
const READ_THROUGH: Readonly<Record<string, string>> = { 'store.ts': 'handlers/', 'json-scan.ts': 'body.ts' };
const OUT = 'reports/mutation';
const EQUIVALENTS = 'mutation/equivalent.json';

function fail(message: string): never {
  console.error(`npm run mutation: ${message}`);
  process.exit(2);
}

function readJson<T>(path: string, what: string): T {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (e) {
    return fail(`cannot read ${what} (${path}): ${(e as Error).message}`);
  }
}

type Config = Record<string, unknown> & { mutate: string[] };

/** Run Stryker on a derived config; a failure to run is fatal, a low score is not (thresholds.break is null). */
function stryker(config: Config, name: string, half: 'default' | 'readings', args: readonly string[], env: NodeJS.ProcessEnv = {}): Report {
  const report = `${OUT}/${name}.${half}.json`;
  const file = `${OUT}/stryker.${name}.${half}.json`;
  const derived = {
    ...config,
    incrementalFile: `${OUT}/incremental.${name}.${half}.json`,
    reporters: ['progress-append-only', 'html', 'json'],
    htmlReporter: { fileName: `${OUT}/${name}.${half}.html` },
    jsonReporter: { fileName: report },
  };
  writeFileSync(file, JSON.stringify(derived, null, 2));
  const r = spawnSync('npx', ['stryker', 'run', file, ...args], { stdio: 'inherit', env: { ...process.env, ...env, POUCHPROOF_MUTATION_HALF: half } });
  if (r.error) fail(`could not start Stryker: ${r.error.message}`);
  if (r.status !== 0) fail(`Stryker exited with status ${r.status ?? r.signal} on scope ${name} (${half} half); see its output above`);
  return readJson<Report>(report, `the ${half} half's report of ${name}`);
}

/** A file-safe name of a scope: `src/reference/handlers/*.ts` → `handlers`. */
const scopeName = (glob: string): string =>
  glob
    .replace(/^src\/reference\//, '')
    .replace(/(\/\*)?\.ts$|\/\*\*?.*$/, '')
    .replace(/[^A-Za-z0-9_-]+/g, '-') || 'all';

const argv = process.argv.slice(2);
const withReadings = !argv.includes('--no-readings');
/** `--readings-only`: take the default half from its last report, and run the readings half only. */
const readingsOnly = argv.includes('--readings-only');
/** `--summary`: print from the reports of the last run, without running Stryker. */
const summaryOnly = argv.includes('--summary');
const rest = argv.filter((a) => a !== '--no-readings' && a !== '--summary' && a !== '--readings-only');
if (readingsOnly && !withReadings) fail('--readings-only and --no-readings exclude each other');
const at = rest.indexOf('--mutate');
if (at >= 0 && rest[at + 1] === undefined) fail('--mutate needs a file or glob');
const scopes = at >= 0 ? [rest[at + 1]!] : null;
const common = at >= 0 ? [...rest.slice(0, at), ...rest.slice(at + 2)] : rest;

let equivalents: Equivalent[];
try {
  equivalents = existsSync(EQUIVALENTS) ? parseEquivalents(readFileSync(EQUIVALENTS, 'utf8')) : [];
} catch (e) {
  fail((e as Error).message);
}

const base = readJson<Config>(CONFIG, 'the Stryker config');
mkdirSync(OUT, { recursive: true });
const merged: { files: Record<string, Report['files'][string]> } = { files: {} };
const second: { files: Record<string, Report['files'][string]> } = { files: {} };
for (const scope of scopes ?? base.mutate) {
  const name = scopeName(scope);
  if (summaryOnly) {
    if (!existsSync(`${OUT}/${name}.default.json`)) {
      console.log(`== ${scope}: not measured (no ${OUT}/${name}.default.json)`);
      continue;
    }
    Object.assign(merged.files, readJson<Report>(`${OUT}/${name}.default.json`, 'a report').files);
    if (withReadings && existsSync(`${OUT}/${name}.readings.json`)) Object.assign(second.files, readJson<Report>(`${OUT}/${name}.readings.json`, 'a report').files);
    continue;
  }
  let first: Report;
  if (readingsOnly) {
    console.log(`\n== ${scope}: the default half, from ${OUT}/${name}.default.json`);
    first = readJson<Report>(`${OUT}/${name}.default.json`, 'the default half\'s last report (run it first)');
  } else {
    console.log(`\n== ${scope}: the default half`);
    first = stryker({ ...base, mutate: [scope] }, name, 'default', common);
  }
  Object.assign(merged.files, first.files);
  if (!withReadings) continue;
  const ranges = [
    ...new Set(
      Object.entries(first.files).flatMap(([file, f]) =>
        // The report's columns count from 1, a mutate range's from 0 (as Babel's): each range is
        // exactly a live mutant's node, so a mutant the default half killed on the same line is not
        // paid for again (on commit.ts, whole lines were 270 mutants for 155 alive).
        f.mutants
          .filter((m) => (m.status === 'Survived' || m.status === 'NoCoverage') && m.static !== true)
          .map((m) => `${file}:${m.location.start.line}:${m.location.start.column - 1}-${m.location.end.line}:${m.location.end.column - 1}`),
      ),
    ),
  ];
  if (ranges.length === 0) continue;
  // The readings decided in this scope's code (READING_SITES names files relative to src/reference/),
  // or, for a module that decides none, in the code that calls it (READ_THROUGH).
  const own = scope.replace(/^src\/reference\//, '').replace(/:[0-9:-]+$/, '').replace(/\*\.ts$/, '');
  const sites = READ_THROUGH[own] ?? own;
  if (!ALTERNATIVES.some((r) => READING_SITES[r.name].includes(sites))) {
    console.log(`\n== ${scope}: no reading is decided here; the readings half is skipped`);
    continue;
  }
  console.log(`\n== ${scope}: the readings half, over the ${ranges.length} range(s) of mutants the default half left alive`);
  Object.assign(second.files, stryker({ ...base, mutate: ranges }, name, 'readings', common, { POUCHPROOF_MUTATION_SITES: sites }).files);
}
console.log(`\n${render(mutantsOf(merged, withReadings ? second : undefined, equivalents), equivalents, withReadings)}`);

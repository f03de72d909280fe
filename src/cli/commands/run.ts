/**
 * `pouchproof run`: the conformance suite against a profile, a bare URL, or (with neither) the
 * embedded reference on an ephemeral port. A thin shell over the session (src/session/): its flags
 * spelt out, the console view, Ctrl-C, and the reports, which are written whatever the run's end.
 */
import type { Argv } from 'yargs';
import { DEFAULT_RUNS, FAIL_ON_KINDS, type RunResult } from '../../check/run/index.ts';
import { ConsoleView } from '../../report/console.ts';
import { toReportJson } from '../../report/report-json.ts';
import { REPORT_FORMATS, type ReportFormat } from '../../report/write.ts';
import { redact } from '../../target/redact.ts';
import { DEFAULT_EXAMPLES_DIR, DEFAULT_PROPERTIES_AT_ONCE, DEFAULT_REPORT_DIR, MAX_CONCURRENCY_FLAG, MAX_FAILURES_FLAG, MAX_PROPERTIES_AT_ONCE, MAX_PER_PROPERTY_MS, MAX_PER_REQUEST_MS, MAX_RUNS, assertReportDir, processExitCode, runSession, saveReport, type ReadyTarget, type SessionOptions } from '../../session/index.ts';
import { nothingChecked } from '../../check/run/index.ts';
import { numberOption, parseAssumeMode, parseExamples, parseExclude, parseFailOn, parseMaxDuration, parseOnly, parsePositive, parseNemesisFlag, parseRate, parseReportFormats, parseSeed, targetFromArgs } from '../args.ts';
import { defineCommand, type FlagsOf } from '../command.ts';
import { DEFAULT_CASE_CONCURRENCY } from '../../target/profile.ts';
import { interruptible } from '../interrupt.ts';
import { referenceOption } from '../ci.ts';
import { REFERENCE_TARGET } from '../../target/resolve.ts';

/** The options `run` and `start` share. */
export function suiteOptions<T>(y: Argv<T>) {
  return y
    .option('seed', numberOption('seed for every generator (default: random, printed)'))
    .option('runs', numberOption(`cases per property (default ${DEFAULT_RUNS}; some properties run fewer)`))
    .option('only', { type: 'string', array: true, describe: 'property id globs, e.g. usage.* (repeatable or comma-separated)' })
    .option('exclude', { type: 'string', array: true, describe: 'property id globs to leave out, after --only (repeatable or comma-separated)' })
    .option('max-failures', numberOption('stop after N failing properties; those not begun are listed as not run (default: no stop)'))
    .option('shrink', { type: 'boolean', default: true, describe: 'shrink counterexamples (--no-shrink: report each as found, faster)' })
    .option('examples', { type: 'string', describe: `the example database: failing cases stored under DIR/<target>/ and re-run first next time (default ${DEFAULT_EXAMPLES_DIR}; --no-examples: off)` })
    .option('report-dir', { type: 'string', default: DEFAULT_REPORT_DIR, describe: 'where reports/<run-id>/ and reports/latest go' })
    .option('assume', { type: 'string', array: true, describe: 'readings of what the spec does not show: auto (default: probe the target first), defaults (the registry\'s), or NAME=VALUE (repeatable; fixed whatever auto finds)' })
    .option('per-request-ms', numberOption('time bound of one request (default: the profile\'s timeouts.requestMs)'))
    .option('per-property-ms', numberOption('time bound of one property (default 30000)'))
    .option('max-duration', { type: 'string', requiresArg: true, describe: 'overall time budget of the run, e.g. 90s or 10m (default 10m): shared out over the properties left; what it leaves uncovered is listed' })
    .option('concurrency', numberOption(`cases in flight at once (default: the profile's connections, or ${DEFAULT_CASE_CONCURRENCY}): hides a network's latency`))
    .option('properties-at-once', numberOption(`properties in flight at once among those whose state is all fresh (default ${DEFAULT_PROPERTIES_AT_ONCE}; 1: each alone, in order): hides the round trips of each property's longest ordered case`))
    .option('nemesis', { type: 'string', requiresArg: true, describe: 'faults on pouchproof\'s own connections, seeded, with retries after no answer, e.g. lose-response=2%,reset-mid-request=1% (docs/nemesis.md)' })
    .option('rate-limit', { type: 'string', requiresArg: true, describe: 'requests per second at most, e.g. 50/s (default: none until the target throttles; 429s are waited out either way)' })
    .option('fail-on', { type: 'string', array: true, describe: `also fail the run (exit 1) on findings of these kinds, reported apart otherwise: ${FAIL_ON_KINDS.join(', ')}` })
    .option('report', { type: 'string', array: true, describe: `report formats to write (repeatable or comma-separated): ${REPORT_FORMATS.join(', ')} (default: all)` })
    .option('json', { type: 'boolean', default: false, describe: 'print report.json to stdout and every console line to stderr (pouchproof run --json | jq .exitCode)' });
}

export interface ParsedSuiteArgs {
  readonly session: SessionOptions;
  readonly reportDir: string;
  /** The report formats to write (absent: all). */
  readonly reports?: readonly ReportFormat[];
  /** report.json to stdout, the console to stderr. */
  readonly json?: boolean;
}

/** The suite's flags as yargs reads them; a flag left out takes the session's default. */
// biome-ignore lint/complexity/noBannedTypes: yargs' own type for a builder that adds to no options yet is `{}`
export type SuiteFlags = Partial<FlagsOf<typeof suiteOptions<{}>>>;

export function parseSuiteArgs(argv: SuiteFlags): ParsedSuiteArgs {
  const perRequestMs = parsePositive('per-request-ms', argv['per-request-ms'], undefined, MAX_PER_REQUEST_MS);
  const perPropertyMs = parsePositive('per-property-ms', argv['per-property-ms'], undefined, MAX_PER_PROPERTY_MS);
  const concurrency = parsePositive('concurrency', argv['concurrency'], undefined, MAX_CONCURRENCY_FLAG);
  const propertiesAtOnce = parsePositive('properties-at-once', argv['properties-at-once'], undefined, MAX_PROPERTIES_AT_ONCE);
  const rateLimitPerSecond = parseRate(argv['rate-limit']);
  const only = parseOnly(argv.only);
  const exclude = parseExclude(argv.exclude);
  const maxFailures = parsePositive('max-failures', argv['max-failures'], undefined, MAX_FAILURES_FLAG);
  const examplesDir = parseExamples(argv.examples);
  const failOn = parseFailOn(argv['fail-on']);
  const reports = parseReportFormats(argv.report);
  const nemesis = parseNemesisFlag(argv.nemesis);
  return {
    ...(reports ? { reports } : {}),
    ...(argv.json === true ? { json: true } : {}),
    session: {
      readings: parseAssumeMode(argv.assume, 'auto'),
      seed: parseSeed(argv.seed),
      runs: parsePositive('runs', argv.runs, DEFAULT_RUNS, MAX_RUNS),
      ...(only ? { only } : {}),
      ...(exclude ? { exclude } : {}),
      ...(maxFailures !== undefined ? { maxFailures } : {}),
      ...(argv.shrink === false ? { shrink: false } : {}),
      ...(examplesDir !== undefined ? { examplesDir } : {}),
      ...(perRequestMs ? { perRequestMs } : {}),
      ...(perPropertyMs ? { perPropertyMs } : {}),
      maxDurationMs: parseMaxDuration(argv['max-duration']),
      ...(failOn ? { failOn } : {}),
      ...(concurrency ? { concurrency } : {}),
      ...(propertiesAtOnce ? { propertiesAtOnce } : {}),
      ...(rateLimitPerSecond !== undefined ? { rateLimitPerSecond } : {}),
      ...(nemesis !== undefined ? { nemesis } : {}),
    },
    reportDir: typeof argv['report-dir'] === 'string' && argv['report-dir'] !== '' ? argv['report-dir'] : DEFAULT_REPORT_DIR,
  };
}

/** Runs the session with a console view and writes the reports (whatever the run's end); resolves to the process's exit code. */
export async function runAndReport(
  target: ReadyTarget,
  a: ParsedSuiteArgs,
  after?: (run: RunResult, signal: AbortSignal, view: ConsoleView) => Promise<{ load?: unknown; files?: Record<string, string> } | undefined>,
): Promise<number> {
  // Under --json, stdout is the report's alone: every console line goes to stderr.
  const view = new ConsoleView({ out: a.json ? process.stderr : process.stdout });
  await assertReportDir(a.reportDir);
  const intr = interruptible();
  try {
    const { run, report, profile, files, unreachable } = await runSession(target, a.session, {
      line: (l) => view.line(l),
      onProgress: view.onProgress,
      signal: intr.signal,
      ...(after ? { after: (r: RunResult) => after(r, intr.signal, view) } : {}),
    });
    let written: Awaited<ReturnType<typeof saveReport>>;
    try {
      written = await saveReport(a.reportDir, report, profile.secrets, files, a.reports);
    } catch (e) {
      view.summary(report);
      throw e;
    }
    view.summary(report, written.dir);
    if (a.json) process.stdout.write(redact(toReportJson(report), profile.secrets));
    if (unreachable) process.stderr.write(`pouchproof: ${unreachable}\n`);
    // A green exit for a run that checked nothing would let a misconfigured CI job pass forever.
    const nothing = nothingChecked(run.results);
    if (nothing) process.stderr.write(`pouchproof: ${nothing}\n`);
    return processExitCode(report);
  } finally {
    intr.dispose();
  }
}

const run = defineCommand({
  describe: 'run the conformance suite against a target (none given: the embedded reference, refused under CI)',
  examples: [
    ['pouchproof run --reference', 'the whole suite against the embedded reference (without a target too, except under CI)'],
    ["pouchproof run --profile staging.json --seed 42 --only 'commits.*' --report-dir out", 'commit properties against staging, reproducibly'],
  ],
  builder: (y) =>
    suiteOptions(
      referenceOption(
        y
          .option('profile', { type: 'string', describe: 'target profile JSON file' })
          .option('target', { type: 'string', describe: `base URL of a target without credentials (properties needing them are skipped), or ${REFERENCE_TARGET}` }),
      ),
    ),
  async handler(argv) {
    const parsed = parseSuiteArgs(argv);
    const target = await targetFromArgs('run', argv);
    try {
      return await runAndReport(target, parsed);
    } finally {
      await target.close();
    }
  },
});
export default run;

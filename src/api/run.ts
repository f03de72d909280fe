/**
 * `run(options)`: the conformance suite as a library call. The same session as `pouchproof run`
 * (src/session/), with typed options checked by the same rules; it never exits the process and
 * writes nothing to the console unless given `log`, and writes report files only under `reportDir`.
 */
import type { Property } from '../check/property.ts';
import { DEFAULT_RUNS, type FailOnKind, type ProgressEvent } from '../check/run/index.ts';
import type { Report } from '../report/report-json.ts';
import type { ReportFormat } from '../report/write.ts';
import {
  checkExamplesDir,
  checkFailOn,
  checkGlobs,
  checkMaxDuration,
  checkPositive,
  checkRate,
  checkReportFormats,
  checkSeed,
  DEFAULT_MAX_DURATION_MS,
  drawSeed,
  MAX_CONCURRENCY_FLAG,
  MAX_FAILURES_FLAG,
  MAX_PROPERTIES_AT_ONCE,
  MAX_PER_PROPERTY_MS,
  MAX_PER_REQUEST_MS,
  MAX_RUNS,
  openTarget,
  runSession,
  saveReport,
  assertReportDir,
  type SessionOptions,
  type TargetOptions,
} from '../session/index.ts';
import type { ReadingsMode } from '../spec/index.ts';

export interface RunOptions extends TargetOptions {
  /** Seed of every generator (default: random; the report has it). */
  readonly seed?: number;
  /** Cases per property (default 25; some properties run fewer). */
  readonly runs?: number;
  /** Property id globs, e.g. `usage.*`. */
  readonly only?: readonly string[];
  /** Property id globs left out, after `only` (`--exclude`). */
  readonly exclude?: readonly string[];
  /** Stop after this many failing properties; those not begun are listed in `report.stopped` (`--max-failures`). */
  readonly maxFailures?: number;
  /** False: counterexamples reported as found, unshrunk (`--no-shrink`). Default true. */
  readonly shrink?: boolean;
  /**
   * The example database's directory (`--examples`): failing cases are stored under `<dir>/<target>/`
   * and re-run first by the next run against the same target (`report.examples`). Default none: the
   * library writes nothing outside `reportDir` unless asked (the CLI's default is `.pouchproof/examples`).
   */
  readonly examples?: string;
  /** `auto` (default): probe the target's readings of what the spec does not show first; `defaults`: the registry's. */
  readonly readings?: ReadingsMode;
  /** The whole run's time budget (default 10 minutes). */
  readonly maxDurationMs?: number;
  readonly perRequestMs?: number;
  readonly perPropertyMs?: number;
  /** Cases in flight at once (default: the profile's connections, or 48; at most 1024). */
  readonly concurrency?: number;
  /** Properties in flight at once among those whose state is all fresh (default 4; 1: each alone, in the selection's order). */
  readonly propertiesAtOnce?: number;
  /** Requests per second at most from the start; throttling (429) is waited out either way. */
  readonly rateLimitPerSecond?: number;
  /** Kinds of finding that also fail the run (its `exitCode`). */
  readonly failOn?: readonly FailOnKind[];
  /** The properties to run: the catalogue (`properties`), your own (`defineProperty`), or both. Default: the catalogue. */
  readonly properties?: readonly Property[];
  /** Also write the report files (report.json, junit.xml, summary.md…) under `<reportDir>/<run-id>/` and `<reportDir>/latest`. */
  readonly reportDir?: string;
  /** The report formats written under `reportDir` (default: all): `json`, `junit`, `html`, `md`, `har`, as `--report` names them. */
  readonly reports?: readonly ReportFormat[];
  /** Stops the run after the requests in flight; the report is then partial (`interrupted`). */
  readonly signal?: AbortSignal;
  readonly onProgress?: (e: ProgressEvent) => void;
  /** Where the run's few lines (readings found, target and seed) go; default nowhere. */
  readonly log?: (line: string) => void;
}

/** The session's options from the library's, checked by the same rules as the flags (a bad one is a one-line `UsageError`). */
export function sessionOptions(o: RunOptions): SessionOptions {
  return {
    seed: o.seed === undefined ? drawSeed() : checkSeed(o.seed, 'seed'),
    runs: o.runs === undefined ? DEFAULT_RUNS : checkPositive('runs', o.runs, MAX_RUNS),
    ...(o.only?.length ? { only: [...o.only] } : {}),
    ...(o.exclude?.length ? { exclude: checkGlobs('exclude', o.exclude) } : {}),
    ...(o.maxFailures !== undefined ? { maxFailures: checkPositive('max-failures', o.maxFailures, MAX_FAILURES_FLAG) } : {}),
    ...(o.shrink === false ? { shrink: false } : {}),
    ...(o.examples !== undefined ? { examplesDir: checkExamplesDir(o.examples) } : {}),
    readings: o.readings ?? 'auto',
    maxDurationMs: o.maxDurationMs === undefined ? DEFAULT_MAX_DURATION_MS : checkMaxDuration(o.maxDurationMs),
    ...(o.perRequestMs !== undefined ? { perRequestMs: checkPositive('per-request-ms', o.perRequestMs, MAX_PER_REQUEST_MS) } : {}),
    ...(o.perPropertyMs !== undefined ? { perPropertyMs: checkPositive('per-property-ms', o.perPropertyMs, MAX_PER_PROPERTY_MS) } : {}),
    ...(o.concurrency !== undefined ? { concurrency: checkPositive('concurrency', o.concurrency, MAX_CONCURRENCY_FLAG) } : {}),
    ...(o.propertiesAtOnce !== undefined ? { propertiesAtOnce: checkPositive('properties-at-once', o.propertiesAtOnce, MAX_PROPERTIES_AT_ONCE) } : {}),
    ...(o.rateLimitPerSecond !== undefined ? { rateLimitPerSecond: checkRate(o.rateLimitPerSecond) } : {}),
    ...(o.failOn?.length ? { failOn: checkFailOn(o.failOn) } : {}),
    ...(o.properties ? { properties: o.properties } : {}),
  };
}

/** Runs the conformance suite and resolves to its report (`report.exitCode`: 0 passed, 1 the target broke the spec, 2 something could not be vouched for, 3 the target could not be reached or stopped answering; bad options throw a `UsageError`, the CLI's 4). */
export async function run(options: RunOptions = {}): Promise<Report> {
  const session = sessionOptions(options);
  const formats = options.reports === undefined ? undefined : checkReportFormats(options.reports);
  if (options.reportDir !== undefined) await assertReportDir(options.reportDir);
  const target = await openTarget(options);
  try {
    const { report, profile, files } = await runSession(target, session, {
      line: options.log ?? (() => undefined),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (options.reportDir !== undefined) await saveReport(options.reportDir, report, profile.secrets, files, formats);
    return report;
  } finally {
    await target.close();
  }
}

/**
 * `run(options)`: the conformance suite as a library call. The same probe, suite and report as
 * `pouchproof run`, with typed options instead of flags; it never exits the process and writes
 * nothing to the console unless given `log`, and writes report files only under `reportDir`.
 */
import type { FailOnKind, ProgressEvent } from '../check/runner.ts';
import { conformance, parseSuiteArgs, saveReport } from '../cli/commands/run.ts';
import type { Report } from '../report/report-json.ts';
import type { ReadingsMode } from '../spec/index.ts';
import { openTarget, type TargetOptions } from './target.ts';

export interface RunOptions extends TargetOptions {
  /** Seed of every generator (default: random; the report has it). */
  readonly seed?: number;
  /** Cases per property (default 25; some properties run fewer). */
  readonly runs?: number;
  /** Property id globs, e.g. `usage.*`. */
  readonly only?: readonly string[];
  /** `auto` (default): probe the target's readings of what the spec does not show first; `defaults`: the registry's. */
  readonly readings?: ReadingsMode;
  /** The whole run's time budget (default 10 minutes). */
  readonly maxDurationMs?: number;
  readonly perRequestMs?: number;
  readonly perPropertyMs?: number;
  /** Kinds of finding that also fail the run (its `exitCode`). */
  readonly failOn?: readonly FailOnKind[];
  /** Also write the report files (report.json, junit.xml, summary.md…) under `<reportDir>/<run-id>/` and `<reportDir>/latest`. */
  readonly reportDir?: string;
  /** Stops the run after the requests in flight; the report is then partial (`interrupted`). */
  readonly signal?: AbortSignal;
  readonly onProgress?: (e: ProgressEvent) => void;
  /** Where the run's few lines (readings found, target and seed) go; default nowhere. */
  readonly log?: (line: string) => void;
}

/** The flag spelling of the suite's options, so the CLI's validation (and its one-line messages) apply unchanged. */
function asArgv(o: RunOptions): Record<string, unknown> {
  const set = <T>(v: T | undefined, f: (x: T) => unknown): unknown => (v === undefined ? undefined : f(v));
  return {
    seed: set(o.seed, String),
    runs: set(o.runs, String),
    only: o.only ? [...o.only] : undefined,
    assume: [o.readings ?? 'auto'],
    'max-duration': set(o.maxDurationMs, (ms) => `${ms}ms`),
    'per-request-ms': set(o.perRequestMs, String),
    'per-property-ms': set(o.perPropertyMs, String),
    'fail-on': o.failOn?.length ? [...o.failOn] : undefined,
  };
}

/** Runs the conformance suite and resolves to its report (`report.exitCode`: 0 passed, 1 the target broke the spec, 2 nothing vouched for). */
export async function run(options: RunOptions = {}): Promise<Report> {
  const parsed = parseSuiteArgs(asArgv(options));
  const target = await openTarget(options);
  try {
    const { report, profile, files } = await conformance(target, parsed, {
      line: options.log ?? (() => undefined),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (options.reportDir !== undefined) await saveReport(options.reportDir, report, profile.secrets, files);
    return report;
  } finally {
    await target.close();
  }
}

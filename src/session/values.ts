/**
 * The session's options, checked once for every entry (the CLI after parsing its flags, the library
 * and the vitest entry as given): each bound and default lives here, and each problem is one line.
 */
import { randomInt } from 'node:crypto';
import { DEFAULT_RUNS, FAIL_ON_KINDS, type FailOnKind } from '../check/run/index.ts';
import { REPORT_FORMATS, type ReportFormat } from '../report/write.ts';
import { UsageError } from './usage-error.ts';

/** `--max-duration` when none is given: a run that fits a CI job's step (probe, properties, reports). */
export const DEFAULT_MAX_DURATION_MS = 10 * 60_000;
export const MAX_DURATION_BOUNDS = { minMs: 1000, maxMs: 24 * 3_600_000 } as const;
export const MAX_RUNS = 100_000;
export const MAX_PER_REQUEST_MS = 600_000;
export const MAX_PER_PROPERTY_MS = 3_600_000;
/** Requests per second `--rate-limit` may ask for. */
export const MAX_RATE = 1_000_000;
/** Cases in flight `--concurrency` may ask for (the runner keeps it within the profile's connections). */
export const MAX_CONCURRENCY_FLAG = 1024;
/**
 * Properties in flight at once by default, among those whose state is all fresh (src/check/run/schedule.ts):
 * over a 30 ms round trip, four hide most of the round trips of each property's longest ordered case
 * (`npm run bench latency`), while each property still gets most of its time bound's worth of the target.
 */
export const DEFAULT_PROPERTIES_AT_ONCE = 4;
export const MAX_PROPERTIES_AT_ONCE = 64;
/** `--max-failures` at most: more than the catalogue has properties means no stop at all, which is the default. */
export const MAX_FAILURES_FLAG = 10_000;

/** A seed for a run that was given none: drawn here, once, and written in every report. */
export function drawSeed(): number {
  return randomInt(0, 2 ** 31 - 1);
}

export function checkSeed(n: number, what = '--seed'): number {
  if (!Number.isSafeInteger(n) || n < -(2 ** 31) || n >= 2 ** 31) throw new UsageError(`${what} must be an integer between ${-(2 ** 31)} and ${2 ** 31 - 1}, got ${String(n)}`);
  return n;
}

/** An integer from 1 to `max`, named by its flag in the message. */
export function checkPositive(name: string, n: number, max: number): number {
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`--${name} must be an integer from 1 to ${max}, got ${String(n)}`);
  return n;
}

export function checkMaxDuration(ms: number, text = `${ms}ms`): number {
  if (!Number.isFinite(ms) || ms < MAX_DURATION_BOUNDS.minMs || ms > MAX_DURATION_BOUNDS.maxMs) throw new UsageError(`--max-duration must be from 1s to 1440m, got ${text}`);
  return ms;
}

export function checkRate(perSecond: number, text = String(perSecond)): number {
  if (!Number.isFinite(perSecond) || perSecond <= 0 || perSecond > MAX_RATE) throw new UsageError(`--rate-limit must be a rate above 0 and at most ${MAX_RATE}/s, e.g. 50/s, got ${text}`);
  return perSecond;
}

const isFailOnKind = (w: string): w is FailOnKind => FAIL_ON_KINDS.some((k) => k === w);
const isReportFormat = (f: string): f is ReportFormat => REPORT_FORMATS.some((k) => k === f);

export function checkFailOn(kinds: readonly string[], text = kinds.join(',')): FailOnKind[] {
  const bad = kinds.filter((w) => !isFailOnKind(w));
  if (bad.length || kinds.length === 0) throw new UsageError(`--fail-on expects ${FAIL_ON_KINDS.join(', ')}; got "${bad.join(',') || text}"`);
  return [...new Set(kinds.filter(isFailOnKind))];
}

/** Report formats as asked (`--report json,junit`, or the library's `reports`): each a known one, at least one. */
export function checkReportFormats(formats: readonly string[], text = formats.join(',')): ReportFormat[] {
  const bad = formats.filter((f) => !isReportFormat(f));
  if (bad.length || formats.length === 0) throw new UsageError(`--report: unknown format "${bad.join(',') || text}"; the formats are ${REPORT_FORMATS.join(', ')} (default: all)`);
  return [...new Set(formats.filter(isReportFormat))];
}

export { DEFAULT_RUNS };

/** `--exclude` and `only`-like globs: a list of non-empty words (an empty list says nothing). */
export function checkGlobs(name: string, globs: readonly unknown[]): string[] {
  const bad = globs.find((g) => typeof g !== 'string' || g.trim() === '' || /\s/.test(g.trim()));
  if (bad !== undefined) throw new UsageError(`--${name} expects property id globs, e.g. usage.* or 'commits.**', got ${JSON.stringify(bad)}`);
  return globs.filter((g) => typeof g === 'string').map((g) => g.trim());
}

/** The example database's directory: a path, not an empty word. */
export function checkExamplesDir(dir: unknown): string {
  if (typeof dir !== 'string' || dir.trim() === '') throw new UsageError('--examples expects a directory (or --no-examples to turn the example database off)');
  return dir;
}

/** A session's report, built and written the same way for every entry. */
import type { Property } from '../check/property.ts';
import { type FailOnKind, type RunResult, toolVersion } from '../check/run/index.ts';
import { buildReport, type Report } from '../report/report-json.ts';
import { checkReportDir, writeReports, type ReportFormat, type WrittenReports } from '../report/write.ts';
import type { Profile } from '../target/profile.ts';
import type { ReadyTarget } from './target.ts';
import { UsageError } from './usage-error.ts';
import { errorCode, errorMessage } from '../spec/index.ts';

export const DEFAULT_REPORT_DIR = 'reports';

export interface ReportInputs {
  readonly target: ReadyTarget;
  readonly profile: Profile;
  readonly props: readonly Property[];
  readonly runs: number;
  readonly only?: readonly string[];
  readonly exclude?: readonly string[];
  readonly maxFailures?: number;
  readonly shrink?: boolean;
  readonly perRequestMs?: number;
  readonly perPropertyMs?: number;
  readonly maxDurationMs?: number;
  readonly failOn?: readonly FailOnKind[];
}

export function reportOf(a: ReportInputs, run: RunResult, more: { load?: unknown; mutants?: unknown; readings?: unknown } = {}): Report {
  return buildReport(run, {
    version: toolVersion(),
    targetName: a.profile.name,
    embedded: a.target.embedded,
    ...(a.target.reference?.faults.length ? { faults: a.target.reference.faults } : {}),
    runs: a.runs,
    ...(a.only ? { only: a.only } : {}),
    ...(a.exclude?.length ? { exclude: a.exclude } : {}),
    ...(a.maxFailures !== undefined ? { maxFailures: a.maxFailures } : {}),
    ...(a.shrink === false ? { shrink: false } : {}),
    ...(a.perRequestMs !== undefined ? { perRequestMs: a.perRequestMs } : {}),
    ...(a.perPropertyMs !== undefined ? { perPropertyMs: a.perPropertyMs } : {}),
    ...(a.maxDurationMs !== undefined ? { maxDurationMs: a.maxDurationMs } : {}),
    ...(a.failOn?.length ? { failOn: a.failOn } : {}),
    assumptions: a.profile.assumptions,
    properties: a.props,
    secrets: a.profile.secrets,
    ...more,
  });
}

/**
 * Checks, before the run sends anything, that its reports can be written under `reportDir`: a typo
 * or a read-only directory is a usage error at once, not the loss of a whole run's reports at its end.
 */
export async function assertReportDir(reportDir: string): Promise<void> {
  await checkReportDir(reportDir).catch((e: unknown) => {
    throw unwritable(reportDir, e);
  });
}

const unwritable = (reportDir: string, e: unknown) => new UsageError(`cannot write the reports to ${reportDir}: ${errorCode(e) ?? errorMessage(e)}`);

/** Writes the report files of the formats asked (default: all) under `reportDir`. */
export async function saveReport(reportDir: string, report: Report, secrets: readonly string[], extra: Record<string, string> = {}, formats?: readonly ReportFormat[]): Promise<WrittenReports> {
  try {
    return await writeReports(reportDir, report, secrets, extra, formats);
  } catch (e) {
    throw unwritable(reportDir, e);
  }
}

/** The process's exit code for a session's report: the report's own, or 130 when the session was interrupted (the report says what it did). */
export function processExitCode(report: Pick<Report, 'exitCode' | 'interrupted'>): number {
  return report.interrupted ? 130 : report.exitCode;
}

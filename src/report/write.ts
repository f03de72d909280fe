/**
 * Writes a run's reports to `<root>/<run-id>/` and points `<root>/latest` at them. Files are
 * written into a temporary directory that is renamed into place, so a reader (or a crash) never
 * sees a half-written report; `latest` is a symlink, or a copy where symlinks are not allowed.
 */
import { cp, mkdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makeDir } from './make-dir.ts';
import { redact } from '../target/redact.ts';
import { toCoverageMarkdown } from './coverage-md.ts';
import { toHar } from './har.ts';
import { toJunit } from './junit.ts';
import { toReportHtml } from './report-html.ts';
import { toReportJson, type Report } from './report-json.ts';
import { toSummaryMarkdown } from './summary-md.ts';

export interface WrittenReports {
  readonly dir: string;
  readonly latest: string;
  readonly files: readonly string[];
}

/** The report formats a run can be asked for (`--report`, the library's `reports`), each a kind of file. */
export const REPORT_FORMATS = ['json', 'junit', 'html', 'md', 'har'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** The format a report file is of, by its extension; a file of none of them (a load run's `.hlog`, the `histories/` folder) goes with every choice. */
function formatOfFile(name: string): ReportFormat | undefined {
  // The recorded histories go with every choice: they are the run's evidence for other checkers, not a report format.
  if (name.startsWith('histories/')) return undefined;
  const ext = name.slice(name.lastIndexOf('.') + 1);
  switch (ext) {
    case 'json':
    case 'html':
    case 'md':
    case 'har':
      return ext;
    case 'xml':
      return 'junit';
    default:
      return undefined;
  }
}

/** The files of `files` in one of `formats` (all of them when none are named). */
export function filesOfFormats(files: Readonly<Record<string, string>>, formats: readonly ReportFormat[] = REPORT_FORMATS): Record<string, string> {
  return Object.fromEntries(Object.entries(files).filter(([name]) => {
    const f = formatOfFile(name);
    return f === undefined || formats.includes(f);
  }));
}

/** A report file's text, or how to render it when it is written. */
type FileText = string | (() => string);

/**
 * The standard files of a run as renderers, each called when its file is written: a run with hundreds
 * of findings renders megabytes per format, and rendered one at a time they are never all held at once.
 */
function reportRenderers(report: Report, formats: readonly ReportFormat[]): Record<string, () => string> {
  const want = (f: ReportFormat) => formats.includes(f);
  const coverage = want('md') ? toCoverageMarkdown(report) : undefined;
  return {
    ...(want('json') ? { 'report.json': () => toReportJson(report) } : {}),
    ...(want('junit') ? { 'junit.xml': () => toJunit(report) } : {}),
    ...(want('md') ? { 'summary.md': () => toSummaryMarkdown(report) } : {}),
    ...(want('html') ? { 'report.html': () => toReportHtml(report) } : {}),
    ...(want('har') ? { 'findings.har': () => toHar(report) } : {}),
    ...(coverage ? { 'coverage.md': () => coverage } : {}),
  };
}

/** The standard files of a run (and `coverage.md` when a coverage phase ran), of the formats asked (default: all). */
export function reportFiles(report: Report, formats: readonly ReportFormat[] = REPORT_FORMATS): Record<string, string> {
  return Object.fromEntries(Object.entries(reportRenderers(report, formats)).map(([name, render]) => [name, render()]));
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(() => true, () => false);
}

/** A file of the report directory, or of a folder in it (`histories/…`): never outside it, never hidden. */
function safeName(name: string): boolean {
  return !name.includes('\\') && name.split('/').every((part) => part !== '' && !part.startsWith('.'));
}

/** Whether reports can be written under `root`: made if missing, and a file written and removed there; throws what stops it. */
export async function checkReportDir(root: string): Promise<void> {
  await makeDir(root);
  const probe = join(root, `.probe-${process.pid}-${Date.now()}`);
  await writeFile(probe, '', 'utf8');
  await rm(probe, { force: true });
}

export async function writeReportDir(root: string, runId: string, files: Readonly<Record<string, FileText>>, secrets: readonly string[]): Promise<WrittenReports> {
  await makeDir(root);
  const tmp = join(root, `.tmp-${runId}-${process.pid}-${Date.now()}`);
  await mkdir(tmp);
  try {
    for (const [name, text] of Object.entries(files)) {
      if (!safeName(name)) throw new Error(`bad report file name ${name}`);
      await mkdir(dirname(join(tmp, name)), { recursive: true });
      await writeFile(join(tmp, name), redact(typeof text === 'string' ? text : text(), secrets), 'utf8');
    }
    let name = runId;
    for (let n = 2; (await exists(join(root, name))) && n < 100; n++) name = `${runId}-${n}`;
    const dir = join(root, name);
    await rename(tmp, dir);
    const latest = await pointLatest(root, name);
    return { dir, latest, files: Object.keys(files).map((f) => join(dir, f)) };
  } catch (err) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  }
}

async function pointLatest(root: string, name: string): Promise<string> {
  const latest = join(root, 'latest');
  const tmpLink = join(root, `.latest-${process.pid}-${Date.now()}`);
  try {
    await symlink(name, tmpLink, 'dir');
    try {
      await rename(tmpLink, latest);
    } catch {
      // `latest` is a directory (an earlier copy): replace it.
      await rm(latest, { recursive: true, force: true });
      await rename(tmpLink, latest);
    }
  } catch {
    await rm(tmpLink, { force: true }).catch(() => undefined);
    await rm(latest, { recursive: true, force: true });
    await cp(join(root, name), latest, { recursive: true });
  }
  return latest;
}

export async function writeReports(root: string, report: Report, secrets: readonly string[], extra: Readonly<Record<string, string>> = {}, formats: readonly ReportFormat[] = REPORT_FORMATS): Promise<WrittenReports> {
  return writeReportDir(root, report.runId, { ...reportRenderers(report, formats), ...filesOfFormats(extra, formats) }, secrets);
}

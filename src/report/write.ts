/**
 * Writes a run's reports to `<root>/<run-id>/` and points `<root>/latest` at them. Files are
 * written into a temporary directory that is renamed into place, so a reader (or a crash) never
 * sees a half-written report; `latest` is a symlink, or a copy where symlinks are not allowed.
 */
import { cp, mkdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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

/** The standard files of a run (and `coverage.md` when a coverage phase ran). */
export function reportFiles(report: Report): Record<string, string> {
  const coverage = toCoverageMarkdown(report);
  return {
    'report.json': toReportJson(report),
    'junit.xml': toJunit(report),
    'summary.md': toSummaryMarkdown(report),
    'report.html': toReportHtml(report),
    'findings.har': toHar(report),
    ...(coverage ? { 'coverage.md': coverage } : {}),
  };
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(() => true, () => false);
}

export async function writeReportDir(root: string, runId: string, files: Readonly<Record<string, string>>, secrets: readonly string[]): Promise<WrittenReports> {
  await mkdir(root, { recursive: true });
  const tmp = join(root, `.tmp-${runId}-${process.pid}-${Date.now()}`);
  await mkdir(tmp);
  try {
    for (const [name, text] of Object.entries(files)) {
      if (name.includes('/') || name.includes('\\') || name.startsWith('.')) throw new Error(`bad report file name ${name}`);
      await writeFile(join(tmp, name), redact(text, secrets), 'utf8');
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

export async function writeReports(root: string, report: Report, secrets: readonly string[], extra: Readonly<Record<string, string>> = {}): Promise<WrittenReports> {
  return writeReportDir(root, report.runId, { ...reportFiles(report), ...extra }, secrets);
}

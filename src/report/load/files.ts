/** The three files of a load run (load.json, load.md, load.html), alone or beside another report (`npm start`). */
import type { LoadRunResult } from '../../load/index.ts';
import { baselineHtml, baselineMarkdown } from './baseline.ts';
import { capacityHtml, capacityMarkdown } from './capacity.ts';
import { toLoadHtml } from './html.ts';
import { toLoadJson } from './json.ts';
import { toLoadMarkdown } from './md.ts';
import { writeReportDir, type WrittenReports } from '../write.ts';

export function loadReportFiles(r: LoadRunResult): Record<string, string> {
  const md = [capacityMarkdown(r), baselineMarkdown(r)].filter(Boolean);
  const html = [capacityHtml(r), baselineHtml(r)].filter(Boolean);
  return { 'load.json': toLoadJson(r), 'load.md': toLoadMarkdown(r, md), 'load.html': toLoadHtml(r, html) };
}

/** Writes `<root>/<run id>/` with the three files, secrets masked. */
export function writeLoadReport(root: string, r: LoadRunResult, secrets: readonly string[]): Promise<WrittenReports> {
  return writeReportDir(root, r.runId, loadReportFiles(r), secrets);
}

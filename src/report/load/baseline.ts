/**
 * A baseline comparison in the reports: the metric table (baseline, this run, change, the relative
 * thresholds' verdicts) in load.md, load.html and on the console, and both runs' latency spectra on
 * one chart in load.html.
 */
import type { BaselineComparison, ComparisonRow, LoadRunResult } from '../../load/index.ts';
import { esc } from '../html-text.ts';
import { spectraChart } from './charts.ts';

const verdicts = (row: ComparisonRow, md: boolean): string =>
  row.thresholds.map((t) => (md ? `\`${t.threshold}\` ${t.passed ? 'passed' : '**broken**'}` : `${t.threshold} ${t.passed ? 'passed' : 'BROKEN'}`)).join(', ');

const title = (c: BaselineComparison): string => `baseline ${c.runId} (${c.path})`;

/** Thresholds naming a metric neither run has (a capacity the search did not find). */
const unjudged = (c: BaselineComparison): BaselineComparison['thresholds'] => c.thresholds.filter((t) => !c.rows.some((r) => r.thresholds.includes(t)));

export function baselineConsole(r: LoadRunResult): string[] {
  const c = r.baseline;
  if (!c) return [];
  const w = Math.max(...c.rows.map((x) => x.baselineText.length));
  return [
    `compared with ${title(c)}:`,
    ...c.caveats.map((x) => `  note: ${x}`),
    ...c.rows.map((x) => `  ${x.metric.padEnd(8)} ${x.baselineText.padStart(w)} → ${x.currentText.padEnd(w)}  ${x.changeText.padStart(8)}${x.thresholds.length ? `  ${verdicts(x, false)}` : ''}`),
    ...unjudged(c).map((t) => `  ${t.threshold} BROKEN: ${t.actualText}`),
  ];
}

export function baselineMarkdown(r: LoadRunResult): string {
  const c = r.baseline;
  if (!c) return '';
  const L = [`## Compared with baseline ${c.runId}`, '', `Baseline: \`${c.path}\`, started ${c.startedAt}. Relative thresholds bound the change from the baseline's value.`, ''];
  if (c.caveats.length) L.push('The runs differ beyond the build under test, which alone can move the figures:', '', ...c.caveats.map((x) => `- ${x}`), '');
  L.push('| metric | baseline | this run | change | thresholds |', '|---|---:|---:|---:|---|');
  for (const x of c.rows) L.push(`| ${x.metric} | ${x.baselineText} | ${x.currentText} | ${x.changeText} | ${verdicts(x, true)} |`);
  for (const t of unjudged(c)) L.push('', `- \`${t.threshold}\` **broken**: ${t.actualText}`);
  return L.join('\n');
}

export function baselineHtml(r: LoadRunResult): string {
  const c = r.baseline;
  if (!c) return '';
  const rows = c.rows
    .map((x) => `<tr><th>${esc(x.metric)}</th><td>${esc(x.baselineText)}</td><td>${esc(x.currentText)}</td><td>${esc(x.changeText)}</td><td>${x.thresholds.map((t) => `<span class="${t.passed ? 'ok' : 'bad'}">${esc(t.threshold)} ${t.passed ? 'passed' : 'broken'}</span>`).join(' ')}</td></tr>`)
    .join('');
  const notes = [...c.caveats, ...unjudged(c).map((t) => `${t.threshold} broken: ${t.actualText}`)].map((x) => `<li>${esc(x)}</li>`).join('');
  return `<h2>Compared with baseline ${esc(c.runId)}</h2>
<p>Baseline ${esc(c.path)}, started ${esc(c.startedAt)}. Relative thresholds bound the change from the baseline's value.</p>
${notes ? `<ul>${notes}</ul>` : ''}
<table><tr><th>metric</th><th>baseline</th><th>this run</th><th>change</th><th>thresholds</th></tr>${rows}</table>
${spectraChart([{ name: 'baseline', color: '#7f7f7f', spectrum: c.spectrum }, { name: 'this run', color: '#1f77b4', spectrum: r.spectrum }], 'Latency by percentile: baseline and this run')}`;
}

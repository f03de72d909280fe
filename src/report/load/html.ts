/**
 * `load.html`: one self-contained page (inline CSS and SVG, no script, no network) with the latency
 * percentile spectrum, throughput over time and the cost curves, readable in any browser.
 */
import type { LoadRunResult } from '../../load/index.ts';
import { loadExitCode } from '../../check/run/index.ts';
import { esc } from '../html-text.ts';
import { loadSection } from './charts.ts';
import { CHART_CSS } from '../svg-chart.ts';

/** `sections`: further HTML (capacity search, baseline comparison) shown after the summary table. */
export function toLoadHtml(r: LoadRunResult, sections: readonly string[] = []): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pouchproof load ${esc(r.runId)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;max-width:760px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse}th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}td{text-align:right}
${CHART_CSS}
.ok{color:#1a7f37}.bad{color:#c62828;font-weight:600}
</style></head><body>
<h1>Load run ${esc(r.runId)}: ${esc(r.scenario)} — ${loadExitCode(r) === 0 ? '<span class="ok">passed</span>' : '<span class="bad">FAILED</span>'}${r.interrupted ? ' (interrupted: partial)' : ''}</h1>
${r.failedBecause ? `<p class="bad">${esc(r.failedBecause)}</p>` : ''}
${loadSection(r, 'h2', sections)}
</body></html>
`;
}

/**
 * `report.html`: the run on one self-contained page (inline CSS and SVG, a few lines of inline
 * script for filtering, nothing from the network), readable in any browser: the verdict and why,
 * properties by section, every finding with its evidence, the readings, the coverage table, and the
 * load run when there was one. A pure function of the report object.
 */
import { exampleLine, stoppedLine } from './examples.ts';
import { isRecord, keysOf } from '../spec/index.ts';
import type { ProbeResult } from '../discover/index.ts';
import { findingHtml } from './html-finding.ts';
import { htmlPage } from './html-page.ts';
import { esc } from './html-text.ts';
import { loadSection, type LoadFigures } from './load/charts.ts';
import { evidenceSummary, readingCell } from './readings.ts';
import type { CoverageReport, FindingReport, Report } from './report-json.ts';
import { sharedCauses, sharedCauseText } from './shared-causes.ts';
import { verdictOf } from './summary-md.ts';
import { CHART_CSS } from './svg-chart.ts';
import { TIMELINE_CSS } from './timeline-svg.ts';
import { nemesisLine } from './nemesis.ts';
import { evidenceCell, throttlingLine, vouchedLine } from './vouched.ts';
import { loadExitCode } from '../check/run/index.ts';

type Status = Report['properties'][number]['status'];

/** The run's verdict in one word, as its exit code means it. */
export function verdictWord(report: Report): 'passed' | 'failed' | 'inconclusive' | 'unreachable' | 'interrupted' {
  if (report.interrupted && report.exitCode !== 1) return 'interrupted';
  switch (report.exitCode) {
    case 0:
      return 'passed';
    case 1:
      return 'failed';
    case 2:
      return 'inconclusive';
    case 3:
      return 'unreachable';
    default:
      return report.exitCode satisfies never;
  }
}

/** Finding kinds in the order the page lists them: what fails the run first. */
const KIND_RANK: Readonly<Record<FindingReport['kind'], number>> = { crash: 0, violation: 1, 'server-error': 2, error: 3, performance: 4, unknown: 5, assumption: 6, transport: 7, skipped: 8 };
const KIND_ORDER = keysOf(KIND_RANK).sort((a, b) => KIND_RANK[a] - KIND_RANK[b]);

function sectionKey(s: string): number[] {
  return s.split('.').map((x) => (/^\d+$/.test(x) ? Number(x) : Number.MAX_SAFE_INTEGER));
}

function bySection(a: string, b: string): number {
  const x = sectionKey(a), y = sectionKey(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? -1) - (y[i] ?? -1);
    if (d) return d;
  }
  return a.localeCompare(b);
}

const badge = (status: Status): string => `<span class="badge s-${status}">${status}</span>`;

function whyLines(report: Report): string[] {
  const out = [verdictOf(report)];
  if (report.unreachable) out.push(`the target stopped answering: ${report.unreachable}`);
  out.push(vouchedLine(report));
  if (report.inconclusive) out.push(`inconclusive: ${report.inconclusive}`);
  for (const h of report.hints ?? []) out.push(`to decide more: ${h}`);
  const throttled = throttlingLine(report);
  if (throttled) out.push(`throttling: ${throttled}`);
  const nemesis = nemesisLine(report);
  if (nemesis) out.push(`nemesis: ${nemesis}`);
  if (report.budget && (report.budget.cut.length || report.budget.notRun.length)) {
    const b = report.budget;
    out.push(`not covered within the time budget of ${(b.maxDurationMs / 1000).toFixed(0)} s:${b.cut.length ? ` cut short ${b.cut.join(', ')};` : ''}${b.notRun.length ? ` not run ${b.notRun.join(', ')}` : ''}`);
  }
  const stopped = stoppedLine(report);
  if (stopped) out.push(stopped);
  for (const e of report.examples ?? []) out.push(exampleLine(e));
  if (report.interrupted) out.push('interrupted: a partial report');
  return out;
}

function propertiesHtml(report: Report, anchors: ReadonlyMap<FindingReport, number>): string {
  const sections = [...new Set(report.properties.map((p) => p.section))].sort(bySection);
  return sections
    .map((s) => {
      const props = report.properties.filter((p) => p.section === s);
      const rows = props.map((p) => {
        const links = p.findings.filter((f) => f.kind !== 'skipped').map((f) => `<a href="#finding-${anchors.get(f)}" class="k-${esc(f.kind)}">${esc(f.kind)}</a>`);
        const note = p.status === 'skipped' ? (p.findings[0]?.message ?? '') : p.status === 'inconclusive' ? (p.inconclusive ?? '') : p.timeBound ? 'cut short by its time bound' : '';
        return `<tr class="prop" data-status="${p.status}"><td><code>${esc(p.id)}</code>${p.invariant ? `<div class="muted inv">${esc(p.invariant)}</div>` : ''}</td><td>${badge(p.status)}</td><td class="n">${esc(evidenceCell(p) ?? String(p.runs))}</td><td class="n">${p.requests}</td><td class="n">${(p.durationMs / 1000).toFixed(1)} s</td><td>${links.join(' ')}${note ? ` <span class="muted">${esc(note)}</span>` : ''}</td></tr>`;
      });
      const counts = (['failed', 'passed', 'inconclusive', 'error', 'skipped', 'interrupted'] as const).map((k) => [k, props.filter((p) => p.status === k).length] as const).filter(([, n]) => n > 0);
      return `<h3>§${esc(s)} <span class="muted">${counts.map(([k, n]) => `${n} ${k}`).join(', ')}</span></h3>
<table class="props"><thead><tr><th>property</th><th>status</th><th>judged</th><th>requests</th><th>time</th><th>findings</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
    })
    .join('\n');
}

/** A row of discovery's table as report.json keeps it: the members the page reads are there (the rest as discovery wrote them). */
function isProbeRow(r: unknown): r is ProbeResult {
  return isRecord(r) && typeof r.assumption === 'string' && Array.isArray(r.evidence);
}

/** The readings table, read defensively: its shape belongs to src/discover (report.json keeps it as it came). */
function readingsHtml(readings: unknown): string {
  if (!isRecord(readings) || !Array.isArray(readings.table)) return '';
  const rows = readings.table.filter(isProbeRow);
  const mismatches = Array.isArray(readings.mismatches) ? readings.mismatches.map((m: unknown) => (isRecord(m) ? m : {})) : [];
  const found = rows.filter((r) => r.status === 'found').length;
  return `<section id="readings"><h2>Readings of the target</h2>
<p>${found} of ${rows.length} readings observed before the run; the run was judged under them (and under what the profile or <code>--assume</code> fixed).</p>
<table><thead><tr><th>assumption</th><th>reading</th><th>evidence</th></tr></thead><tbody>
${rows.map((r) => `<tr><td><code>${esc(r.assumption)}</code></td><td>${esc(readingCell(r))}</td><td>${esc(evidenceSummary(r))}${r.evidence.length ? `<details><summary>evidence</summary><pre>${esc(r.evidence.join('\n'))}</pre></details>` : ''}</td></tr>`).join('\n')}
</tbody></table>
${mismatches.length ? `<p class="bad">Fixed readings the target was seen not to take: ${mismatches.map((m) => esc(`${String(m.assumption ?? '?')} fixed to ${String(m.fixed ?? '?')}, observed ${String(m.observed ?? '?')}`)).join('; ')}</p>` : ''}
</section>`;
}

function sideCell(s: CoverageReport['rows'][number]['accept']): string {
  if (s.status === 'none') return '<td class="muted">—</td>';
  return `<td class="cov-${s.status}">${s.status} <span class="muted">${s.observed}/${s.variants}${s.failed ? `, ${s.failed} failed` : ''}</span></td>`;
}

function coverageHtml(c: CoverageReport | undefined): string {
  if (!c) return '';
  const t = c.totals;
  const gaps = (r: CoverageReport['rows'][number]): boolean => [r.accept.status, r.reject.status].some((s) => s !== 'observed' && s !== 'none');
  const rows = [...c.rows].sort((a, b) => Number(gaps(b)) - Number(gaps(a)));
  return `<section id="coverage"><h2>Coverage</h2>
<p>${t.constraints} request constraints, ${t.cases} coverage cases: acceptance observed for ${t.accept.observed} of ${t.accept.withVariants} (${t.accept.failed} failed), refusal observed for ${t.reject.observed} of ${t.reject.withVariants} (${t.reject.failed} failed).</p>
<label><input type="checkbox" id="cov-gaps"> only constraints not fully observed</label>
<table class="coverage"><thead><tr><th>constraint</th><th>§</th><th>accept</th><th>reject</th></tr></thead><tbody>
${rows.map((r) => `<tr data-gap="${gaps(r) ? 1 : 0}"><td><code>${esc(r.constraint)}</code></td><td>${esc(r.section)}</td>${sideCell(r.accept)}${sideCell(r.reject)}</tr>`).join('\n')}
</tbody></table></section>`;
}

/** The load figures of `start`, when they are a load run's (and not a note that it was skipped or failed). */
function loadHtml(load: unknown): string {
  if (!isRecord(load)) return '';
  const l = load;
  if (typeof l.error === 'string') return `<section id="load"><h2>Load</h2><p class="bad">the load run failed: ${esc(l.error)}</p></section>`;
  if (typeof l.skipped === 'string') return `<section id="load"><h2>Load</h2><p>the load run was skipped: ${esc(l.skipped)}</p></section>`;
  const ok = Array.isArray(l.spectrum) && Array.isArray(l.timeline) && Array.isArray(l.checks) && Array.isArray(l.thresholds) && [l.totals, l.rates, l.latency, l.target, l.generator].every((x) => typeof x === 'object' && x !== null);
  if (!ok) return '';
  // The members the section reads are checked above; the figures inside them are src/load's, written by pouchproof.
  const r = load as LoadFigures;
  const passed = loadExitCode(r) === 0;
  return `<section id="load"><h2>Load: ${esc(r.scenario)} <span class="badge ${passed ? 's-passed' : 's-failed'}">${passed ? 'passed' : 'failed'}</span></h2>\n${loadSection(r, 'h3')}</section>`;
}

const CSS = `table.figures{width:auto}table.figures td{text-align:right}
.inv{max-width:560px}
.k-violation,.k-crash,.k-server-error{background:#c62828}.k-assumption{background:#1565c0}.k-transport{background:#6d4c41}.k-performance{background:#00838f}.k-error{background:#8e24aa}.k-skipped{background:#9e9e9e}
a.k-violation,a.k-crash,a.k-server-error,a.k-assumption,a.k-transport,a.k-performance,a.k-error{color:#fff;padding:0 5px;border-radius:8px;font-size:12px;text-decoration:none}
.verdict{font-size:20px;padding:10px 14px;border-radius:6px;color:#fff;margin:12px 0}.verdict ul{margin:4px 0 0;font-size:14px}
.v-passed{background:#1a7f37}.v-failed{background:#c62828}.v-inconclusive{background:#b26a00}.v-unreachable{background:#6a1b9a}.v-interrupted{background:#546e7a}
.finding{border:1px solid #ddd;border-left:4px solid #888;border-radius:4px;padding:4px 12px 8px;margin:12px 0}
.finding[data-kind=violation],.finding[data-kind=crash],.finding[data-kind=server-error]{border-left-color:#c62828}.finding[data-kind=assumption]{border-left-color:#1565c0}
.evidence{font-weight:500}dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:6px 0}dt{color:#666}dd{margin:0;min-width:0;overflow-wrap:anywhere}code.replay{word-break:break-all}.ground{font-style:italic}
ol.steps li{margin:3px 0}.exchange{border-left:2px solid #eee;padding-left:8px}
.svgwrap{overflow-x:auto}
.cov-observed{color:#1a7f37}.cov-failed{color:#c62828;font-weight:600}.cov-partial,.cov-unobserved{color:#b26a00}
.filters{margin:8px 0}.filters label{margin-right:14px}
${CHART_CSS}
${TIMELINE_CSS}`;

/** Filters only: the page reads completely without it. */
const SCRIPT = `(function(){
function on(id,f){var e=document.getElementById(id);if(e)e.addEventListener('change',f);}
on('kind-filter',function(e){var v=e.target.value;document.querySelectorAll('article.finding').forEach(function(a){a.classList.toggle('hidden',v!==''&&a.getAttribute('data-kind')!==v);});});
on('hide-passed',function(e){document.querySelectorAll('tr.prop').forEach(function(r){r.classList.toggle('hidden',e.target.checked&&r.getAttribute('data-status')==='passed');});});
on('cov-gaps',function(e){document.querySelectorAll('table.coverage tr[data-gap]').forEach(function(r){r.classList.toggle('hidden',e.target.checked&&r.getAttribute('data-gap')==='0');});});
})();`;

export function toReportHtml(report: Report): string {
  const t = report.totals;
  const verdict = verdictWord(report);
  const findings = report.properties.flatMap((p) => p.findings).filter((f) => f.kind !== 'skipped');
  findings.sort((a, b) => KIND_RANK[a.kind] - KIND_RANK[b.kind]);
  const anchors = new Map(findings.map((f, i) => [f, i + 1] as const));
  const kinds = KIND_ORDER.filter((k) => findings.some((f) => f.kind === k));
  const meta: [string, string][] = [
    ['target', `${report.target.name} (${report.target.baseUrl})${report.target.embedded ? ', the embedded reference' : ''}${report.target.faults?.length ? `, faults: ${report.target.faults.join(', ')}` : ''}`],
    ['run', `${report.runId}, seed ${report.seed}, ${report.options.runs} cases per property`],
    ['when', `${report.startedAt} → ${report.finishedAt} (${(report.durationMs / 1000).toFixed(1)} s)`],
    ['requests', String(t.requests)],
    ['properties', `${t.properties}: ${t.passed} passed, ${t.failed} failed, ${t.inconclusive} inconclusive, ${t.error} not run (error), ${t.skipped} skipped${t.interrupted ? `, ${t.interrupted} interrupted` : ''}`],
    ['findings', Object.entries(t.findings).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ') || 'none'],
    ['tool', `pouchproof ${report.tool.version}`],
  ];
  const body = `<h1>pouchproof run ${esc(report.runId)}</h1>
<div class="verdict v-${verdict}" id="verdict"><b>${verdict.toUpperCase()}</b> (exit ${report.exitCode})<ul>${whyLines(report).map((l) => `<li>${esc(l)}</li>`).join('')}</ul></div>
<table class="figures meta">${meta.map(([k, v]) => `<tr><th>${esc(k)}</th><td style="text-align:left">${esc(v)}</td></tr>`).join('')}</table>
<details><summary>readings the run was judged under (${Object.keys(report.assumptions).length})</summary><table>${Object.entries(report.assumptions).map(([k, v]) => `<tr><td><code>${esc(k)}</code></td><td>${esc(v)}</td></tr>`).join('')}</table></details>
<section id="properties"><h2>Properties by section</h2>
<div class="filters"><label><input type="checkbox" id="hide-passed"> hide passed</label></div>
${propertiesHtml(report, anchors)}
</section>
<section id="findings"><h2>Findings (${findings.length})</h2>
${findings.length ? `<div class="filters"><label>show <select id="kind-filter"><option value="">every kind</option>${kinds.map((k) => `<option value="${k}">${k}</option>`).join('')}</select></label></div>` : '<p>None.</p>'}
<p class="muted">A violation rests on words of SPEC.md (quoted as its ground) and fails the run; an assumption finding names a reading of something the spec does not show, and never fails it; an unknown is what neither the spec nor an identified reading decides, never a violation and never a pass. Values shown as *** are secrets from the profile.</p>
${sharedCauses(report.properties).map((c) => `<p class="bad">${esc(sharedCauseText(c))}</p>`).join('\n')}
${/* every finding got an anchor above */ findings.map((f) => findingHtml(f, anchors.get(f)!)).join('\n')}
</section>
${readingsHtml(report.readings)}
${coverageHtml(report.coverage)}
${loadHtml(report.load)}`;
  return htmlPage({ title: `pouchproof ${report.runId}: ${verdict}`, css: CSS, body, script: SCRIPT });
}

/**
 * A load run's figures and charts as an HTML fragment (inline SVG): the body of load.html, and the
 * load section of report.html when `start` ran its short load.
 */
import { type LoadRunResult, type MergeNotes, PHASES } from '../../load/index.ts';
import { esc } from '../html-text.ts';
import { publicUrl } from './json.ts';
import { latencyScope, modelText, ms, PHASES_NOTE, thresholdName } from './md.ts';
import { lineChart } from '../svg-chart.ts';

/** What the charts read of a run: everything but its encoded histogram (which report.json leaves out). */
export type LoadFigures = Omit<LoadRunResult, 'histogram' | 'errorHistogram'>;

/** Percentile q → -log10(1 - q/100): 90% → 1, 99% → 2, 99.9% → 3. */
const nines = (q: number): number => -Math.log10(Math.max(1e-6, 1 - q / 100));

/** Latency spectra (several runs on one chart), percentiles on a log scale of 1/(1-q). */
export function spectraChart(runs: ReadonlyArray<{ name: string; color: string; spectrum: LoadFigures['spectrum'] }>, title = 'Latency by percentile'): string {
  const series = runs.map((r) => ({ name: r.name, color: r.color, points: r.spectrum.filter((p) => p.percentile < 100).map((p) => [nines(p.percentile), p.us / 1000] as const) }));
  const maxNines = Math.max(3, ...series.flatMap((s) => s.points.map((p) => p[0])));
  const ticks = [0, 1, 2, 3, 4, 5].filter((k) => k <= maxNines).map((k) => [k, k === 0 ? '0%' : `${(100 - 100 / 10 ** k).toFixed(Math.max(0, k - 2))}%`] as const);
  return lineChart(series, { title, xLabel: 'percentile', yLabel: 'ms', xTicks: ticks });
}

export function spectrumChart(r: LoadFigures): string {
  return spectraChart([{ name: 'latency', color: '#1f77b4', spectrum: r.spectrum }]);
}

/** The run's whole seconds: a last bucket covering under half a second (stragglers after the window) would read as a drop. */
function seconds(r: LoadFigures): LoadFigures['timeline'] {
  return r.timeline.slice(0, Math.max(1, Math.round(r.totals.wallMs / 1000)));
}

/** Whether the timeline counts offered requests (runs from before it did, and merges of them, do not). */
const hasOffered = (r: LoadFigures): boolean => r.timeline.some((b) => (b.offered ?? 0) > 0);

const PHASE_COLORS = ['#7f7f7f', '#8c564b', '#e377c2', '#ff7f0e', '#1f77b4', '#2ca02c'] as const;

/** Each phase's percentile spectrum on one chart, and its figures in a table. */
export function phasesSection(r: LoadFigures, h: 'h2' | 'h3'): string {
  const p = r.phases;
  if (!p) return '';
  const rows = PHASES.map((k) => {
    const s = p[k].latency;
    return `<tr><th>${k}</th>${[s.p50, s.p90, s.p99, s.p999, s.max].map((v) => `<td>${ms(v)}</td>`).join('')}<td>${s.count}</td></tr>`;
  }).join('\n');
  const chart = spectraChart(PHASES.map((k, i) => ({ name: k, color: PHASE_COLORS[i], spectrum: p[k].spectrum })), 'Phases of a request by percentile');
  return `<${h}>Phases of a request</${h}>
<table class="figures"><tr><th>phase (ms)</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th><th>samples</th></tr>
${rows}
</table>
${chart}
<p>${esc(`Phases ${PHASES_NOTE}`)}.</p>`;
}

export function throughputChart(r: LoadFigures): string {
  const b = seconds(r);
  const step = Math.max(1, Math.ceil(b.length / 10));
  const ticks = b.map((_, i) => i + 1).filter((s) => s === 1 || s % step === 0).map((s) => [s, String(s)] as const);
  // The offered rate beside the achieved one shows a ramp's shape, and where the server fell behind it.
  const offered = hasOffered(r) ? [{ name: 'offered/s', color: '#7f7f7f', dashed: true, points: b.map((x, i) => [i + 1, x.offered] as const) }] : [];
  return lineChart(
    [
      ...offered,
      { name: 'responses/s', color: '#1f77b4', points: b.map((x, i) => [i + 1, x.completed] as const) },
      { name: 'succeeded/s', color: '#2ca02c', points: b.map((x, i) => [i + 1, x.ok] as const) },
      { name: `${r.unit}/s`, color: '#ff7f0e', points: b.map((x, i) => [i + 1, x.units] as const) },
      { name: 'errors/s', color: '#d62728', points: b.map((x, i) => [i + 1, x.errors] as const) },
    ],
    { title: 'Throughput over time', xLabel: 'second', yLabel: 'per second', xTicks: ticks },
  );
}

/**
 * Achieved against offered rate, one point a second, ordered by the offered rate (not by time, so
 * a ramp up and down reads as one curve): on the dashed diagonal the server kept up; below it, not.
 */
export function achievedChart(r: LoadFigures): string {
  if (!hasOffered(r)) return '';
  const pts = seconds(r).map((b) => [b.offered, b.completed] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const top = Math.max(...pts.map((p) => Math.max(p[0], p[1])));
  return lineChart(
    [
      { name: 'achieved (responses/s)', color: '#1f77b4', points: pts },
      { name: 'achieved = offered', color: '#7f7f7f', dashed: true, points: [[0, 0], [top, top]] },
    ],
    { title: 'Achieved against offered rate (each second)', xLabel: 'offered per second', yLabel: 'responses per second' },
  );
}

export function curveCharts(r: LoadFigures): string {
  return (r.curves ?? [])
    .map((c) =>
      lineChart(
        [
          { name: 'fastest ms (judged)', color: '#2ca02c', points: c.points.map((p) => [p.value, p.min / 1000] as const) },
          { name: 'p50 ms', color: '#1f77b4', points: c.points.map((p) => [p.value, p.p50 / 1000] as const) },
          { name: 'p99 ms', color: '#9467bd', points: c.points.map((p) => [p.value, p.p99 / 1000] as const) },
        ],
        { title: `Cost curve: ${c.axis}${c.verdict.superlinear ? ' (worse than linear)' : ''}`, xLabel: c.axis, yLabel: 'ms' },
      ) + `<p class="${c.verdict.superlinear ? 'bad' : 'ok'}">${esc(c.verdict.message)}</p>`,
    )
    .join('\n');
}

/** The figures table, the charts, checks, thresholds and the generator's note; `h` is the heading tag of its parts. */
function shardText(m: MergeNotes): string {
  const late = m.late.map((l) => `${l.index} (${(l.lateMs / 1000).toFixed(1)} s)`);
  return [`${m.present.length} of ${m.count} merged`, m.missing.length ? `missing ${m.missing.join(', ')}` : '', late.length ? `late ${late.join(', ')}` : ''].filter(Boolean).join('; ');
}

/** `sections`: further HTML (capacity search, baseline comparison) shown after the summary table. */
export function loadSection(r: LoadFigures, h: 'h2' | 'h3' = 'h2', sections: readonly string[] = []): string {
  const row = (k: string, v: string): string => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`;
  const checks = r.checks.map((c) => `<li class="${c.passed ? 'ok' : 'bad'}">${c.passed ? 'passed' : 'FAILED'}: ${esc(c.name)} — ${esc(c.message)}</li>`).join('');
  const thresholds = r.thresholds.map((t) => `<li class="${t.passed ? 'ok' : 'bad'}">${esc(thresholdName(t))}: ${esc(t.actualText)} — ${t.passed ? 'passed' : 'broken'}</li>`).join('');
  return `<p>${esc(r.description)}.</p>
<table class="figures">
${row('target', publicUrl(r.target.url) + (r.target.embedded ? ' (embedded reference)' : ''))}
${row('model', modelText(r))}
${row('measured', `${(r.totals.wallMs / 1000).toFixed(1)} s, ${r.totals.sent} requests`)}
${row('requests/s', r.rates.rps.toFixed(1))}
${row(`goodput (${r.unit}/s)`, r.rates.goodput.toFixed(1))}
${row('p50 / p90 / p99 / p99.9 / max (ms)', [r.latency.p50, r.latency.p90, r.latency.p99, r.latency.p999, r.latency.max].map(ms).join(' / '))}
${row('error rate', `${(r.errorRate * 100).toFixed(3)}%`)}
${r.merged ? row('shards', shardText(r.merged)) : ''}
</table>
<p>${esc(latencyScope(r))}.</p>
${sections.join('\n')}
<${h}>Latency percentile spectrum</${h}>
${spectrumChart(r)}
${phasesSection(r, h)}
<${h}>Throughput over time</${h}>
${throughputChart(r)}
${achievedChart(r)}
${r.curves?.length ? `<${h}>Cost curves</${h}>\n${curveCharts(r)}` : ''}
${checks ? `<${h}>Checks</${h}><ul>${checks}</ul>` : ''}
${thresholds ? `<${h}>Thresholds</${h}><ul>${thresholds}</ul>` : ''}
<${h}>Load generator</${h}><p>${esc(r.generator.note)}.</p>`;
}

/**
 * `load.html`: one self-contained page (inline CSS and SVG, no script, no network) with the latency
 * percentile spectrum, throughput over time and the cost curves, readable in any browser.
 */
import type { LoadRunResult } from '../load/run.ts';
import { publicUrl } from './load-json.ts';
import { modelText, ms } from './load-md.ts';

export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface Series {
  readonly name: string;
  readonly color: string;
  readonly points: ReadonlyArray<readonly [number, number]>;
  /** Drawn dashed, without point marks: a bound or a marker, not a measurement. */
  readonly dashed?: boolean;
}

export interface ChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  /** Tick positions (in x units) with their labels; default: five even ticks. */
  readonly xTicks?: ReadonlyArray<readonly [number, string]>;
}

const W = 720, H = 300, ML = 64, MR = 16, MT = 28, MB = 44;

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

const fmt = (v: number): string => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2).replace(/\.?0+$/, '') || '0');

/** A line chart as an inline SVG element. */
export function lineChart(series: readonly Series[], o: ChartOptions): string {
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) return `<p class="empty">${esc(o.title)}: no data</p>`;
  const xMin = Math.min(...all.map((p) => p[0]));
  const xMax0 = Math.max(...all.map((p) => p[0]));
  const xMax = xMax0 === xMin ? xMin + 1 : xMax0;
  const yMax = niceMax(Math.max(...all.map((p) => p[1])));
  const X = (x: number): number => ML + ((x - xMin) / (xMax - xMin)) * (W - ML - MR);
  const Y = (y: number): number => H - MB - (y / yMax) * (H - MT - MB);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(o.title)}">`);
  out.push(`<text x="${W / 2}" y="18" text-anchor="middle" class="t">${esc(o.title)}</text>`);
  for (let i = 0; i <= 5; i++) {
    const y = (yMax * i) / 5;
    out.push(`<line x1="${ML}" x2="${W - MR}" y1="${Y(y).toFixed(1)}" y2="${Y(y).toFixed(1)}" class="g"/>`);
    out.push(`<text x="${ML - 6}" y="${(Y(y) + 4).toFixed(1)}" text-anchor="end">${fmt(y)}</text>`);
  }
  const ticks = o.xTicks ?? Array.from({ length: 6 }, (_, i) => {
    const x = xMin + ((xMax - xMin) * i) / 5;
    return [x, fmt(x)] as const;
  });
  for (const [x, label] of ticks) {
    if (x < xMin || x > xMax) continue;
    out.push(`<line x1="${X(x).toFixed(1)}" x2="${X(x).toFixed(1)}" y1="${H - MB}" y2="${H - MB + 4}" class="a"/>`);
    out.push(`<text x="${X(x).toFixed(1)}" y="${H - MB + 16}" text-anchor="middle">${esc(label)}</text>`);
  }
  out.push(`<line x1="${ML}" x2="${W - MR}" y1="${H - MB}" y2="${H - MB}" class="a"/><line x1="${ML}" x2="${ML}" y1="${MT}" y2="${H - MB}" class="a"/>`);
  out.push(`<text x="${W / 2}" y="${H - 6}" text-anchor="middle">${esc(o.xLabel)}</text>`);
  out.push(`<text transform="translate(14 ${H / 2}) rotate(-90)" text-anchor="middle">${esc(o.yLabel)}</text>`);
  // Legend entries side by side, each as wide as its name (about 6 px a character at 11 px).
  const legendX = series.reduce<number[]>((xs, s, i) => [...xs, i === 0 ? ML + 10 : xs[i - 1]! + 28 + 6 * series[i - 1]!.name.length], []);
  series.forEach((s, i) => {
    if (s.points.length === 0) return;
    const d = s.points.map((p, k) => `${k === 0 ? 'M' : 'L'}${X(p[0]).toFixed(1)} ${Y(p[1]).toFixed(1)}`).join(' ');
    out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    if (!s.dashed) for (const p of s.points) out.push(`<circle cx="${X(p[0]).toFixed(1)}" cy="${Y(p[1]).toFixed(1)}" r="2.5" fill="${s.color}"/>`);
    out.push(`<rect x="${legendX[i]!.toFixed(1)}" y="${MT + 2}" width="12" height="4" fill="${s.color}"/><text x="${(legendX[i]! + 16).toFixed(1)}" y="${MT + 8}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('');
}

/** Percentile q → -log10(1 - q/100): 90% → 1, 99% → 2, 99.9% → 3. */
const nines = (q: number): number => -Math.log10(Math.max(1e-6, 1 - q / 100));

/** Latency spectra (several runs on one chart), percentiles on a log scale of 1/(1-q). */
export function spectraChart(runs: ReadonlyArray<{ name: string; color: string; spectrum: LoadRunResult['spectrum'] }>, title = 'Latency by percentile'): string {
  const series = runs.map((r) => ({ name: r.name, color: r.color, points: r.spectrum.filter((p) => p.percentile < 100).map((p) => [nines(p.percentile), p.us / 1000] as const) }));
  const maxNines = Math.max(3, ...series.flatMap((s) => s.points.map((p) => p[0])));
  const ticks = [0, 1, 2, 3, 4, 5].filter((k) => k <= maxNines).map((k) => [k, k === 0 ? '0%' : `${(100 - 100 / 10 ** k).toFixed(Math.max(0, k - 2))}%`] as const);
  return lineChart(series, { title, xLabel: 'percentile', yLabel: 'ms', xTicks: ticks });
}

export function spectrumChart(r: LoadRunResult): string {
  return spectraChart([{ name: 'latency', color: '#1f77b4', spectrum: r.spectrum }]);
}

export function throughputChart(r: LoadRunResult): string {
  // A last bucket covering under half a second (stragglers after the window) would read as a drop.
  const b = r.timeline.slice(0, Math.max(1, Math.round(r.totals.wallMs / 1000)));
  const step = Math.max(1, Math.ceil(b.length / 10));
  const ticks = b.map((_, i) => i + 1).filter((s) => s === 1 || s % step === 0).map((s) => [s, String(s)] as const);
  return lineChart(
    [
      { name: 'responses/s', color: '#1f77b4', points: b.map((x, i) => [i + 1, x.completed] as const) },
      { name: 'succeeded/s', color: '#2ca02c', points: b.map((x, i) => [i + 1, x.ok] as const) },
      { name: `${r.unit}/s`, color: '#ff7f0e', points: b.map((x, i) => [i + 1, x.units] as const) },
      { name: 'errors/s', color: '#d62728', points: b.map((x, i) => [i + 1, x.errors] as const) },
    ],
    { title: 'Throughput over time', xLabel: 'second', yLabel: 'per second', xTicks: ticks },
  );
}

export function curveCharts(r: LoadRunResult): string {
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

/** `sections`: further HTML (capacity search, baseline comparison) shown after the summary table. */
export function toLoadHtml(r: LoadRunResult, sections: readonly string[] = []): string {
  const row = (k: string, v: string): string => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`;
  const checks = r.checks.map((c) => `<li class="${c.passed ? 'ok' : 'bad'}">${c.passed ? 'passed' : 'FAILED'}: ${esc(c.name)} — ${esc(c.message)}</li>`).join('');
  const thresholds = r.thresholds.map((t) => `<li class="${t.passed ? 'ok' : 'bad'}">${esc(t.threshold)}: ${esc(t.actualText)} — ${t.passed ? 'passed' : 'broken'}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pouchproof load ${esc(r.runId)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;max-width:760px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse}th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}td{text-align:right}
svg{display:block;margin:8px 0;background:#fff;border:1px solid #eee}
svg text{font:11px system-ui,sans-serif;fill:#333}svg .t{font-size:13px;font-weight:600}
svg .g{stroke:#eee}svg .a{stroke:#888}
.ok{color:#1a7f37}.bad{color:#c62828;font-weight:600}
</style></head><body>
<h1>Load run ${esc(r.runId)}: ${esc(r.scenario)} — ${r.exitCode === 0 ? '<span class="ok">passed</span>' : '<span class="bad">FAILED</span>'}${r.interrupted ? ' (interrupted: partial)' : ''}</h1>
<p>${esc(r.description)}.</p>
<table>
${row('target', publicUrl(r.target.url) + (r.target.embedded ? ' (embedded reference)' : ''))}
${row('model', modelText(r))}
${row('measured', `${(r.totals.wallMs / 1000).toFixed(1)} s, ${r.totals.sent} requests`)}
${row('requests/s', r.rates.rps.toFixed(1))}
${row(`goodput (${r.unit}/s)`, r.rates.goodput.toFixed(1))}
${row('p50 / p90 / p99 / p99.9 / max (ms)', [r.latency.p50, r.latency.p90, r.latency.p99, r.latency.p999, r.latency.max].map(ms).join(' / '))}
${row('error rate', `${(r.errorRate * 100).toFixed(3)}%`)}
</table>
${sections.join('\n')}
<h2>Latency percentile spectrum</h2>
${spectrumChart(r)}
<h2>Throughput over time</h2>
${throughputChart(r)}
${r.curves?.length ? `<h2>Cost curves</h2>\n${curveCharts(r)}` : ''}
${checks ? `<h2>Checks</h2><ul>${checks}</ul>` : ''}
${thresholds ? `<h2>Thresholds</h2><ul>${thresholds}</ul>` : ''}
<h2>Load generator</h2><p>${esc(r.generator.note)}.</p>
</body></html>
`;
}

/** Line charts as inline SVG (no script, no network), shared by load.html and report.html. */
import { esc } from './html-text.ts';

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

/** The styles the charts' classes need (`t` title, `g` grid, `a` axis). */
export const CHART_CSS = `svg{display:block;margin:8px 0;background:#fff;border:1px solid #eee}
svg text{font:11px system-ui,sans-serif;fill:#333}svg .t{font-size:13px;font-weight:600}
svg .g{stroke:#eee}svg .a{stroke:#888}`;

const W = 720, H = 300, ML = 64, MR = 16, MT = 28, MB = 44;

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export const fmt = (v: number): string => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2).replace(/\.?0+$/, '') || '0');

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
  const legendX: number[] = [];
  for (const [i] of series.entries()) legendX.push(i === 0 ? ML + 10 : legendX[i - 1] + 28 + 6 * series[i - 1].name.length);
  series.forEach((s, i) => {
    if (s.points.length === 0) return;
    const d = s.points.map((p, k) => `${k === 0 ? 'M' : 'L'}${X(p[0]).toFixed(1)} ${Y(p[1]).toFixed(1)}`).join(' ');
    out.push(`<path d="${d}" fill="none" stroke="${esc(s.color)}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    if (!s.dashed) for (const p of s.points) out.push(`<circle cx="${X(p[0]).toFixed(1)}" cy="${Y(p[1]).toFixed(1)}" r="2.5" fill="${esc(s.color)}"/>`);
    out.push(`<rect x="${legendX[i].toFixed(1)}" y="${MT + 2}" width="12" height="4" fill="${esc(s.color)}"/><text x="${(legendX[i] + 16).toFixed(1)}" y="${MT + 8}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('');
}

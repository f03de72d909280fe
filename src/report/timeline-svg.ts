/**
 * A history's timeline as inline SVG: one lane per client, each operation a bar from its invocation
 * to its completion labelled with what it was and what came of it; an operation of unknown outcome
 * (a timeout, a 5xx: it may or may not have taken effect) is drawn dashed and open to the right end.
 */
import type { TimelineReport } from './report-json.ts';
import { esc } from './html-text.ts';
import { fmt } from './svg-chart.ts';

type Op = TimelineReport['ops'][number];

const W = 960, LEFT = 120, RIGHT = 24, TOP = 30, ROW = 38, AXIS = 36;

/** Rows within one lane, so that operations of one client that overlap (a batch) do not hide each other. */
function stack(ops: readonly Op[], end: number): Op[][] {
  const rows: { until: number; ops: Op[] }[] = [];
  for (const op of ops) {
    const until = op.retMs ?? end;
    const row = rows.find((r) => r.until < op.callMs);
    if (row) {
      row.ops.push(op);
      row.until = until;
    } else rows.push({ until, ops: [op] });
  }
  return rows.map((r) => r.ops);
}

export function timelineSvg(t: TimelineReport): string {
  if (t.ops.length === 0) return `<p class="empty">${esc(t.title)}: no operations</p>`;
  const ops = [...t.ops].sort((a, b) => a.callMs - b.callMs || a.id - b.id);
  const known = ops.flatMap((o) => [o.callMs, o.retMs ?? o.callMs]);
  // Open-ended bars run a little past the last moment anything was seen.
  const last = Math.max(...known);
  const span = (last - Math.min(0, ...known)) || 1;
  const end = last + span * 0.08;
  const X = (ms: number): number => LEFT + (ms / end) * (W - LEFT - RIGHT);
  const clients = [...new Set(ops.map((o) => o.client))];
  const lanes = clients.map((c) => ({ client: c, rows: stack(ops.filter((o) => o.client === c), end) }));
  const rows = lanes.reduce((n, l) => n + l.rows.length, 0);
  const H = TOP + rows * ROW + AXIS;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="timeline" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(`timeline of ${t.title}`)}">`);
  out.push(`<text x="${W / 2}" y="18" text-anchor="middle" class="t">${esc(`Timeline of ${t.title}: ${ops.length} operation(s) that cannot be ordered`)}</text>`);
  let y = TOP;
  lanes.forEach((lane, li) => {
    const h = lane.rows.length * ROW;
    if (li % 2 === 0) out.push(`<rect x="0" y="${y}" width="${W}" height="${h}" class="lane"/>`);
    out.push(`<text x="8" y="${y + h / 2 + 4}" class="client">${esc(lane.client)}</text>`);
    lane.rows.forEach((row, ri) => {
      const by = y + ri * ROW + 20;
      for (const op of row) {
        const x1 = X(op.callMs);
        const pending = op.retMs === undefined;
        const x2 = Math.max(x1 + 3, X(op.retMs ?? end));
        const label = `#${op.id} ${op.label}`;
        // A label starting late in the axis is drawn leftwards from its bar's end, so it stays inside.
        const anchorEnd = x1 > LEFT + (W - LEFT - RIGHT) * 0.55;
        out.push(
          `<g class="op${/* not pending, so the op returned */ pending ? ' pending' : ''}" data-op="${op.id}"><title>${esc(`${label} (${fmt(op.callMs)} ms → ${pending ? 'no answer: may or may not have taken effect' : `${fmt(op.retMs!)} ms`})`)}</title>` +
            `<rect x="${x1.toFixed(1)}" y="${by}" width="${(x2 - x1).toFixed(1)}" height="10" rx="2"${pending ? ' stroke-dasharray="6 4"' : ''}/>` +
            `<line x1="${x1.toFixed(1)}" x2="${x1.toFixed(1)}" y1="${by - 3}" y2="${by + 13}"/>` +
            (pending ? `<path d="M${x2.toFixed(1)} ${by - 2} l6 7 l-6 7" fill="none"/>` : `<line x1="${x2.toFixed(1)}" x2="${x2.toFixed(1)}" y1="${by - 3}" y2="${by + 13}"/>`) +
            `<text x="${(anchorEnd ? x2 : x1).toFixed(1)}" y="${by - 5}"${anchorEnd ? ' text-anchor="end"' : ''}>${esc(label)}</text></g>`,
        );
      }
    });
    y += h;
  });
  out.push(`<line x1="${LEFT}" x2="${W - RIGHT}" y1="${y + 4}" y2="${y + 4}" class="a"/>`);
  for (let i = 0; i <= 5; i++) {
    const ms = (last * i) / 5;
    out.push(`<line x1="${X(ms).toFixed(1)}" x2="${X(ms).toFixed(1)}" y1="${y + 4}" y2="${y + 8}" class="a"/><text x="${X(ms).toFixed(1)}" y="${y + 20}" text-anchor="middle">${fmt(ms)} ms</text>`);
  }
  out.push('</svg>');
  return out.join('');
}

/** Styles of the timeline's classes. */
export const TIMELINE_CSS = `svg.timeline .lane{fill:#f6f8fa}svg.timeline .client{font-weight:600}
svg.timeline .op rect{fill:#cfe3f7;stroke:#1f77b4}svg.timeline .op line,svg.timeline .op path{stroke:#1f77b4;stroke-width:1.5}
svg.timeline .op.pending rect{fill:#fff4e0;stroke:#e07b00}svg.timeline .op.pending line,svg.timeline .op.pending path{stroke:#e07b00}`;

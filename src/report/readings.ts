/**
 * The readings table of a discovery (`pouchproof probe`, `--assume auto`): one row per assumption
 * a server decides, with the reading observed (or why none), and a short summary of the evidence.
 * As Markdown for reports and as plain lines for the console; JSON-ready for `--json`. Rendering
 * only: the discovery itself lives in src/discover.
 */
import type { Discovery, ProbeResult } from '../discover/index.ts';
import { DEFAULT_ASSUMPTIONS } from '../spec/index.ts';

/** What the row says in the reading column. */
export function readingCell(r: ProbeResult): string {
  switch (r.status) {
    case 'found':
      return r.reading === DEFAULT_ASSUMPTIONS[r.assumption] ? `${r.reading} (default)` : r.reading;
    case 'not-observable':
      return 'not observable';
    case 'unknown':
      return 'unknown';
    default:
      return r satisfies never;
  }
}

/** One sentence on why: what was seen for a found reading, else the reason. */
export function evidenceSummary(r: ProbeResult): string {
  const parts: string[] = [];
  if (r.status === 'found') {
    if (r.detail) parts.push(r.detail);
    const others = (r.consistent).filter((c) => c !== r.reading);
    if (others.length) parts.push(`also fits ${others.join(', ')}`);
    parts.push(`${r.evidence.length} request${r.evidence.length === 1 ? '' : 's'}`);
  } else {
    parts.push(r.why);
    if (r.evidence.length) parts.push(`last: ${r.evidence[r.evidence.length - 1]}`);
  }
  return parts.join('; ');
}

function fixedNote(d: Discovery, r: ProbeResult): string {
  const fixed = d.fixed[r.assumption];
  if (fixed === undefined) return '';
  const m = d.mismatches.find((x) => x.assumption === r.assumption);
  return m ? ` [fixed to ${fixed}: MISMATCH, the target was seen to take ${m.observed}]` : ` [fixed to ${fixed}]`;
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');

export function readingsMarkdown(d: Discovery): string {
  const found = d.table.filter((r) => r.status === 'found').length;
  const lines = [
    '## Readings of the target',
    '',
    `${found} of ${d.table.length} readings observed with ${d.requests} requests in ${Math.round(d.durationMs)} ms.`,
    '',
    '| assumption | reading | evidence |',
    '|---|---|---|',
    ...d.table.map((r) => `| ${r.assumption} | ${cell(readingCell(r) + fixedNote(d, r))} | ${cell(evidenceSummary(r))} |`),
  ];
  if (d.mismatches.length) {
    lines.push('', 'Readings fixed by the profile or `--assume` that the target was seen not to take:', '');
    for (const m of d.mismatches) lines.push(`- ${m.assumption}: fixed to ${m.fixed}, observed ${m.observed}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Plain console lines: the assumption padded, the reading, the summary; `verbose` adds every evidence line. */
export function readingsConsoleLines(d: Discovery, o: { verbose?: boolean } = {}): string[] {
  const width = Math.max(...d.table.map((r) => r.assumption.length));
  const readingWidth = Math.max(...d.table.map((r) => readingCell(r).length));
  const out = [`readings of the target (${d.requests} requests, ${Math.round(d.durationMs)} ms):`];
  const whys = new Set(d.table.map((r) => (r.status === 'found' ? '' : `${r.status}: ${r.why}`)));
  const only = d.table[0];
  if (whys.size === 1 && only && only.status !== 'found') {
    // Nothing was probed (the target is down, stalls, answers garbage): one line, not one per row.
    out.push(`  all ${d.table.length} ${readingCell(only)}: ${only.why}`, ...only.evidence.map((e) => `      ${e}`));
    return out;
  }
  for (const r of d.table) {
    out.push(`  ${r.assumption.padEnd(width)}  ${readingCell(r).padEnd(readingWidth)}  ${evidenceSummary(r)}${fixedNote(d, r)}`);
    if (o.verbose) for (const e of r.evidence) out.push(`      ${e}`);
  }
  return out;
}

/** JSON-ready form of a discovery (already redacted: evidence lines are masked when recorded). */
export function readingsJson(d: Discovery): Record<string, unknown> {
  return {
    readings: d.readings,
    fixed: d.fixed,
    mismatches: d.mismatches,
    requests: d.requests,
    durationMs: Math.round(d.durationMs),
    table: d.table,
  };
}

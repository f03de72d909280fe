/**
 * The comparison's reports: `compare.json` (everything), `compare.md` (the matrices and the
 * divergences, one line per kind) and the console lines. Cells are rendered as given, so a finding
 * kind or status this file does not know still shows.
 */
import type { Comparison, Repro } from '../compare/index.ts';
import { comparisonExitCode, sideExitCode } from '../check/run/index.ts';
import { curlLines } from './curl-lines.ts';
import { cell, fence } from './markdown.ts';

/** A side's repro as lines: its requests as curl lines (a finding's are rendered alike), or the probe's evidence as `#` comments. */
export function reproLines(r: Repro): string[] {
  return 'probe' in r ? r.probe.map((e) => `# probe: ${e}`) : curlLines(r);
}

/** One target's load figures (the same scenario and settings against each target in turn). */
export interface LoadFigures {
  readonly side: string;
  readonly requests: number;
  readonly rps: number;
  readonly okPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errorRate: number;
  readonly checks: string;
}

export interface LoadComparison {
  readonly scenario: string;
  readonly settings: string;
  readonly rows: readonly LoadFigures[];
}

/**
 * compare.json: the comparison, with the exit codes the policy gives it and each side written beside
 * the figures, and each divergence's repros as lines (as before they were computed, not stored).
 */
export function compareJson(c: Comparison, load?: LoadComparison): string {
  const sides = c.sides.map((s) => ({ ...s, exitCode: sideExitCode(s) }));
  const divergences = c.divergences.map((d) => ({ ...d, sides: d.sides.map((s) => ({ ...s, repro: reproLines(s.repro) })) }));
  return `${JSON.stringify({ ...c, sides, divergences, exitCode: comparisonExitCode(c), ...(load ? { load } : {}) }, null, 2)}\n`;
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [`| ${head.map(cell).join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)];
}

const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : String(n));

export function compareMarkdown(c: Comparison, load?: LoadComparison): string {
  const names = c.sides.map((s) => s.name);
  const out: string[] = [
    `# pouchproof compare`,
    '',
    `Seed ${c.seed}, ${c.runs} runs per property${c.only ? `, only ${c.only.join(',')}` : ''}; ${c.casesCompared} cases compared; exit ${comparisonExitCode(c)}${c.interrupted ? ' (interrupted)' : ''}.`,
    '',
    ...table(['target', 'url', 'readings (non-default)', 'requests', 'exit'], c.sides.map((s) => [s.name, s.target, Object.entries(s.readings).map(([k, v]) => `${k}=${v}`).join(', ') || 'defaults', String(s.requests), `${sideExitCode(s)}${s.unreachable ? ` (${s.unreachable})` : ''}`])),
    '',
    `## Divergences (${c.divergences.length})`,
    '',
    ...(c.divergences.length ? c.divergences.map((d) => `- **${d.kind}**: ${d.title}`) : ['none']),
    ...(c.noiseCases ? ['', `${c.noiseCases} case(s) differed only in fields a target answers differently by itself (noise, not reported): ${c.noise.map((n) => `${n.side} ${n.property} ${n.fields.join(', ')}`).join('; ')}`] : []),
    '',
    '## Properties × targets',
    '',
    ...table(['property', 'section', ...names], c.properties.map((p) => [p.id, p.section, ...names.map((n) => p.cells[n] ?? '')])),
    '',
    '## Readings × targets',
    '',
    ...table(['assumption', ...names, 'differ'], c.readings.map((r) => [r.assumption, ...names.map((n) => r.cells[n] ?? ''), r.differ ? 'yes' : ''])),
    '',
  ];
  if (load) {
    out.push(`## Load: ${load.scenario} (${load.settings}), one target after another`, '');
    out.push(...table(['target', 'requests', 'req/s', 'ok/s', 'p50 ms', 'p99 ms', 'errors', 'checks'], load.rows.map((r) => [r.side, String(r.requests), fmt(r.rps), fmt(r.okPerSecond), fmt(r.p50Ms, 2), fmt(r.p99Ms, 2), `${fmt(r.errorRate * 100, 3)}%`, r.checks])), '');
  }
  if (c.divergences.length) {
    out.push('## Repros', '');
    for (const d of c.divergences) {
      out.push(`### ${d.kind}: ${d.property ?? d.assumption ?? ''}`, '', d.title, '', ...d.fields.map((f) => `- ${f}`), '');
      for (const s of d.sides) {
        out.push(`**${s.name}**: ${s.verdict}${s.detail ? ` — ${s.detail}` : ''}`, '');
        const repro = reproLines(s.repro);
        if (repro.length) out.push(fence(repro.join('\n')), '');
      }
    }
  }
  return out.join('\n');
}

/** What the console prints: the divergences, the properties and readings that are not alike on every side. */
export function compareConsoleLines(c: Comparison, load?: LoadComparison): string[] {
  const names = c.sides.map((s) => s.name);
  const w = Math.max(12, ...c.properties.map((p) => p.id.length), ...c.readings.map((r) => r.assumption.length));
  const col = (cells: Readonly<Record<string, string>>) => names.map((n) => (cells[n] ?? '').padEnd(Math.max(14, n.length + 2))).join('').trimEnd();
  const head = `${''.padEnd(w + 2)}${names.map((n) => n.padEnd(Math.max(14, n.length + 2))).join('').trimEnd()}`;
  const props = c.properties.filter((p) => names.some((n) => p.cells[n] !== 'passed'));
  const readings = c.readings.filter((r) => r.differ);
  const out = [
    `properties × targets (${c.properties.length - props.length} of ${c.properties.length} passed on every side; the others:)`,
    head,
    ...props.map((p) => `  ${p.id.padEnd(w)}${col(p.cells)}`),
    `readings × targets (${readings.length} differ of ${c.readings.length} probed):`,
    head,
    ...readings.map((r) => `  ${r.assumption.padEnd(w)}${col(r.cells)}`),
  ];
  if (load) {
    out.push(`load ${load.scenario} (${load.settings}):`);
    for (const r of load.rows) out.push(`  ${r.side.padEnd(w)}${fmt(r.rps)} req/s, ${fmt(r.okPerSecond)} ok/s, p50 ${fmt(r.p50Ms, 2)} ms, p99 ${fmt(r.p99Ms, 2)} ms, errors ${fmt(r.errorRate * 100, 3)}%, checks ${r.checks}`);
  }
  for (const s of c.sides) if (s.unreachable) out.push(`${s.name}: not judged: ${s.unreachable}`);
  out.push(`divergences (${c.divergences.length}):`, ...c.divergences.map((d) => `  ${d.kind}: ${d.title}`));
  if (c.noiseCases) out.push(`noise: ${c.noiseCases} case(s) differed only where a target answers differently by itself (not reported)`);
  return out;
}

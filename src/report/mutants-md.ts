/** `mutants.md`: the kill matrix of `pouchproof mutants` as Markdown. */
import type { FaultResult, MutantsResult } from '../check/mutants.ts';
import { cell } from './markdown.ts';

/** How a property saw a fault, after its id: nothing for a violation, else the kind (and the reading). */
export function killHow(k: FaultResult['kills'][number]): string {
  return k.kind === 'violation' ? '' : k.kind === 'assumption' ? ` (assumption ${k.assumption ?? '?'})` : ` (${k.kind})`;
}

export function killMatrixMarkdown(r: MutantsResult): string {
  const out: string[] = [];
  const pct = r.expected ? Math.round((100 * r.killed) / r.expected) : 100;
  const seeds = r.clean.filter((c) => !c.loadCheck).length;
  const checks = r.clean.length - seeds;
  out.push(`## Kill matrix: ${r.killed}/${r.expected} faults killed (${pct}%), ${r.falseFindings} false finding(s) over ${seeds} seed(s)${checks ? ` and ${checks} load check(s)` : ''}`);
  out.push('');
  out.push(`Seed \`${r.seed}\`, ${r.runs} runs per property${r.medianRequestsToDetection !== undefined ? `, median requests to detection ${r.medianRequestsToDetection}` : ''}${r.interrupted ? ' — **interrupted**' : ''}.`);
  out.push('');
  out.push('A fault is killed when a property reports a violation, a server error or a crash (the target went down), or — for a fault that departs from a registry reading where the spec is silent — an assumption mismatch naming exactly that reading (reported, not failed, in ordinary runs). Load-only faults are killed by load checks. On the correct reference every finding is a false one, and so is an inconclusive property.', '');
  out.push('| fault | area | killed | killing properties | expected killers | requests to detection |');
  out.push('|---|---|---|---|---|---:|');
  for (const f of r.faults) {
    const status = f.killed ? '✅' : f.ran ? '❌ survived' : f.loadOnly ? '— no load check' : '— not run';
    const killers = f.kills.map((k) => `\`${k.property}\`${killHow(k)}`);
    out.push(`| \`${f.fault}\` | ${f.area} | ${status} | ${[...new Set(killers)].join(', ') || '—'} | ${f.expectedKillers.map((k) => `\`${k}\``).join(', ')} | ${f.requestsToDetection ?? '—'} |`);
  }
  if (r.clean.length) {
    out.push('', '### Correct reference', '', '| run | requests | false findings | assumption mismatches |', '|---|---:|---|---:|');
    for (const c of r.clean) {
      out.push(`| ${c.loadCheck ? `load check \`${c.loadCheck}\`` : `seed ${c.seed}`} | ${c.requests} | ${c.falseFindings.map((x) => `\`${x.property}\` ${x.kind}: ${cell(x.message)}`).join('<br>') || '0'} | ${c.assumptionMismatches} |`);
    }
  }
  if (r.survivors.length) out.push('', `Surviving faults: ${r.survivors.map((s) => `\`${s}\``).join(', ')}`);
  return `${out.join('\n')}\n`;
}

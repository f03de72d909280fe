/** `mutants.md`: the kill matrix of `pouchproof mutants` as Markdown. */
import { compareKillers, type FaultResult, type MutantsResult } from '../mutants/index.ts';
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
  out.push('A fault is killed when a property reports a violation, a server error or a crash (the target went down), or — for a fault that departs from a registry reading where the spec is silent — an assumption mismatch naming exactly that reading (reported, not failed, in ordinary runs). Load-only faults are killed by load checks. On the correct reference every finding is a false one.', '');
  out.push('Expected killers are the fault catalogue\'s (`expectedKillers`); ✓ marks those that killed it. A killer not expected is marked *unexpected*; a fault killed by none of its expected killers is listed below the table. Without `--full` a fault\'s run tries its expected killers first and stops at the first kill.', '');
  out.push('| fault | area | killed | expected killers | actual killers | as expected | requests to detection |');
  out.push('|---|---|---|---|---|---|---:|');
  for (const f of r.faults) {
    const status = f.killed ? '✅' : f.ran ? '❌ survived' : f.loadOnly ? '— no load check' : '— not run';
    const cmp = compareKillers(f);
    const expected = f.expectedKillers.map((k) => `\`${k}\`${cmp.expectedKillers.includes(k) ? ' ✓' : ''}`);
    const actual = [...new Set(f.kills.map((k) => `\`${k.property}\`${killHow(k)}${cmp.unexpectedKillers.includes(k.property) ? ' *unexpected*' : ''}`))];
    const match = !f.killed ? '—' : cmp.asExpected ? (cmp.unexpectedKillers.length ? 'yes, and others' : 'yes') : '⚠ no';
    out.push(`| \`${f.fault}\` | ${f.area} | ${status} | ${expected.join(', ')} | ${actual.join(', ') || '—'} | ${match} | ${f.requestsToDetection ?? '—'} |`);
  }
  if (r.clean.length) {
    out.push('', '### Correct reference', '', '| run | requests | false findings | assumption mismatches |', '|---|---:|---|---:|');
    for (const c of r.clean) {
      out.push(`| ${c.loadCheck ? `load check \`${c.loadCheck}\`` : `seed ${c.seed}`} | ${c.requests} | ${c.falseFindings.map((x) => `\`${x.property}\` ${x.kind}: ${cell(x.message)}`).join('<br>') || '0'} | ${c.assumptionMismatches} |`);
    }
  }
  if (r.survivors.length) out.push('', `Surviving faults: ${r.survivors.map((s) => `\`${s}\``).join(', ')}`);
  if (r.unexpectedlyKilled.length) out.push('', `Killed by none of their expected killers: ${r.unexpectedlyKilled.map((s) => `\`${s}\``).join(', ')}`);
  return `${out.join('\n')}\n`;
}

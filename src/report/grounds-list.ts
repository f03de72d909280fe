/**
 * `pouchproof list --grounds`: every judgement of the catalogue with what it rests on — a clause of
 * SPEC.md, quoted, for the judgements that can raise a violation; a registry reading for the ones
 * that raise assumption findings; the judged constraint's own clause for the inventory checks. The
 * judgements every property shares are printed once.
 */
import { COMMON_JUDGEMENTS } from '../check/judge/judgements.ts';
import type { Judgement, Property } from '../check/property.ts';
import { ASSUMPTIONS, describeGround } from '../spec/index.ts';

export interface GroundRow {
  readonly judgement: string;
  readonly rule: string;
  /** `violation` (the spec's letter), `assumption` (a reading), `violation` per constraint, or `performance` (a cost smell, no clause). */
  readonly finding: 'violation' | 'assumption' | 'performance';
  readonly ground: string;
  /** The properties that can return it (`*` for the shared ones). */
  readonly properties: readonly string[];
  /** The registry questions its verdict reads (`[]`: none, it holds under every reading); every judgement declares them. */
  readonly reads: readonly string[];
}

function groundText(j: Judgement): string {
  switch (j.ground.kind) {
    case 'spec':
    case 'reading':
      return describeGround(j.ground);
    case 'constraint':
      return 'the clause of the constraint judged (each inventory entry quotes its own; `pouchproof inventory`)';
    case 'performance':
      return `no clause of SPEC.md: ${j.ground.basis} (reported apart; fails the run only under --fail-on performance)`;
    default:
      return j.ground satisfies never;
  }
}

export function groundRows(props: readonly Property[]): GroundRow[] {
  const shared = new Set(COMMON_JUDGEMENTS.map((j) => j.id));
  const rows = new Map<string, { j: Judgement; props: string[] }>();
  for (const j of COMMON_JUDGEMENTS) rows.set(j.id, { j, props: ['*'] });
  for (const p of props) {
    for (const j of p.judgements) {
      if (shared.has(j.id)) continue;
      const r = rows.get(j.id) ?? { j, props: [] };
      r.props.push(p.id);
      rows.set(j.id, r);
    }
  }
  return [...rows.values()].map(({ j, props: ps }) => ({
    judgement: j.id,
    rule: j.rule,
    finding: j.ground.kind === 'reading' ? 'assumption' : j.ground.kind === 'performance' ? 'performance' : 'violation',
    ground: groundText(j),
    properties: ps,
    reads: [...j.reads],
  }));
}

export function groundLines(rows: readonly GroundRow[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    out.push(`${r.judgement}  → ${r.finding}`);
    out.push(`    ${r.rule}`);
    out.push(`    ground: ${r.ground}`);
    out.push(`    reads: ${readsLine(r.reads)}`);
    out.push(`    properties: ${r.properties.join(', ')}`);
  }
  const v = rows.filter((r) => r.finding === 'violation').length;
  const perf = rows.filter((r) => r.finding === 'performance').length;
  out.push('', `${rows.length} judgements: ${v} rest on the spec's words (violations), ${rows.length - v - perf} on named readings (assumption findings), ${perf} on cost (performance findings, no clause)`);
  return out;
}

/** The readings a verdict reads, in words: a list longer than half the registry is said by what it leaves out. */
function readsLine(reads: readonly string[]): string {
  if (reads.length === 0) return 'no reading (judged whatever the probe identified)';
  // In registry order, so two judgements' lists read alike whatever order they were declared in.
  const left = ASSUMPTIONS.map((a) => a.name).filter((n) => !reads.includes(n));
  return reads.length > left.length ? `every reading but ${left.join(', ')}` : ASSUMPTIONS.map((a) => a.name).filter((n) => reads.includes(n)).join(', ');
}

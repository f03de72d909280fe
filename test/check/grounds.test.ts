/**
 * Every judgement names its ground, and a ground that claims the spec's letter quotes words SPEC.md
 * contains: a violation can only rest on what the spec says. The runner refuses findings from
 * judgements a property does not list (vetOutcome), so the list is complete by construction.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import { UngroundedFinding, vetOutcome } from '../../src/check/judge/grounds.ts';
import { COMMON_JUDGEMENTS, READING_FREE, SERVES, specJudgement, type Judgement } from '../../src/check/judge/judgements.ts';
import { groundLines, groundRows } from '../../src/report/grounds-list.ts';
import { ASSUMPTION_BY_NAME, CLAUSES, normaliseSpecText } from '../../src/spec/index.ts';
import { SPEC_PATH } from '../repo-paths.ts';


function specText(): string {
  if (!existsSync(SPEC_PATH)) throw new Error(`SPEC.md not found at ${SPEC_PATH}: the grounds cannot be checked without it`);
  return normaliseSpecText(readFileSync(SPEC_PATH, 'utf8'));
}

function sectionsOf(): Set<string> {
  const raw = readFileSync(SPEC_PATH, 'utf8');
  const out = new Set<string>(['intro']);
  for (const m of raw.matchAll(/^#{2,3} (\d+(?:\.\d+)?)[ .]/gm)) out.add(m[1]!);
  return out;
}

describe('grounds', () => {
  const spec = specText();
  const sections = sectionsOf();

  it('every named clause quotes SPEC.md and names one of its sections', () => {
    for (const [name, c] of Object.entries(CLAUSES)) {
      expect(spec.includes(normaliseSpecText(c.quote)), `${name}: "${c.quote}"`).toBe(true);
      expect(sections.has(c.section), `${name}: section ${c.section}`).toBe(true);
    }
  });

  it('every judgement of every property rests on a quoted clause, a constraint, or a reading the property declares', () => {
    let n = 0;
    for (const p of ALL_PROPERTIES) {
      expect(p.judgements.length, p.id).toBeGreaterThan(0);
      for (const j of p.judgements) {
        n++;
        switch (j.ground.kind) {
          case 'spec':
            expect(spec.includes(normaliseSpecText(j.ground.clause.quote)), `${p.id} ${j.id}: "${j.ground.clause.quote}"`).toBe(true);
            expect(sections.has(j.ground.clause.section), `${p.id} ${j.id}`).toBe(true);
            break;
          case 'reading':
            expect(ASSUMPTION_BY_NAME.has(j.ground.assumption), `${p.id} ${j.id}`).toBe(true);
            expect(p.assumptions, `${p.id} lists judgement ${j.id} on reading ${j.ground.assumption} without declaring it`).toContain(j.ground.assumption);
            break;
          case 'constraint':
            break;
          case 'performance':
            // No clause: a cost rule of thumb, whose findings are reported apart (never a violation).
            expect(j.ground.basis.length, `${p.id} ${j.id}`).toBeGreaterThan(20);
            break;
          default:
            j.ground satisfies never;
        }
      }
      const ids = p.judgements.map((j) => j.id);
      expect(new Set(ids).size, `${p.id}: judgement ids repeat`).toBe(ids.length);
    }
    expect(n).toBeGreaterThan(ALL_PROPERTIES.length);
  });

  // Issue 29: unknown is scoped to the judgement, so each one says which registry questions its verdict
  // reads; a judgement without the list would fall back to whatever its case consulted.
  it('every judgement declares the readings it reads: registry names, its own reading among them', () => {
    const all: Judgement[] = [...COMMON_JUDGEMENTS, ...ALL_PROPERTIES.flatMap((p) => p.judgements)];
    const undeclared = all.filter((j) => !Array.isArray(j.reads)).map((j) => j.id);
    expect(undeclared, 'judgements without `reads`').toEqual([]);
    // Every reading at once is what a library user's judgement reads when it declares nothing (EVERY_READING): none of the catalogue's rests on that default.
    expect(all.filter((j) => j.reads.length === ASSUMPTION_BY_NAME.size).map((j) => j.id), 'judgements left at the default of every reading').toEqual([]);
    for (const j of all) {
      for (const n of j.reads) expect(ASSUMPTION_BY_NAME.has(n), `${j.id} reads ${n}`).toBe(true);
      expect(new Set(j.reads).size, `${j.id}: reads repeats a name`).toBe(j.reads.length);
      if (j.ground.kind === 'reading') expect(j.reads, `${j.id} must read its own reading`).toContain(j.ground.assumption);
    }
    const lines = groundLines(groundRows(ALL_PROPERTIES));
    const readsLines = lines.filter((l) => l.trimStart().startsWith('reads: '));
    expect(readsLines.length).toBe(groundRows(ALL_PROPERTIES).length);
    expect(readsLines.filter((l) => !/^ {4}reads: (no reading|every reading but |[a-z0-9-]+(, [a-z0-9-]+)*$)/.test(l))).toEqual([]);
    // A list longer than half the registry is said by what it leaves out.
    expect(lines.join('\n')).toContain(`reads: every reading but ${['batch-atomicity', 'commit-results', 'seq-semantics', 'usage-stored-meaning', 'head-seq-semantics'].join(', ')}`);
  });

  it('judgements with one id have one ground across properties', () => {
    const seen = new Map<string, string>();
    for (const p of ALL_PROPERTIES) {
      for (const j of p.judgements) {
        const g = JSON.stringify(j.ground);
        expect(seen.get(j.id) ?? g, j.id).toBe(g);
        seen.set(j.id, g);
      }
    }
  });

  it('the runner refuses a violation from an unlisted judgement, one citing another clause, and an undeclared reading', () => {
    const p = ALL_PROPERTIES.find((x) => x.id === 'usage.idempotent')!;
    const stray = specJudgement('stray.rule', 'not listed', 'usageReports', READING_FREE);
    expect(() => vetOutcome(p, { ok: false, kind: 'violation', message: 'm', judgement: stray.id, clause: stray.ground.clause })).toThrow(UngroundedFinding);
    expect(() => vetOutcome(p, { ok: false, kind: 'violation', message: 'm', judgement: SERVES.reportUsage.id, clause: CLAUSES.membersHoldPouches })).toThrow(UngroundedFinding);
    expect(() => vetOutcome(p, { ok: false, kind: 'assumption', message: 'm', assumption: 'kid-binding' })).toThrow(UngroundedFinding);
    const ok = { ok: false, kind: 'violation', message: 'm', judgement: SERVES.reportUsage.id, clause: SERVES.reportUsage.ground.clause } as const;
    expect(vetOutcome(p, ok)).toBe(ok);
  });
});

/**
 * Every judgement names its ground, and a ground that claims the spec's letter quotes words SPEC.md
 * contains: a violation can only rest on what the spec says. The runner refuses findings from
 * judgements a property does not list (vetOutcome), so the list is complete by construction.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import { UngroundedFinding, vetOutcome } from '../../src/check/judge/grounds.ts';
import { SERVES, specJudgement } from '../../src/check/judge/judgements.ts';
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
    const stray = specJudgement('stray.rule', 'not listed', 'usageReports');
    expect(() => vetOutcome(p, { ok: false, kind: 'violation', message: 'm', judgement: stray.id, clause: stray.ground.clause })).toThrow(UngroundedFinding);
    expect(() => vetOutcome(p, { ok: false, kind: 'violation', message: 'm', judgement: SERVES.reportUsage.id, clause: CLAUSES.membersHoldPouches })).toThrow(UngroundedFinding);
    expect(() => vetOutcome(p, { ok: false, kind: 'assumption', message: 'm', assumption: 'kid-binding' })).toThrow(UngroundedFinding);
    const ok = { ok: false, kind: 'violation', message: 'm', judgement: SERVES.reportUsage.id, clause: SERVES.reportUsage.ground.clause } as const;
    expect(vetOutcome(p, ok)).toBe(ok);
  });
});

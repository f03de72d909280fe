/**
 * Every signature attack rests on words (issue 29 item 3): a plain verdict on a clause of SPEC.md or
 * a sentence of a standard the spec names, a reading-dependent one on its assumption's readings; and
 * docs/defects.md lists each attack with exactly those words, one line per attack id.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROPERTY_ATTACKS } from '../../properties/signatures.ts';
import { GROUNDS, NAMED_STANDARDS, auditRow, type AttackGround } from '../../src/crypto/attack-grounds.ts';
import { SIGNATURE_ATTACKS, type SignatureAttack } from '../../src/crypto/attacks.ts';
import { CLAUSES, normaliseSpecText } from '../../src/spec/index.ts';

const ATTACKS: readonly SignatureAttack[] = [...SIGNATURE_ATTACKS, ...PROPERTY_ATTACKS];
const DOC = readFileSync(new URL('../../docs/defects.md', import.meta.url), 'utf8');
const TITLE = '## Signature attacks: the words each rests on';

/** The section's table lines, keyed by the attack id of their first cell. */
function auditLines(): Map<string, string[]> {
  const start = DOC.indexOf(`\n${TITLE}\n`);
  expect(start, `docs/defects.md has a section "${TITLE}"`).toBeGreaterThanOrEqual(0);
  const body = DOC.slice(start + TITLE.length + 2);
  const section = body.slice(0, body.indexOf('\n## ') < 0 ? undefined : body.indexOf('\n## '));
  const out = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const m = /^\| `([^`]+)` \|/.exec(line);
    if (m) out.set(m[1]!, [...(out.get(m[1]!) ?? []), line]);
  }
  return out;
}

const grounds = (a: SignatureAttack, kind: AttackGround['kind']): AttackGround[] => a.rests.filter((g) => g.kind === kind);

describe('the words each signature attack rests on', () => {
  it.each(ATTACKS.map((a) => [a.id, a] as const))('%s', (_id, a) => {
    expect(a.rests.length, `${a.id} rests on something`).toBeGreaterThan(0);
    if (a.expect === 'assumption') {
      // Its first ground is its own reading, and no other reading.
      expect(a.rests[0], a.id).toEqual({ kind: 'reading', assumption: a.assumption });
      expect(grounds(a, 'reading'), a.id).toHaveLength(1);
    } else {
      // A plain verdict fails a target as a violation: only words of the spec or a standard it names.
      expect(grounds(a, 'reading'), `${a.id} is a plain verdict and cannot rest on a reading`).toEqual([]);
      expect(a.rests.every((g) => g.kind === 'spec' || g.kind === 'rfc'), a.id).toBe(true);
    }
  });

  it('each standard is named by a word of the clause it is reached through, and every clause cited is a clause', () => {
    for (const g of Object.values(GROUNDS)) {
      if (g.kind === 'rfc') {
        expect(CLAUSES[g.via].quote, `${g.rfc} via ${g.via}`).toContain(NAMED_STANDARDS[g.rfc]);
        expect(normaliseSpecText(g.words).length, g.words).toBeGreaterThan(20);
      }
      if (g.kind === 'spec') expect(CLAUSES[g.clause], g.clause).toBeDefined();
    }
    for (const a of ATTACKS) for (const g of a.rests) if (g.kind !== 'reading') expect(Object.values(GROUNDS), `${a.id} cites a ground of GROUNDS`).toContainEqual(g);
  });

  it('docs/defects.md has one line per attack id, no line without an attack, each with the data\'s verdict and words', () => {
    const lines = auditLines();
    const ids = ATTACKS.map((a) => a.id);
    expect([...lines.keys()].filter((id) => !ids.includes(id)), 'lines without an attack').toEqual([]);
    expect(ids.filter((id) => !lines.has(id)), 'attacks without a line').toEqual([]);
    for (const a of ATTACKS) {
      expect(lines.get(a.id), `${a.id}: one line`).toHaveLength(1);
      const line = lines.get(a.id)![0]!;
      expect(line.startsWith(auditRow(a)), `${a.id}: the line should begin\n${auditRow(a)}\nbut is\n${line}`).toBe(true);
    }
  });

  it('the checker catches a line that is not the data\'s', () => {
    const a = SIGNATURE_ATTACKS.find((x) => x.id === 'kid.wrong')!;
    const line = auditRow(a);
    expect(line).toContain('caller-key accept');
    expect(line.replace('caller-key accept', 'caller-key reject').startsWith(auditRow(a))).toBe(false);
  });
});

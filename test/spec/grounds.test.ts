/**
 * Every ground quotes SPEC.md: each constraint of the inventory and each named clause carries words
 * the spec contains, inside the section it names (both sides normalised by `normaliseSpecText`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLAUSES, INVENTORY, REQUEST_CONSTRAINTS, normaliseSpecText, type SpecClause } from '../../src/spec/index.ts';
import { SPEC_PATH } from '../repo-paths.ts';


/** SPEC.md cut at its headings: `intro` (before section 1), `1`…`9`, `2.1`…`4.6`; a section holds its subsections. */
function sections(md: string): Map<string, string> {
  const lines = md.split('\n');
  const heads: { id: string; level: number; at: number }[] = [{ id: 'intro', level: 1, at: 0 }];
  lines.forEach((line, i) => {
    const m = /^(#{2,3}) (\d+(?:\.\d+)?)\.? /.exec(line);
    if (m) heads.push({ id: m[2]!, level: m[1]!.length, at: i });
  });
  const out = new Map<string, string>();
  heads.forEach((h, k) => {
    const next = heads.slice(k + 1).find((n) => n.level <= h.level || h.id === 'intro');
    out.set(h.id, normaliseSpecText(lines.slice(h.at, next?.at ?? lines.length).join('\n')));
  });
  return out;
}

const spec = existsSync(SPEC_PATH) ? readFileSync(SPEC_PATH, 'utf8') : undefined;
const bySection = spec === undefined ? new Map<string, string>() : sections(spec);

/** Why a clause is not grounded, or undefined when its words are in its section. */
function problem(c: SpecClause): string | undefined {
  const text = bySection.get(c.section);
  if (text === undefined) return `no section "${c.section}" in SPEC.md`;
  const quote = normaliseSpecText(c.quote);
  if (quote === '') return 'empty quote';
  if (!text.includes(quote)) return `§${c.section} does not contain "${quote}"`;
  return undefined;
}

describe('grounds quote SPEC.md', () => {
  it('finds SPEC.md and its sections', () => {
    expect(spec, `SPEC.md not found at ${SPEC_PATH} (expected ../shared/SPEC.md beside the repository)`).toBeDefined();
    expect([...bySection.keys()]).toEqual(expect.arrayContaining(['intro', '1', '2', '2.1', '2.2', '2.8', '4', '4.1', '4.6', '5', '7', '8', '9']));
    // The cut is exact: a subsection's words are not in its sibling.
    expect(bySection.get('2.5')).toContain('blob_ids array of string yes');
    expect(bySection.get('2.6')).not.toContain('blob_ids');
  });

  it('the checker rejects words the spec does not have, or has elsewhere', () => {
    expect(problem({ section: '2.5', quote: 'blob_ids | array of string | yes | at most 2001 items' })).toBeDefined();
    expect(problem({ section: '2.6', quote: 'blob_ids | array of string | yes' })).toBeDefined();
    expect(problem({ section: '2.10', quote: 'ok' })).toBeDefined();
    expect(problem({ section: '2.5', quote: '`blob_ids` | array of string' })).toBeUndefined();
  });

  it('every named clause', () => {
    const bad = Object.entries(CLAUSES).flatMap(([name, c]) => {
      const p = problem(c);
      return p ? [`${name}: ${p}`] : [];
    });
    expect(bad).toEqual([]);
  });

  it('every constraint of the inventory, requests and responses', () => {
    expect(INVENTORY.length).toBeGreaterThan(REQUEST_CONSTRAINTS.length);
    const bad = INVENTORY.flatMap((c) => {
      const p = problem(c.clause);
      return p ? [`${c.id}: ${p}`] : [];
    });
    expect(bad).toEqual([]);
  });

  it('a constraint rests on its clause unless it exists only under a reading', () => {
    for (const c of INVENTORY) {
      if (c.assumption) expect(c.ground, c.id).toEqual({ kind: 'reading', assumption: c.assumption });
      else expect(c.ground, c.id).toEqual({ kind: 'spec', clause: c.clause });
    }
    expect(INVENTORY.filter((c) => c.kind === 'calendar').every((c) => c.assumption === 'day-calendar-valid')).toBe(true);
  });

  it('the clause states that rule for that field', () => {
    const quote = (id: string) => normaliseSpecText(INVENTORY.find((c) => c.id === id)!.clause.quote);
    expect(quote('commitOperations/body/ops[].blob_ids#maxItems')).toBe('blob_ids array of string yes at most 2000 items');
    expect(quote('commitOperations/params/pouchId#uuid')).toContain('8-4-4-4-12');
    expect(quote('reportUsage/params/sourceId#charset')).toBe('sourceId string, required, exactly 32 lowercase hexadecimal characters');
    expect(quote('revokeBrowser/body/roster.statements[].signature#charset')).toBe('signature string yes in the revoke roster: at most 342 characters, same alphabet');
    expect(quote('commitOperations/response/data.results[].status#enum')).toBe('status string yes allowed value: applied');
    expect(quote('reportUsage/response/data.stored#max')).toBe('data.stored (integer, required, -9007199254740991 to 9007199254740991)');
    expect(quote('reportUsage/body/rows#maxItems')).toBe('rows , required, array of Usage row (2.7), at most 2000 items');
    expect(quote('approveDevice/response/meta.request_id#required')).toBe('meta.request_id string yes');
    // A field's name is in every quote about it, and a required field's quote says so.
    for (const c of INVENTORY) {
      const leaf = c.path.replace(/\[\]/g, '').split('.').pop()!;
      const q = normaliseSpecText(c.clause.quote);
      if (leaf !== '' && c.kind !== 'uuid' && c.kind !== 'calendar') expect(q, c.id).toContain(leaf);
      if (c.kind === 'required' && !c.path.endsWith('[]')) expect(q, c.id).toMatch(/\byes\b|\brequired\b|Response: envelope with/);
    }
  });
});

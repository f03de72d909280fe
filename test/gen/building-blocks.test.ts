import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHARSETS, PATTERNS, UUID_MAX, UUID_NIL, isCalendarDay } from '../../src/spec/index.ts';
import {
  alphabetString,
  applyCase,
  caseForm,
  chainOps,
  concretePath,
  edgeDay,
  edgeUuid,
  FIRST_DAY,
  LAST_DAY,
  parseTemplate,
  plainString,
  toJsonPath,
  withAt,
} from '../../src/gen/index.ts';

describe('building blocks', () => {
  it('alphabet strings have the exact length and only alphabet characters, short or huge', () => {
    const chars = CHARSETS.base64url.chars;
    for (const n of [0, 1, 5, 43, 1000, 20000]) {
      const [s] = fc.sample(alphabetString(chars, n), { numRuns: 1, seed: n });
      expect(s).toHaveLength(n);
      expect([...s!].every((ch) => chars.includes(ch))).toBe(true);
    }
  });

  it('plain strings count code points and never hold a lone surrogate', () => {
    for (const s of fc.sample(plainString(30, 'astral'), { numRuns: 50, seed: 1 })) {
      expect([...s].length).toBe(30);
      expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s)).toBe(false);
    }
  });

  it('edge UUIDs are all valid and include nil, all-f, upper and mixed forms', () => {
    const us = fc.sample(edgeUuid, { numRuns: 500, seed: 1 });
    expect(us.every((u) => PATTERNS.uuid.regex.test(u))).toBe(true);
    expect(us).toContain(UUID_NIL);
    expect(us.some((u) => u.toLowerCase() === UUID_MAX)).toBe(true);
    expect(new Set(us.map(caseForm))).toEqual(new Set(['lower', 'upper', 'mixed']));
    expect(caseForm(applyCase('abcdef00-0000-4000-8000-000000000000', 'mixed'))).toBe('mixed');
  });

  it('edge days are calendar days within the pattern, including its first and last and Feb 29', () => {
    const ds = fc.sample(edgeDay, { numRuns: 400, seed: 1 });
    expect(ds.every((d) => PATTERNS.day.regex.test(d) && isCalendarDay(d))).toBe(true);
    expect(ds).toContain(FIRST_DAY);
    expect(ds).toContain(LAST_DAY);
    expect(ds.some((d) => d.endsWith('-02-29'))).toBe(true);
    expect(PATTERNS.day.regex.test(FIRST_DAY) && PATTERNS.day.regex.test(LAST_DAY)).toBe(true);
  });

  it('template paths resolve to one concrete location and edits copy only that path', () => {
    expect(parseTemplate('ops[].blob_ids[]')).toEqual(['ops', '[]', 'blob_ids', '[]']);
    expect(parseTemplate('')).toEqual([]);
    const body = { ops: [{ blob_ids: ['a'] }, { blob_ids: ['b', 'c'] }], keep: { x: 1 } };
    const at = concretePath(body, 'ops[].blob_ids[]', [1, 3])!;
    expect(at).toEqual(['ops', 1, 'blob_ids', 1]);
    expect(toJsonPath(at)).toBe('$.ops[1].blob_ids[1]');
    const next = withAt(body, at, 7) as typeof body;
    expect(next.ops[1]!.blob_ids).toEqual(['b', 7]);
    expect(body.ops[1]!.blob_ids).toEqual(['b', 'c']);
    expect(next.keep).toBe(body.keep);
    expect(concretePath({ ops: [] }, 'ops[].x', [0])).toBeUndefined();
  });

  it('chainOps makes duplicate ids distinct and chains later ops onto earlier revisions', () => {
    const u = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
    const op = (type: string) => ({ type, artifact_id: u, revision_id: u, base_revision_id: null });
    const out = chainOps([op('update'), op('create'), op('delete')]) as Record<string, unknown>[];
    expect(out[0]!.type).toBe('create');
    expect(new Set(out.map((o) => String(o.revision_id))).size).toBe(3);
    expect(out[2]!.base_revision_id).not.toBeNull();
    expect(out.every((o) => PATTERNS.uuid.regex.test(String(o.revision_id)))).toBe(true);
  });
});

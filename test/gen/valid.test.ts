import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, LIMITS, MAX_SAFE, OP_TYPES, PATTERNS, UUID_MAX, UUID_NIL, isCalendarDay } from '../../src/spec/index.ts';
import { isObject, maxRequest, requestIssues, validBody, validParams, validRequest, type Json, type JsonObject } from '../../src/gen/index.ts';

const objects = (v: Json | undefined): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) : []);

describe('valid generators', () => {
  for (const e of ENDPOINTS) {
    it(`every sample of ${e.id} passes its schemas`, () => {
      fc.assert(
        fc.property(validRequest(e.id), (r) => {
          expect(requestIssues(e.id, r)).toEqual([]);
        }),
        { numRuns: 120, seed: 42 },
      );
    });
  }

  it('accepts an Endpoint or its id, and names an unknown id in one line', () => {
    expect(fc.sample(validBody(ENDPOINTS[0]!), { numRuns: 1, seed: 1 })).toHaveLength(1);
    expect(fc.sample(validParams('reportUsage'), { numRuns: 1, seed: 1 })[0]!.sourceId).toMatch(/^[0-9a-f]+$/);
    expect(() => validBody('nope' as never)).toThrow('unknown endpoint "nope"');
  });

  it('commit samples reach every edge the issue lists', () => {
    const seen = new Set<string>();
    const note = (k: string, cond: boolean) => cond && seen.add(k);
    for (const body of fc.sample(validBody('commitOperations'), { numRuns: 600, seed: 7 })) {
      const ops = objects(body.ops);
      note('ops=min', ops.length === LIMITS.opsPerCommit.min);
      note('ops=max', ops.length === LIMITS.opsPerCommit.max);
      for (const op of ops) {
        note(`type:${String(op.type)}`, true);
        for (const k of ['artifact_id', 'revision_id', 'signer_member_id', 'merge_parent_id', 'conflict_id']) {
          const u = op[k];
          if (typeof u !== 'string') continue;
          note('uuid:nil', u === UUID_NIL);
          note('uuid:all-f', u.toLowerCase() === UUID_MAX);
          note('uuid:upper', /[A-F]/.test(u) && !/[a-f]/.test(u) && u !== UUID_MAX.toUpperCase());
          note('uuid:mixed', /[A-F]/.test(u) && /[a-f]/.test(u));
        }
        note('base:null', op.base_revision_id === null);
        note('base:uuid', typeof op.base_revision_id === 'string');
        note('merge:absent', !('merge_parent_id' in op));
        note('merge:null', op.merge_parent_id === null);
        note('merge:present', typeof op.merge_parent_id === 'string');
        note('name_index:43', typeof op.name_index === 'string' && op.name_index.length === LIMITS.nameIndexLength.max);
        note('key_gen:min', op.key_gen === LIMITS.keyGen.min);
        note('key_gen:MAX_SAFE', op.key_gen === MAX_SAFE);
        note('envelope:empty', op.envelope === '');
        note('envelope:max', typeof op.envelope === 'string' && op.envelope.length === LIMITS.envelopeLength.max);
        note('signature:max', typeof op.signature === 'string' && op.signature.length === LIMITS.opSignatureLength.max);
        note('blob_ids:empty', Array.isArray(op.blob_ids) && op.blob_ids.length === 0);
        note('blob_ids:max', Array.isArray(op.blob_ids) && op.blob_ids.length === LIMITS.blobIdsPerOp.max);
        note('blob_id:empty-string', Array.isArray(op.blob_ids) && op.blob_ids.includes(''));
      }
    }
    const want = [
      ...OP_TYPES.map((t) => `type:${t}`),
      'ops=min', 'ops=max', 'uuid:nil', 'uuid:all-f', 'uuid:upper', 'uuid:mixed', 'base:null', 'base:uuid',
      'merge:absent', 'merge:null', 'merge:present', 'name_index:43', 'key_gen:min', 'key_gen:MAX_SAFE',
      'envelope:empty', 'envelope:max', 'signature:max', 'blob_ids:empty', 'blob_ids:max', 'blob_id:empty-string',
    ];
    expect(want.filter((k) => !seen.has(k))).toEqual([]);
  });

  it('commit batches are coherent chains with unique ids', () => {
    fc.assert(
      fc.property(validBody('commitOperations', { boundaries: false }), (body) => {
        const heads = new Map<string, string>();
        const ids = new Set<string>();
        for (const op of objects(body.ops)) {
          const rev = String(op.revision_id).toLowerCase();
          const art = String(op.artifact_id).toLowerCase();
          expect(ids.has(rev)).toBe(false);
          ids.add(rev);
          if (op.type === 'create') {
            expect(op.base_revision_id).toBeNull();
            expect(heads.has(art)).toBe(false);
            if (art !== rev) expect(ids.has(art)).toBe(false);
            ids.add(art);
          } else {
            expect(String(op.base_revision_id).toLowerCase()).toBe(heads.get(art));
          }
          heads.set(art, rev);
        }
      }),
      { numRuns: 150, seed: 3 },
    );
  });

  it('usage days are calendar days of the pattern; counters stay >= 0 unless asked', () => {
    let negative = false;
    for (const r of fc.sample(validBody('reportUsage', { boundaries: false }), { numRuns: 200, seed: 9 })) {
      for (const row of objects(r.rows)) {
        expect(String(row.day)).toMatch(PATTERNS.day.regex);
        expect(isCalendarDay(String(row.day))).toBe(true);
        expect(row.input as number).toBeGreaterThanOrEqual(0);
      }
    }
    for (const r of fc.sample(validBody('reportUsage', { boundaries: false, unstatedMin: 'json-safe' }), { numRuns: 200, seed: 9 })) {
      for (const row of objects(r.rows)) negative ||= (row.input as number) < 0;
    }
    expect(negative).toBe(true);
  });

  it('free text is BMP-only by default and astral on request', () => {
    const astral = (s: string) => /[\u{10000}-\u{10FFFF}]/u.test(s);
    const texts = (b: JsonObject) => objects(b.rows).map((r) => String(r.model));
    const bmp = fc.sample(validBody('reportUsage', { boundaries: false }), { numRuns: 200, seed: 4 }).flatMap(texts);
    const wide = fc.sample(validBody('reportUsage', { boundaries: false, astral: true }), { numRuns: 200, seed: 4 }).flatMap(texts);
    expect(bmp.some(astral)).toBe(false);
    expect(bmp.some((s) => /[^\x00-\x7f]/.test(s))).toBe(true);
    expect(wide.some(astral)).toBe(true);
  });

  it('honours exact lengths and counts by template path', () => {
    const [b] = fc.sample(validBody('commitOperations', { counts: { ops: 7, 'ops[].blob_ids': 2 }, lengths: { 'ops[].envelope': 100 } }), { numRuns: 1, seed: 1 });
    const ops = objects(b!.ops);
    expect(ops).toHaveLength(7);
    for (const op of ops) {
      expect(op.envelope).toHaveLength(100);
      expect(op.blob_ids).toHaveLength(2);
    }
  });

  for (const e of ENDPOINTS.filter((x) => x.id !== 'commitOperations')) {
    it(`maxRequest(${e.id}) is valid with every bound at its maximum`, () => {
      const [r] = fc.sample(maxRequest(e.id), { numRuns: 1, seed: 1 });
      expect(requestIssues(e.id, r!)).toEqual([]);
    });
  }

  it('maxRequest(commitOperations) is the ~40 MB body: 50 ops, each field at its max', () => {
    const [r] = fc.sample(maxRequest('commitOperations'), { numRuns: 1, seed: 1 });
    const ops = objects(r!.body.ops);
    expect(ops).toHaveLength(LIMITS.opsPerCommit.max!);
    for (const op of ops) {
      expect(op.envelope).toHaveLength(LIMITS.envelopeLength.max!);
      expect(op.signature).toHaveLength(LIMITS.opSignatureLength.max!);
      expect(op.blob_ids).toHaveLength(LIMITS.blobIdsPerOp.max!);
      expect(op.key_gen).toBe(LIMITS.keyGen.max);
    }
    expect(requestIssues('commitOperations', r!)).toEqual([]);
  });
});

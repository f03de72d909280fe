import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { situationsIn } from '../../src/check/model/situations.ts';
import { listedObjects, requestIssues, validRequest, withUnlisted, withUnlistedMember, type JsonObject } from '../../src/gen/index.ts';
import { ENDPOINTS, ENDPOINT_BY_ID } from '../../src/spec/index.ts';

describe('a valid request with one unlisted member', () => {
  for (const e of ENDPOINTS) {
    it(`${e.id}: one member the spec does not list, the request valid otherwise, at the top and deeper`, () => {
      const where = new Set<string>();
      const samples = fc.sample(withUnlisted(e.id, validRequest(e.id)), { numRuns: 150, seed: 11 });
      for (const r of samples) {
        // The schemas keep unknown members (unknown-fields-ignored's default): nothing else is broken.
        expect(requestIssues(e.id, r)).toEqual([]);
        const unlisted = situationsIn(e.id, r.body).filter((s) => s.situation === 'unlisted-member');
        expect(unlisted).toHaveLength(1);
        where.add(unlisted[0]!.path.includes('.') ? 'nested' : 'top');
      }
      // The member's own value is no listed object, so the count is the request's as drawn.
      const nestable = samples.some((r) => listedObjects(e.body, r.body).length > 1);
      expect([...where].sort()).toEqual(nestable ? ['nested', 'top'] : ['top']);
    });
  }

  it('walks the listed objects body first, skipping free-form ones and nulls', () => {
    const body: JsonObject = { operation_id: 'o', epoch: 'e', ops: [{ type: 'create', merge_parent_id: null }, { type: 'update' }] };
    const ops = body.ops as JsonObject[];
    expect(listedObjects(ENDPOINT_BY_ID.commitOperations.body, body).map((o) => o.at)).toEqual([[], ['ops', 0], ['ops', 1]]);
    // 4.4's response takes any member: it is no place for an unlisted one.
    expect(listedObjects(ENDPOINT_BY_ID.registerPasskey.body, { response: { a: {} }, statement: { statement: 's', signature: 'x' } }).map((o) => o.at)).toEqual([[], ['statement']]);
    expect(withUnlistedMember('commitOperations', body, 2, 1)).toEqual({ ...body, ops: [ops[0], { type: 'update', comment: 1 }] });
    expect(withUnlistedMember('commitOperations', body, 3, 'x')).toEqual({ ...body, comment: 'x' });
    expect(ops[1]).toEqual({ type: 'update' });
  });
});

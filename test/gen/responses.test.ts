import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, ENDPOINT_BY_ID, issuesOf, schemasOf } from '../../src/spec/index.ts';
import { RESPONSE_CONSTRAINTS, breaksOnlyItsResponseLabel, responseViolationsFor, validResponse, violationSpecs } from '../../src/gen/index.ts';

describe('response generators', () => {
  for (const e of ENDPOINTS) {
    it(`valid ${e.id} envelopes pass and carry ok: true`, () => {
      for (const r of fc.sample(validResponse(e.id), { numRuns: 60, seed: 1 })) {
        expect(issuesOf(schemasOf(ENDPOINT_BY_ID[e.id]).envelope, r)).toEqual([]);
        expect(r.ok).toBe(true);
      }
    });
  }

  it('every response constraint has violations that break exactly their label', () => {
    let variants = 0;
    const wrong: string[] = [];
    for (const c of RESPONSE_CONSTRAINTS) {
      for (const s of violationSpecs(c)) {
        variants++;
        const [v] = fc.sample(responseViolationsFor(c, s.variant), { numRuns: 1, seed: variants });
        if (v!.label.scope !== 'response' || !breaksOnlyItsResponseLabel(v!)) wrong.push(`${c.id} ${s.variant}`);
      }
    }
    console.log(`response coverage: ${RESPONSE_CONSTRAINTS.length} response constraints, ${variants} violation variants`);
    expect(RESPONSE_CONSTRAINTS.some((c) => c.path === 'data.results[].seq' && c.kind === 'max')).toBe(true);
    expect(wrong).toEqual([]);
  });

  it('rejects a request constraint with a clear message', () => {
    expect(() => responseViolationsFor('commitOperations/body/ops#maxItems')).toThrow('is not a response constraint');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, PATTERNS, UUID_MAX, UUID_NIL, itemPath, childPath, type Node } from '../../src/spec/index.ts';
import {
  breaksOnlyItsLabel,
  caseForm,
  concretePath,
  freshen,
  freshUuid,
  getAt,
  isObject,
  requestIssues,
  validRequest,
  violationsFor,
  type JsonObject,
} from '../../src/gen/index.ts';

/** Template paths of the nodes the model marks `fresh: 'mint'`. */
function minted(node: Node, at: string): string[] {
  if ((node.kind === 'uuid' || node.kind === 'string') && node.fresh === 'mint') return [at];
  if (node.kind === 'array') return minted(node.items, itemPath(at));
  if (node.kind === 'object') return Object.entries(node.fields).flatMap(([k, f]) => minted(f.node, childPath(at, k)));
  return [];
}

const ops = (b: unknown): JsonObject[] => (isObject(b) && Array.isArray(b.ops) ? b.ops.filter(isObject) : []);

describe('freshen', () => {
  it('renews every field the model marks as minted, on every endpoint, and keeps the request valid', () => {
    const renewed: string[] = [];
    for (const e of ENDPOINTS) {
      const params = Object.entries(e.params).flatMap(([name, n]) => minted(n, name));
      const body = minted(e.body, '');
      for (const r of fc.sample(validRequest(e.id, { boundaries: false }), { numRuns: 15, seed: 7 })) {
        const f = freshen(e.id, r);
        expect(requestIssues(e.id, f)).toEqual([]);
        for (const p of params) expect(f.params[p], `${e.id} ${p}`).not.toBe(r.params[p]);
        for (const p of body) {
          const at = concretePath(r.body, p, []);
          if (!at) continue;
          const before = getAt(r.body, at);
          if (typeof before === 'string') expect(getAt(f.body, at), `${e.id} ${p}`).not.toBe(before);
        }
      }
      renewed.push(...params.map((p) => `${e.id}/params/${p}`), ...body.map((p) => `${e.id}/body/${p}`));
    }
    expect(renewed).toEqual([
      'approveDevice/params/id',
      'commitOperations/body/operation_id',
      'commitOperations/body/ops[].artifact_id',
      'commitOperations/body/ops[].revision_id',
      'reportUsage/params/sourceId',
      'revokeBrowser/params/id',
    ]);
  });

  it('gives every commit a new operation_id, artifact and revision ids, keeping forms and the in-batch chain', () => {
    fc.assert(
      fc.property(validRequest('commitOperations', { boundaries: false }), (r) => {
        const f = freshen('commitOperations', r);
        expect(requestIssues('commitOperations', f)).toEqual([]);
        expect(f.params).toEqual(r.params);
        const before = r.body;
        const after = f.body as JsonObject;
        expect(after.operation_id).not.toBe(before.operation_id);
        expect(caseForm(String(after.operation_id))).toBe(caseForm(String(before.operation_id)));
        expect(after.epoch).toBe(before.epoch);
        const a = ops(before);
        const b = ops(after);
        const revIndex = new Map(a.map((op, i) => [String(op.revision_id).toLowerCase(), i]));
        b.forEach((op, i) => {
          const old = a[i]!;
          for (const k of ['artifact_id', 'revision_id']) {
            expect(op[k]).not.toBe(old[k]);
            expect(String(op[k])).toMatch(PATTERNS.uuid.regex);
            if (![UUID_NIL, UUID_MAX].includes(String(old[k]).toLowerCase())) {
              expect(caseForm(String(op[k]))).toBe(caseForm(String(old[k])));
              const v = (s: unknown) => String(s).replaceAll('-', '').toLowerCase();
              expect([v(op[k])[12], v(op[k])[16]]).toEqual([v(old[k])[12], v(old[k])[16]]);
            }
          }
          expect(op.signer_member_id).toBe(old.signer_member_id);
          if (old.base_revision_id === null) expect(op.base_revision_id).toBeNull();
          else {
            const j = revIndex.get(String(old.base_revision_id).toLowerCase());
            expect(j).toBeDefined();
            expect(String(op.base_revision_id).toLowerCase()).toBe(String(b[j!]!.revision_id).toLowerCase());
          }
        });
      }),
      { numRuns: 80, seed: 21 },
    );
  });

  it('two freshenings of one sample never collide', () => {
    const [r] = fc.sample(validRequest('commitOperations', { boundaries: false }), { numRuns: 1, seed: 2 });
    const x = freshen('commitOperations', r!).body as JsonObject;
    const y = freshen('commitOperations', r!).body as JsonObject;
    expect(x.operation_id).not.toBe(y.operation_id);
    expect(ops(x).map((o) => o.revision_id)).not.toEqual(ops(y).map((o) => o.revision_id));
  });

  it('renews the sourceId (32 lowercase hex) and the 4.1/4.5 path ids; leaves others alone', () => {
    const [u] = fc.sample(validRequest('reportUsage', { boundaries: false }), { numRuns: 1, seed: 3 });
    const fu = freshen('reportUsage', u!);
    expect(fu.params.sourceId).not.toBe(u!.params.sourceId);
    expect(requestIssues('reportUsage', fu)).toEqual([]);
    expect(fu.body).toEqual(u!.body);
    for (const id of ['approveDevice', 'revokeBrowser'] as const) {
      const [r] = fc.sample(validRequest(id, { boundaries: false }), { numRuns: 1, seed: 3 });
      const f = freshen(id, r!);
      expect(f.params.id).not.toBe(r!.params.id);
      expect(requestIssues(id, f)).toEqual([]);
    }
    const [p] = fc.sample(validRequest('registerPasskey'), { numRuns: 1, seed: 3 });
    expect(freshen('registerPasskey', p!)).toEqual(p);
  });

  it('keeps a violation the same violation', () => {
    for (const id of ['commitOperations/body/ops[].artifact_id#uuid', 'reportUsage/params/sourceId#charset', 'commitOperations/body/operation_id#required']) {
      for (const v of fc.sample(violationsFor(id), { numRuns: 20, seed: 4 })) {
        expect(breaksOnlyItsLabel(freshen(v.label.endpoint, v))).toBe(true);
      }
    }
  });

  it('freshUuid keeps upper case, makes nil and all-f random', () => {
    expect(freshUuid(UUID_MAX.toUpperCase())).toMatch(/^[0-9A-F-]+$/);
    expect(freshUuid(UUID_NIL)).not.toBe(UUID_NIL);
    expect(freshUuid()).toMatch(PATTERNS.uuid.regex);
  });
});

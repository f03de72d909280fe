/**
 * src/check/judge/success-shape.ts: a claimed success (2xx, JSON, ok true) that breaks its endpoint's
 * response schema is a violation whatever a property made of it, except for the one value a reading
 * opens (2.6's result status, section 7). The verdicts are the client's own (classify.ts).
 */
import { describe, expect, it } from 'vitest';
import { envelopeOutcome } from '../../properties/shapes.ts';
import { brokenSuccess, successIssues } from '../../src/check/judge/success-shape.ts';
import { ENDPOINT_BY_ID, type EndpointId } from '../../src/spec/index.ts';
import { classifyResponse } from '../../src/target/classify.ts';
import type { Exchange } from '../../src/target/client.ts';

const ID = '0b7d3c3e-3f9a-4c47-9a55-5b2a3c9b1e01';
const REV = '6f0c1d2e-8a4b-4c3d-9e5f-0a1b2c3d4e5f';
const META = { request_id: 'r1' };

function answered(endpoint: EndpointId, status: number, json: unknown, o: { truncated?: boolean; contentType?: string } = {}): Exchange {
  const body = JSON.stringify(json);
  const facts = { status, headers: { 'content-type': o.contentType ?? 'application/json' }, body, truncated: o.truncated ?? false, ...(o.truncated ? {} : { json }) };
  const { verdict, reason, schemaIssues } = classifyResponse(ENDPOINT_BY_ID[endpoint], facts);
  return {
    ...(schemaIssues ? { schemaIssues } : {}),
    id: 7,
    endpoint,
    request: { method: 'POST', url: `http://127.0.0.1:1/v1/pouches/${ID}/operations`, headers: {}, body: new Uint8Array() },
    response: { ...facts, headers: { ...facts.headers } },
    verdict,
    reason,
    timings: { startedAt: 0, totalMs: 1 },
  };
}

const result = (over: Record<string, unknown> = {}) => ({ status: 'applied', artifact_id: ID, revision_id: REV, seq: 1, high_water: 1, ...over });
const commitAnswer = (results: unknown[], ok: unknown = true) => ({ ok, data: { results }, meta: META });

describe('a claimed success judged whole (success-shape.ts)', () => {
  it('passes a success that fits, and a result status other than applied, which conflict-behaviour leaves open', () => {
    expect(brokenSuccess([answered('commitOperations', 200, commitAnswer([result()]))])).toBeUndefined();
    const perOp = answered('commitOperations', 200, commitAnswer([result({ status: 'conflict', seq: 0 })]));
    expect(perOp.verdict).toBe('protocol-error');
    expect(successIssues(perOp)).toEqual([]);
    expect(brokenSuccess([perOp])).toBeUndefined();
  });

  it('finds a result without what 2.6 requires, a status of the wrong type, and a missing results array', () => {
    const unshaped = answered('commitOperations', 200, commitAnswer([{ status: 'conflict', artifact_id: ID }]));
    const o = brokenSuccess([answered('commitOperations', 200, commitAnswer([result()])), unshaped]);
    expect(o).toMatchObject({ ok: false, kind: 'violation', judgement: 'shared.success-envelope', exchangeIds: [7] });
    expect(o && !o.ok ? o.message : '').toMatch(/data\.results\[\]\.revision_id \(required\).*seq \(required\)/);
    expect(successIssues(answered('commitOperations', 200, commitAnswer([result({ status: 7 })]))).map((i) => `${i.path} ${i.kind}`)).toEqual(['data.results[].status type']);
    expect(successIssues(answered('commitOperations', 200, { ok: true, data: {}, meta: META })).map((i) => `${i.path} ${i.kind}`)).toEqual(['data.results required']);
    expect(successIssues(answered('revokeBrowser', 200, { ok: true, data: { revoked: true }, meta: META })).map((i) => `${i.path} ${i.kind}`)).toEqual(['data.rotation_pending required']);
  });

  it('reads every issue the client found, kept on the exchange as data, not the few its reason names', () => {
    const bare = answered('commitOperations', 200, commitAnswer([{ status: 'applied' }, { status: 'applied' }]));
    const kept = bare.schemaIssues ?? [];
    expect(bare.reason).toMatch(/response schema: .* and \d+ more$/);
    expect(kept.length).toBeGreaterThan(3);
    expect(successIssues(bare)).toEqual(kept);
    expect(new Set(kept.map((i) => i.at[2]))).toEqual(new Set([0, 1]));
    // What the judge reads is the exchange's record: without it, nothing is judged (no second parse).
    expect(successIssues({ ...bare, schemaIssues: undefined })).toEqual([]);
  });

  it('judges only what the server claims as a success, complete: not a refusal, not ok false, not a body cut short, not another status', () => {
    const broken = commitAnswer([{ status: 'conflict' }]);
    expect(successIssues(answered('commitOperations', 200, broken, { truncated: true }))).toEqual([]);
    expect(successIssues(answered('commitOperations', 200, commitAnswer([{ status: 'conflict' }], false)))).toEqual([]);
    expect(successIssues(answered('commitOperations', 200, { error: 'busy' }))).toEqual([]);
    expect(successIssues(answered('commitOperations', 409, broken))).toEqual([]);
    expect(successIssues(answered('commitOperations', 500, broken))).toEqual([]);
    expect(successIssues(answered('commitOperations', 200, broken))).not.toEqual([]);
  });

  it('is the record shapes.response-envelope reads too: every issue of a success, and none of a refusal', () => {
    const revoked = answered('revokeBrowser', 200, { ok: true, data: { revoked: true }, meta: META });
    const o = envelopeOutcome('revokeBrowser', revoked);
    expect(o).toMatchObject({ ok: false, kind: 'violation', judgement: 'shared.success-envelope' });
    expect(o.ok ? '' : o.message).toMatch(/data\.rotation_pending \(required\)/);
    expect(envelopeOutcome('revokeBrowser', answered('revokeBrowser', 200, { ok: true, data: { revoked: true, rotation_pending: false }, meta: META }))).toEqual({ ok: true });
    expect(envelopeOutcome('revokeBrowser', answered('revokeBrowser', 200, { ok: false, error: { code: 'x' }, meta: META }))).toEqual({ ok: true });
    expect(envelopeOutcome('revokeBrowser', answered('revokeBrowser', 200, { ok: true, data: { revoked: true }, meta: META }, { contentType: 'text/plain' }))).toMatchObject({ kind: 'violation', judgement: 'shapes.json-body' });
  });
});

/**
 * The response bound is derived from the model, not written: the stated part of each endpoint's
 * largest answer equals the length of that answer built independently here at every stated maximum,
 * and the default bound is the largest endpoint's, with its allowances named.
 */
import { describe, expect, it } from 'vitest';
import {
  ANSWER_SIZES,
  ESCAPE_FACTOR,
  LIMITS,
  MAX_SAFE,
  RESPONSE_BODY_BOUND_BYTES,
  UNBOUNDED_ALLOWANCE_BYTES,
  commitOperations,
  issuesOf,
  schemasOf,
  type EndpointId,
} from '../../src/spec/index.ts';

const size = (id: EndpointId) => ANSWER_SIZES.find((a) => a.endpoint === id)!;
const UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

describe('the largest valid answer of each endpoint', () => {
  it('a commit: 50 results (one per op, reading commit-results) at their longest, counted byte for byte', () => {
    const result = { status: 'applied', artifact_id: UUID, revision_id: UUID, seq: -MAX_SAFE, high_water: -MAX_SAFE };
    // `false` is the longer boolean, `null` the longer form of an empty nullable string; unbounded strings count empty (their allowance is apart).
    const envelope = { ok: false, data: { results: Array.from({ length: LIMITS.opsPerCommit.max! }, () => result) }, meta: { request_id: '', next_cursor: null } };
    expect(issuesOf(schemasOf(commitOperations).envelope, envelope)).toEqual([]);
    expect(size('commitOperations').statedBytes).toBe(JSON.stringify(envelope).length);
    expect(size('commitOperations').readings).toEqual(['commit-results']);
    expect(size('commitOperations').unbounded).toEqual(['meta.request_id', 'meta.next_cursor', '(fields the spec does not list)']);
  });

  it('the usage answer and the revoke answer, likewise', () => {
    const meta = { request_id: '', next_cursor: null };
    expect(size('reportUsage').statedBytes).toBe(JSON.stringify({ ok: false, data: { stored: -MAX_SAFE }, meta }).length);
    expect(size('revokeBrowser').statedBytes).toBe(JSON.stringify({ ok: false, data: { revoked: false, rotation_pending: false }, meta }).length);
  });

  it('the free-form data of 4.4 is unbounded, and allowed for', () => {
    expect(size('registerPasskey').unbounded).toContain('data');
  });

  it('the bound: six times the stated part, plus an allowance per unbounded value; the default is the largest, to a KiB', () => {
    for (const a of ANSWER_SIZES) expect(a.boundBytes).toBe(ESCAPE_FACTOR * a.statedBytes + UNBOUNDED_ALLOWANCE_BYTES * a.unbounded.length);
    const largest = Math.max(...ANSWER_SIZES.map((a) => a.boundBytes));
    expect(RESPONSE_BODY_BOUND_BYTES).toBe(Math.ceil(largest / 1024) * 1024);
    expect(RESPONSE_BODY_BOUND_BYTES).toBe(257 * 1024);
    // A maximal commit answer, pretty-printed with every character escaped, still fits.
    const commit = size('commitOperations');
    expect(commit.statedBytes * ESCAPE_FACTOR).toBeLessThan(RESPONSE_BODY_BOUND_BYTES);
  });
});

import { describe, expect, it } from 'vitest';
import { all, check, dataOf, expectAccepted, expectRejected, violation } from '../../src/check/judge/judge.ts';
import { READING_FREE, specJudgement } from '../../src/check/judge/judgements.ts';
import { PASS } from '../../src/check/property.ts';

const RULE = specJudgement('test.rule', 'a test rule', 'usageReports', READING_FREE);
const b = { blame: { judgement: RULE } } as const;
import { decodeReplayToken, encodeReplayToken, ReplayTokenError } from '../../src/check/run/replay-token.ts';
import { toolVersion } from '../../src/check/run/tool-version.ts';
import { renderValue } from '../../src/check/run/render.ts';
import { matchesAny, selectProperties } from '../../src/check/run/select.ts';
import type { Exchange } from '../../src/target/client.ts';

function ex(status: number | undefined, verdict: Exchange['verdict'], json?: unknown): Exchange {
  const body = json === undefined ? '' : JSON.stringify(json);
  return {
    id: 1, endpoint: 'reportUsage', verdict, reason: verdict,
    request: { method: 'PUT', url: 'http://h/v1/usage/sources/x', headers: {}, body: new Uint8Array() },
    ...(status === undefined ? {} : { response: { status, headers: {}, body, truncated: false, ...(json === undefined ? {} : { json }) } }),
    timings: { startedAt: 0, totalMs: 1 },
  };
}

describe('judge', () => {
  it('classifies accepted, rejected, 5xx, transport and 429', () => {
    expect(expectAccepted(ex(200, 'accepted'))).toBe(PASS);
    expect(expectAccepted(ex(400, 'rejected'))).toMatchObject({ ok: false, kind: 'violation' });
    expect(expectAccepted(ex(400, 'rejected'))).toMatchObject({ judgement: 'shared.serves.reportUsage', clause: { section: '4.3' } });
    expect(expectAccepted(ex(400, 'rejected'), { blame: { assumption: 'usage-row-key' } })).toMatchObject({ kind: 'assumption', assumption: 'usage-row-key' });
    expect(expectAccepted(ex(200, 'protocol-error'))).toMatchObject({ kind: 'violation' });
    // A refusal of a copy the nemesis made pouchproof send again may be its own first copy's doing: indeterminate.
    const resent = { attempts: 2, faults: [{ attempt: 1, fault: 'lose-response', detail: 'answer dropped' }] } as const;
    expect(expectAccepted({ ...ex(409, 'rejected'), nemesis: resent })).toMatchObject({ ok: false, kind: 'unknown', message: expect.stringContaining('sent again after its first copy got no answer') });
    expect(expectAccepted({ ...ex(503, 'server-error'), nemesis: resent })).toMatchObject({ kind: 'server-error' });
    expect(expectAccepted(ex(503, 'server-error'))).toMatchObject({ kind: 'server-error' });
    expect(expectRejected(ex(500, 'server-error'), b)).toMatchObject({ kind: 'server-error' });
    expect(expectRejected(ex(undefined, 'transport-error'), b)).toMatchObject({ kind: 'transport' });
    // A throttle the client could not wait out decides nothing: unjudged, never a reading or a violation.
    expect(expectRejected(ex(429, 'rejected'), b)).toMatchObject({ kind: 'transport', message: expect.stringContaining('throttled') });
    // A refusal that stayed with one request once backing off stopped helping (client.ts `givenUp`): a 503 is the server error it is; a 429 stays unjudged.
    const gaveUp = { retries: 4, waitedMs: 4000, givenUp: 'served' } as const;
    expect(expectRejected({ ...ex(503, 'server-error'), throttled: gaveUp }, b)).toMatchObject({ kind: 'server-error', message: expect.stringMatching(/refused 5 times in a row.*not throttling/) });
    expect(expectAccepted({ ...ex(429, 'rejected'), throttled: gaveUp })).toMatchObject({ kind: 'transport', message: expect.stringMatching(/throttled.*not judged/) });
    expect(expectRejected(ex(422, 'rejected'), b)).toBe(PASS);
    expect(expectRejected(ex(200, 'accepted'), b)).toMatchObject({ kind: 'violation' });
    expect(expectRejected(ex(302, 'protocol-error'), b)).toMatchObject({ kind: 'violation' });
  });

  it('applies the error-response reading', () => {
    const strict = { 'error-response': 'envelope-ok-false' } as never;
    expect(expectRejected(ex(400, 'rejected', { ok: false }), { ...b, assumptions: strict })).toBe(PASS);
    expect(expectRejected(ex(400, 'rejected', 'nope'), { ...b, assumptions: strict })).toMatchObject({ kind: 'assumption', assumption: 'error-response' });
  });

  it('combines outcomes and reads data', () => {
    expect(all(PASS, () => violation(RULE, 'x'), () => { throw new Error('not evaluated'); })).toMatchObject({ message: 'x', judgement: 'test.rule' });
    expect(check(true, b.blame, 'no')).toBe(PASS);
    expect(check(false, b.blame, 'no')).toMatchObject({ kind: 'violation', clause: RULE.ground.clause });
    expect(dataOf(ex(200, 'accepted', { ok: true, data: { stored: 1 } }))).toEqual({ stored: 1 });
    expect(dataOf(ex(200, 'accepted', [1]))).toBeUndefined();
  });
});

describe('replay tokens', () => {
  it('round-trip and reject garbage with a clear error', () => {
    const t = { property: 'usage.idempotent', seed: -12345, path: '3:0:1', runs: 25 };
    const s = encodeReplayToken(t);
    expect(s).toMatch(/^[A-Za-z0-9_-]+$/);
    // A new token names the version of pouchproof that made it.
    expect(decodeReplayToken(s)).toEqual({ ...t, tool: toolVersion() });
    expect(decodeReplayToken(encodeReplayToken({ ...t, tool: '0.0.9' })).tool).toBe('0.0.9');
    const wire = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    for (const bad of ['', 'a b', 'abc', wire({ v: 2 }), encodeReplayToken({ ...t, path: 'x' }), wire({ v: 1, p: t.property, s: 1, path: '0', r: 1, t: 'x\u001b[2J' }), wire({ v: 1, p: t.property, s: 1, path: '0', r: 1, t: 7 })]) {
      expect(() => decodeReplayToken(bad)).toThrow(ReplayTokenError);
    }
  });

  it('made before tokens carried a version still decode, without one', () => {
    // The wire of earlier tokens: version 1 without `t`.
    const old = Buffer.from(JSON.stringify({ v: 1, p: 'usage.idempotent', s: 4, path: '0:1', r: 25 })).toString('base64url');
    expect(decodeReplayToken(old)).toEqual({ property: 'usage.idempotent', seed: 4, path: '0:1', runs: 25 });
  });
});

describe('--only globs', () => {
  it('match within and across segments, and whole areas', () => {
    expect(matchesAny('usage.idempotent', ['usage.*'])).toBe(true);
    expect(matchesAny('usage.idempotent', ['usage'])).toBe(true);
    expect(matchesAny('usage.idempotent', ['use*'])).toBe(false);
    expect(matchesAny('commits.seq-increasing', ['*.seq-*'])).toBe(true);
    expect(matchesAny('commits.seq-increasing', ['**'])).toBe(true);
    expect(selectProperties([{ id: 'a.b' }, { id: 'c.d' }], ['c.*', 'x'])).toEqual([{ id: 'c.d' }]);
  });
});

describe('counterexample rendering', () => {
  it('abbreviates long strings and arrays', () => {
    const text = renderValue({ envelope: 'A'.repeat(699051), blob_ids: Array.from({ length: 2000 }, (_, i) => String(i)) });
    expect(text.length).toBeLessThan(1000);
    expect(text).toContain('(699051 chars)');
    expect(text).toContain('(2000 items)');
  });
});

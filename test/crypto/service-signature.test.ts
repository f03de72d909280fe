import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { b64u } from '../../src/crypto/base64url.ts';
import { blake3 } from '../../src/crypto/blake3.ts';
import { canonicalize } from '../../src/crypto/canonical.ts';
import { generateDeviceKey, privateKeyFromJwk, publicKeyFromJwk } from '../../src/crypto/keys.ts';
import {
  P256_N, lowS, signServiceSignature, signingDigest, verifyServiceSignature, type CanonicalForm, type JwsForm, type SignatureForm,
} from '../../src/crypto/service-signature.ts';
import { commitBody } from './fixtures.ts';

const KID = '6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e';
const pair = generateDeviceKey();
const privateKey = privateKeyFromJwk(pair.privateJwk);
const publicKey = publicKeyFromJwk(pair.publicJwk);
const keyFor = (kid: string) => (kid === KID ? publicKey : undefined);

function check(header: string | undefined, wire: string, form: SignatureForm = {}, extra: { expectedKid?: string; highS?: 'accepted' | 'rejected' } = {}) {
  return verifyServiceSignature({ header, rawBody: Buffer.from(wire, 'utf8'), parsedBody: JSON.parse(wire), keyFor, expectedKid: KID, ...extra, ...form });
}

describe('signServiceSignature → verifyServiceSignature', () => {
  it.each([1, 50])('round-trips a %i-op body', (n) => {
    const body = commitBody(n);
    const header = signServiceSignature({ body, kid: KID, privateKey });
    expect(header).toMatch(/^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]{86}$/);
    expect(JSON.parse(Buffer.from(header.split('.')[0]!, 'base64url').toString())).toEqual({ alg: 'ES256', kid: KID });
    expect(Buffer.from(header.split('.')[0]!, 'base64url').toString()).toBe(`{"alg":"ES256","kid":"${KID}"}`);
    expect(check(header, JSON.stringify(body))).toEqual({ ok: true, kid: KID });
    expect(check(header, JSON.stringify(commitBody(n, 'other'))).ok).toBe(false);
  });
  it('a re-ordered, pretty-printed body verifies under rfc8785 and sorted-compact, not under raw-bytes', () => {
    const body = commitBody(3);
    const wire = JSON.stringify(body);
    const reordered = JSON.stringify(JSON.parse(canonicalize(body)), null, 2);
    expect(reordered).not.toBe(wire);
    for (const canonical of ['rfc8785', 'sorted-compact'] as CanonicalForm[]) {
      const header = signServiceSignature({ body, kid: KID, privateKey, canonical });
      expect(check(header, wire, { canonical }).ok).toBe(true);
      expect(check(header, reordered, { canonical }).ok).toBe(true);
    }
    const raw = signServiceSignature({ body, rawBody: Buffer.from(wire), kid: KID, privateKey, canonical: 'raw-bytes' });
    expect(check(raw, wire, { canonical: 'raw-bytes' }).ok).toBe(true);
    expect(check(raw, reordered, { canonical: 'raw-bytes' }).ok).toBe(false);
    // Without rawBody, raw-bytes signs UTF-8 JSON.stringify(body).
    expect(check(signServiceSignature({ body, kid: KID, privateKey, canonical: 'raw-bytes' }), wire, { canonical: 'raw-bytes' }).ok).toBe(true);
  });
  it('each jws-form verifies only under itself', () => {
    const body = commitBody(2);
    const wire = JSON.stringify(body);
    const forms: JwsForm[] = ['digest-payload', 'b64-text-payload'];
    for (const signed of forms) {
      const header = signServiceSignature({ body, kid: KID, privateKey, jwsForm: signed });
      for (const judged of forms) expect(check(header, wire, { jwsForm: judged }).ok).toBe(signed === judged);
    }
  });
  it('signingDigest follows the canonical reading', () => {
    const body = { b: 1, a: 'x' };
    const raw = Buffer.from('{"b":1,"a":"x"}');
    expect(b64u(signingDigest(body, raw))).toBe(b64u(blake3('{"a":"x","b":1}')));
    expect(b64u(signingDigest(body, raw, { canonical: 'sorted-compact' }))).toBe(b64u(blake3('{"a":"x","b":1}')));
    expect(b64u(signingDigest(body, raw, { canonical: 'raw-bytes' }))).toBe(b64u(blake3(raw)));
  });
});

describe('verifyServiceSignature refusals (never throws)', () => {
  const body = commitBody(1);
  const wire = JSON.stringify(body);
  const good = signServiceSignature({ body, kid: KID, privateKey });
  const [h, , s] = good.split('.') as [string, string, string];
  const hdr = (json: string) => b64u(json);
  it.each<[string, string | undefined, RegExp]>([
    ['missing', undefined, /header missing/],
    ['empty', '', /header empty/],
    ['one segment', h, /1 segments/],
    ['four segments', `${h}...${s}`, /4 segments/],
    ['payload present', `${h}.${b64u(blake3(canonicalize(body)))}.${s}`, /payload segment/],
    ['header not base64url', `${h}=..${s}`, /not base64url/],
    ['header not JSON', `${hdr('{alg:ES256}')}..${s}`, /not JSON/],
    ['header array', `${hdr('["ES256"]')}..${s}`, /not a JSON object/],
    ['header string', `${hdr('"ES256"')}..${s}`, /not a JSON object/],
    ['header not UTF-8', `${b64u(new Uint8Array([0x7b, 0xff, 0x7d]))}..${s}`, /not UTF-8/],
    ['alg missing', `${hdr(`{"kid":"${KID}"}`)}..${s}`, /alg missing/],
    ['alg ES256 with trailing space', `${hdr(`{"alg":"ES256 ","kid":"${KID}"}`)}..${s}`, /alg is not ES256/],
    ['alg not a string', `${hdr(`{"alg":["ES256"],"kid":"${KID}"}`)}..${s}`, /alg is not ES256/],
    ['duplicate kid via escape', `${hdr(`{"alg":"ES256","kid":"${KID}","\\u006bid":"${KID}"}`)}..${s}`, /duplicate "kid"/],
    ['crit', `${hdr(`{"alg":"ES256","kid":"${KID}","crit":[]}`)}..${s}`, /crit not supported/],
    ['b64 true', `${hdr(`{"alg":"ES256","kid":"${KID}","b64":true}`)}..${s}`, /b64 not supported/],
    ['x5u', `${hdr(`{"alg":"ES256","kid":"${KID}","x5u":"https://example.invalid/"}`)}..${s}`, /x5u in header/],
    ['jku', `${hdr(`{"alg":"ES256","kid":"${KID}","jku":"https://example.invalid/"}`)}..${s}`, /jku in header/],
    ['x5c', `${hdr(`{"alg":"ES256","kid":"${KID}","x5c":[]}`)}..${s}`, /x5c in header/],
    ['kid missing', `${hdr('{"alg":"ES256"}')}..${s}`, /kid missing/],
    ['kid number', `${hdr('{"alg":"ES256","kid":7}')}..${s}`, /kid is not a string/],
    ['kid not the caller', `${hdr('{"alg":"ES256","kid":"someone"}')}..${s}`, /kid is not the caller/],
    ['signature empty', `${h}..`, /signature missing/],
    ['signature padded', `${good}==`, /signature is not base64url/],
    ['signature 32 bytes', `${h}..${b64u(Buffer.from(s, 'base64url').subarray(0, 32))}`, /32 bytes/],
    ['header too long', `${'A'.repeat(9000)}..${s}`, /too long/],
  ])('%s', (_name, header, reason) => {
    const v = check(header, wire);
    expect(v.ok).toBe(false);
    expect(v.ok ? '' : v.reason).toMatch(reason);
  });
  it('unknown kid (no expectedKid) and keyFor throwing are refusals', () => {
    const v = verifyServiceSignature({ header: good, rawBody: Buffer.from(wire), parsedBody: body, keyFor: () => undefined });
    expect(v).toEqual({ ok: false, reason: 'unknown kid' });
    const t = verifyServiceSignature({ header: good, rawBody: Buffer.from(wire), parsedBody: body, keyFor: () => { throw new Error('boom'); } });
    expect(t).toEqual({ ok: false, reason: 'unknown kid' });
  });
  it('a key that is not P-256 and a body that cannot be canonicalised are refusals', () => {
    const ed = generateKeyPairSync('ed25519').publicKey;
    expect(verifyServiceSignature({ header: good, rawBody: Buffer.from(wire), parsedBody: body, keyFor: () => ed })).toEqual({ ok: false, reason: 'key is not a P-256 key' });
    expect(verifyServiceSignature({ header: good, rawBody: Buffer.from(wire), parsedBody: { x: NaN }, keyFor })).toEqual({ ok: false, reason: 'body cannot be canonicalized' });
    expect(verifyServiceSignature({ header: 42 as unknown as string, rawBody: Buffer.from(wire), parsedBody: body, keyFor }).ok).toBe(false);
  });
});

describe('lowS', () => {
  it('replaces s by n - s, as BigInt arithmetic does, for edge and random values', () => {
    const cases = [1n, 2n, 0xffn, 1n << 128n, P256_N / 2n + 1n, P256_N - 1n, P256_N - 0x100n];
    for (let i = 0; i < 50; i++) cases.push(BigInt(`0x${randomBytes(32).toString('hex')}`) % P256_N || 1n);
    for (const s of cases) {
      const sig = Buffer.concat([randomBytes(32), Buffer.from(s.toString(16).padStart(64, '0'), 'hex')]);
      const r = Buffer.from(sig.subarray(0, 32));
      lowS(sig);
      expect(sig.subarray(0, 32)).toEqual(r);
      expect(BigInt(`0x${sig.subarray(32).toString('hex')}`)).toBe(P256_N - s);
    }
  });
});

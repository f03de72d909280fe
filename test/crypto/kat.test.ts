/**
 * The project's Service-Signature KAT (vectors/service-signature/kat.json). It was generated under
 * its "reading A": the same payload and signing input as our default reading, but a protected
 * header WITHOUT kid ({"alg":"ES256"}). Our default reading (assumption `jws-form` = digest-payload)
 * requires kid, so with default options every KAT case is rejected ("kid missing" at best); the
 * cases are judged with `kidRequired: false`, which verifies a kid-less header with the key of
 * `expectedKid`. Everything else is default (rfc8785, digest-payload, high-S accepted).
 */
import { p256 } from '@noble/curves/nist.js';
import { describe, expect, it } from 'vitest';
import { b64u } from '../../src/crypto/base64url.ts';
import { blake3 } from '../../src/crypto/blake3.ts';
import { canonicalize } from '../../src/crypto/canonical.ts';
import { privateKeyFromJwk, publicKeyFromJwk } from '../../src/crypto/keys.ts';
import { payloadOf, signServiceSignature, signingInput, verifyServiceSignature, type SignatureForm } from '../../src/crypto/service-signature.ts';
import { vectorJson } from './vectors.ts';

interface KatCase { id: string; expect: string; header_value: string; note: string; body_wire?: string }
interface Kat {
  key: { d_hex: string; public_uncompressed_hex: string; jwk: Record<string, string> };
  body_canonical: string; blake3_hex: string; payload_b64url: string; protected_header_b64url: string; signing_input: string;
  rfc6979_check: { msg: string; lowS_false_sig_hex: string };
  cases: KatCase[];
}
const kat = vectorJson<Kat>('service-signature/kat.json');
const key = publicKeyFromJwk(kat.key.jwk);
const KID = 'kat-device';

function judge(c: KatCase, form: SignatureForm = {}, extra: { kidRequired?: boolean; expectedKid?: string; kid?: string } = {}) {
  const wire = c.body_wire ?? kat.body_canonical;
  const known = extra.kid ?? KID;
  return verifyServiceSignature({
    header: c.header_value, rawBody: Buffer.from(wire, 'utf8'), parsedBody: JSON.parse(wire),
    keyFor: (kid) => (kid === known ? key : undefined),
    expectedKid: 'expectedKid' in extra ? extra.expectedKid : known, kidRequired: extra.kidRequired ?? false, ...form,
  });
}

/**
 * Our verdict per case under the default reading. "either"/"probably"/reading-dependent KAT
 * expectations are resolved to what the default reading gives, with the reason.
 */
const DEFAULT_VERDICT: Record<string, { accept: boolean; why?: string }> = {
  'valid.canonical_wire': { accept: true },
  'valid.noncanonical_wire': { accept: true, why: 'accept-if-server-canonicalizes: rfc8785 canonicalises' },
  'valid.high_s_twin': { accept: true },
  'valid.header_with_kid_typ': { accept: true, why: 'accept-probably: typ is an ignorable registered member; kid "device-key-1" is then the caller' },
  'valid.header_whitespace_and_order': { accept: true },
  'valid.attached_payload_equal': { accept: false, why: 'either: a detached JWS has an empty payload segment (RFC 7515 appendix F)' },
  'reading_C.b64_false_crit': { accept: false, why: 'either: no extension (crit, b64) is understood' },
  'reading_B.double_b64': { accept: false, why: 'reject under reading A = digest-payload; accepted under b64-text-payload below' },
  'invalid.digest_of_pretty_wire': { accept: false, why: 'reject-if-server-canonicalizes; accepted under raw-bytes below' },
  'invalid.sig_padded_b64': { accept: false, why: 'reject-probably: base64url has neither padding nor + /' },
};

describe('Service-Signature KAT: derived values', () => {
  const body = JSON.parse(kat.body_canonical) as unknown;
  it('reproduces the canonical body, its BLAKE3 digest, payload and signing input', () => {
    expect(canonicalize(body)).toBe(kat.body_canonical);
    const digest = blake3(canonicalize(body));
    expect(Buffer.from(digest).toString('hex')).toBe(kat.blake3_hex);
    expect(b64u(payloadOf(digest))).toBe(kat.payload_b64url);
    expect(b64u('{"alg":"ES256"}')).toBe(kat.protected_header_b64url);
    expect(signingInput(kat.protected_header_b64url, payloadOf(digest)).toString('latin1')).toBe(kat.signing_input);
  });
  it('its key is the RFC 6979 A.2.5 key (public point and deterministic signature)', () => {
    const d = Buffer.from(kat.key.d_hex, 'hex');
    expect(Buffer.from(p256.getPublicKey(d, false)).toString('hex')).toBe(kat.key.public_uncompressed_hex);
    expect(key.export({ format: 'jwk' }).y).toBe(kat.key.jwk['y']);
    const sig = p256.sign(new TextEncoder().encode(kat.rfc6979_check.msg), d, { lowS: false });
    expect(Buffer.from(sig).toString('hex')).toBe(kat.rfc6979_check.lowS_false_sig_hex);
  });
});

describe('Service-Signature KAT: our signer with the KAT key', () => {
  it('signs the KAT body so that the default verifier (kid required) accepts it, with the KAT payload', () => {
    const priv = privateKeyFromJwk({ ...kat.key.jwk, d: b64u(Buffer.from(kat.key.d_hex, 'hex')) });
    const body = JSON.parse(kat.body_canonical) as unknown;
    const header = signServiceSignature({ body, kid: KID, privateKey: priv });
    const [h, p, s] = header.split('.');
    expect(Buffer.from(h!, 'base64url').toString()).toBe(`{"alg":"ES256","kid":"${KID}"}`);
    expect(p).toBe('');
    expect(Buffer.from(s!, 'base64url')).toHaveLength(64);
    const v = verifyServiceSignature({ header, rawBody: Buffer.from(kat.body_canonical), parsedBody: body, keyFor: (k) => (k === KID ? key : undefined), expectedKid: KID });
    expect(v).toEqual({ ok: true, kid: KID });
    // The same signature over the KAT's own signing input shape: the payload part is the KAT's.
    expect(signingInput(h!, payloadOf(blake3(kat.body_canonical))).toString('latin1').split('.')[1]).toBe(kat.payload_b64url);
  });
});

describe('Service-Signature KAT: 29 cases', () => {
  it('has 29 cases, 3 plain accept and 19 plain reject', () => {
    expect(kat.cases).toHaveLength(29);
    expect(kat.cases.filter((c) => c.expect === 'accept')).toHaveLength(3);
    expect(kat.cases.filter((c) => c.expect === 'reject')).toHaveLength(19);
  });
  it.each(kat.cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const extra = c.id === 'valid.header_with_kid_typ' ? { kid: 'device-key-1' } : {};
    const verdict = judge(c, {}, extra);
    const want = c.expect === 'accept' ? true : c.expect === 'reject' ? false : DEFAULT_VERDICT[c.id]?.accept;
    expect(want, `no default verdict recorded for ${c.id} (${c.expect})`).toBeTypeOf('boolean');
    expect(verdict.ok, JSON.stringify(verdict)).toBe(want);
  });
  it('with default options (kid required) the kid-less KAT headers are rejected for kid alone', () => {
    for (const c of kat.cases.filter((x) => x.expect === 'accept')) {
      expect(judge(c, {}, { kidRequired: true })).toEqual({ ok: false, reason: 'kid missing' });
    }
  });
  it('without expectedKid a kid-less header has no key even when kid is optional', () => {
    expect(judge(kat.cases[0]!, {}, { expectedKid: undefined }).ok).toBe(false);
  });
  it('alternative readings flip exactly the reading-dependent cases', () => {
    const byId = new Map(kat.cases.map((c) => [c.id, c]));
    expect(judge(byId.get('reading_B.double_b64')!, { jwsForm: 'b64-text-payload' }).ok).toBe(true);
    expect(judge(byId.get('valid.canonical_wire')!, { jwsForm: 'b64-text-payload' }).ok).toBe(false);
    expect(judge(byId.get('invalid.digest_of_pretty_wire')!, { canonical: 'raw-bytes' }).ok).toBe(true);
    expect(judge(byId.get('valid.noncanonical_wire')!, { canonical: 'raw-bytes' }).ok).toBe(false);
    expect(judge(byId.get('valid.canonical_wire')!, { canonical: 'raw-bytes' }).ok).toBe(true);
    expect(judge(byId.get('valid.noncanonical_wire')!, { canonical: 'sorted-compact' }).ok).toBe(true);
    expect(judge(byId.get('valid.high_s_twin')!, {}, {}).ok).toBe(true);
    const highS = verifyServiceSignature({
      header: byId.get('valid.high_s_twin')!.header_value, rawBody: Buffer.from(kat.body_canonical), parsedBody: JSON.parse(kat.body_canonical),
      keyFor: () => key, expectedKid: KID, kidRequired: false, highS: 'rejected',
    });
    expect(highS).toEqual({ ok: false, reason: 'high-S signature' });
  });
});

/**
 * Wycheproof (C2SP) vectors for P-256/SHA-256: raw P1363 signatures, DER signatures (which the raw
 * verifier must refuse), and the ES256 subset of the JWS tests.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { b64u, fromB64u } from '../../src/crypto/base64url.ts';
import { KeyError, publicKeyFromJwk } from '../../src/crypto/keys.ts';
import { parseProtectedHeader } from '../../src/crypto/protected-header.ts';
import { verifyEs256, type VerifyResult } from '../../src/crypto/service-signature.ts';
import { vectorJson } from './vectors.ts';

interface EcdsaFile {
  testGroups: { publicKeyDer: string; tests: { tcId: number; comment: string; flags: string[]; msg: string; sig: string; result: string }[] }[];
}

function keyOfDer(hex: string): KeyObject {
  return createPublicKey({ key: Buffer.from(hex, 'hex'), format: 'der', type: 'spki' });
}

function flatten(file: EcdsaFile) {
  return file.testGroups.flatMap((g) => {
    const key = keyOfDer(g.publicKeyDer);
    return g.tests.map((t) => ({ ...t, key }));
  });
}

describe('Wycheproof ecdsa_secp256r1_sha256_p1363 (high-S accepted)', () => {
  const tests = flatten(vectorJson<EcdsaFile>('wycheproof/ecdsa_secp256r1_sha256_p1363_test.json'));
  it('has 262 vectors, 173 valid', () => {
    expect(tests).toHaveLength(262);
    expect(tests.filter((t) => t.result === 'valid')).toHaveLength(173);
    expect(tests.every((t) => t.result === 'valid' || t.result === 'invalid')).toBe(true);
  });
  it.each(tests.map((t) => [t.tcId, t.comment, t] as const))('tcId %i %s', (_id, _c, t) => {
    let v: VerifyResult | undefined;
    expect(() => (v = verifyEs256(Buffer.from(t.msg, 'hex'), b64u(Buffer.from(t.sig, 'hex')), t.key))).not.toThrow();
    expect(v!.ok, JSON.stringify(v)).toBe(t.result === 'valid');
  });
  it('with low-S enforced, exactly the 70 high-S valid vectors flip', () => {
    const flipped = tests.filter((t) => t.result === 'valid' && !verifyEs256(Buffer.from(t.msg, 'hex'), b64u(Buffer.from(t.sig, 'hex')), t.key, 'rejected').ok);
    expect(flipped).toHaveLength(70);
  });
});

describe('Wycheproof ecdsa_secp256r1_sha256 (DER): every signature fails the raw P1363 verifier', () => {
  const tests = flatten(vectorJson<EcdsaFile>('wycheproof/ecdsa_secp256r1_sha256_test.json'));
  it('has 484 vectors', () => expect(tests).toHaveLength(484));
  it('refuses all of them, without throwing', () => {
    const accepted = tests.filter((t) => verifyEs256(Buffer.from(t.msg, 'hex'), b64u(Buffer.from(t.sig, 'hex')), t.key).ok);
    expect(accepted.map((t) => t.tcId)).toEqual([]);
  });
});

/**
 * Test-only adapter: an ATTACHED compact JWS checked with the same strict rules as
 * Service-Signature (protected header rules, kid a string naming the enrolled key, strict
 * base64url everywhere, 64-byte r||s) over `header.payload` with SHA-256, as ES256 does.
 */
function verifyAttached(jws: unknown, publicJwk: unknown): VerifyResult {
  if (typeof jws !== 'string') return { ok: false, reason: 'not a compact JWS' };
  const parts = jws.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'segments' };
  const [h, p, s] = parts as [string, string, string];
  const header = parseProtectedHeader(h);
  if (!header.ok) return header;
  const kid = header.header['kid'];
  if (typeof kid !== 'string') return { ok: false, reason: 'kid' };
  try {
    fromB64u(p);
  } catch {
    return { ok: false, reason: 'payload not base64url' };
  }
  let key: KeyObject;
  try {
    key = publicKeyFromJwk(publicJwk);
  } catch (e) {
    if (e instanceof KeyError) return { ok: false, reason: e.message };
    throw e;
  }
  if ((publicJwk as { kid?: unknown }).kid !== kid) return { ok: false, reason: 'unknown kid' };
  return verifyEs256(Buffer.from(`${h}.${p}`, 'latin1'), s, key);
}

interface JwsFile {
  testGroups: { comment: string; public?: Record<string, unknown>; tests: { tcId: number; comment: string; jws: unknown; result: string }[] }[];
}

describe('Wycheproof json_web_signature: ES256 subset', () => {
  const groups = vectorJson<JwsFile>('wycheproof/json_web_signature_test.json').testGroups.filter((g) =>
    ['es256', 'ec_key_for_encryption', 'SpecialCaseEs256'].includes(g.comment),
  );
  const tests = groups.flatMap((g) => g.tests.map((t) => ({ ...t, group: g.comment, publicJwk: g.public })));
  it('has 41 tests, 2 valid', () => {
    expect(tests).toHaveLength(41);
    expect(tests.filter((t) => t.result === 'valid')).toHaveLength(2);
  });
  it.each(tests.map((t) => [t.tcId, t.group, t.comment, t] as const))('tcId %i (%s) %s', (_id, _g, _c, t) => {
    const v = verifyAttached(t.jws, t.publicJwk);
    expect(v.ok, JSON.stringify(v)).toBe(t.result === 'valid');
  });
});

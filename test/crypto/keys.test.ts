import { sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyError, generateDeviceKey, isP256, privateKeyFromJwk, publicJwkOf, publicKeyFromJwk } from '../../src/crypto/keys.ts';

const pair = generateDeviceKey();
const other = generateDeviceKey();

function messageOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(KeyError);
    return (e as Error).message;
  }
  throw new Error('expected a KeyError');
}

describe('device keys', () => {
  it('generates P-256 JWKs that import and sign/verify after a JWK round trip', () => {
    expect(pair.privateJwk).toMatchObject({ kty: 'EC', crv: 'P-256' });
    expect(typeof pair.privateJwk.d).toBe('string');
    expect(pair.publicJwk.d).toBeUndefined();
    const priv = privateKeyFromJwk(JSON.parse(JSON.stringify(pair.privateJwk)));
    const pub = publicKeyFromJwk(JSON.parse(JSON.stringify(pair.publicJwk)));
    expect(isP256(priv) && isP256(pub)).toBe(true);
    expect(publicJwkOf(priv)).toEqual({ kty: 'EC', crv: 'P-256', x: pair.publicJwk.x, y: pair.publicJwk.y });
    const msg = Buffer.from('hello');
    const sig = sign('sha256', msg, { key: priv, dsaEncoding: 'ieee-p1363' });
    expect(verify('sha256', msg, { key: pub, dsaEncoding: 'ieee-p1363' }, sig)).toBe(true);
    expect(priv.export({ format: 'jwk' }).d).toBe(pair.privateJwk.d);
  });
  it('accepts a private JWK as a public key and sig/ES256 markings', () => {
    expect(isP256(publicKeyFromJwk(pair.privateJwk))).toBe(true);
    expect(isP256(publicKeyFromJwk({ ...pair.publicJwk, use: 'sig', alg: 'ES256', key_ops: ['verify'], kid: 'k' }))).toBe(true);
  });

  const d = pair.privateJwk.d!;
  it.each<[string, unknown, RegExp]>([
    ['not an object', 'jwk', /not a JSON object/],
    ['array', [], /not a JSON object/],
    ['wrong kty', { ...pair.privateJwk, kty: 'RSA' }, /"kty" must be "EC"/],
    ['wrong crv', { ...pair.privateJwk, crv: 'P-384' }, /"crv" must be "P-256"/],
    ['use enc', { ...pair.privateJwk, use: 'enc' }, /"use" must be "sig"/],
    ['alg ES384', { ...pair.privateJwk, alg: 'ES384' }, /"alg" must be "ES256"/],
    ['key_ops without sign', { ...pair.privateJwk, key_ops: ['encrypt'] }, /"key_ops" must include "sign"/],
    ['missing d', { ...pair.publicJwk }, /"d" is missing/],
    ['numeric d', { ...pair.privateJwk, d: 5 }, /"d" is not a string/],
    ['padded d', { ...pair.privateJwk, d: d + '=' }, /"d" is not unpadded base64url/],
    ['short d', { ...pair.privateJwk, d: d.slice(0, 40) }, /"d" is 30 bytes, P-256 needs 32/],
    ['short x', { ...pair.privateJwk, x: 'AAAA' }, /"x" is 3 bytes/],
    ['missing y', { ...pair.privateJwk, y: undefined }, /"y" is missing/],
    ['d of another key', { ...pair.privateJwk, d: other.privateJwk.d }, /not the public point of "d"|do not form a valid/],
    ['zero d', { ...pair.privateJwk, d: 'A'.repeat(43) }, /not the public point of "d"|do not form a valid/],
  ])('private JWK with %s: clear error, d never echoed', (_name, jwk, message) => {
    const m = messageOf(() => privateKeyFromJwk(jwk));
    expect(m).toMatch(message);
    expect(m).not.toContain(d);
    expect(m).not.toContain(other.privateJwk.d!);
  });
  it.each<[string, unknown, RegExp]>([
    ['point off the curve', { ...pair.publicJwk, y: pair.publicJwk.x }, /not a point on P-256/],
    ['use enc', { ...pair.publicJwk, use: 'enc' }, /"use" must be "sig"/],
    ['key_ops encrypt only', { ...pair.publicJwk, key_ops: ['encrypt'] }, /"key_ops" must include "verify"/],
    ['null', null, /not a JSON object/],
  ])('public JWK with %s: clear error', (_name, jwk, message) => {
    expect(messageOf(() => publicKeyFromJwk(jwk))).toMatch(message);
  });
});

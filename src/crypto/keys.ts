/**
 * P-256 device keys as node:crypto KeyObjects, imported from and exported to JWK. Import checks
 * every member itself so that a bad profile gets a message naming the member at fault; the private
 * scalar `d` is never repeated in any message.
 */
import { createECDH, createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { Base64UrlError, b64u, fromB64u } from './base64url.ts';
import { isRecord } from '../spec/index.ts';

export interface DeviceKeyPair {
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
}

export class KeyError extends Error {
  override name = 'KeyError';
}

const COORDINATE_BYTES = 32;

/** A fresh P-256 key pair (node:crypto randomness). */
export function generateDeviceKey(): DeviceKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateJwk: privateKey.export({ format: 'jwk' }), publicJwk: publicKey.export({ format: 'jwk' }) };
}

/** The member as its base64url text, once `member` has checked it. */
function memberText(jwk: Readonly<Record<string, unknown>>, name: string, what: string): string {
  member(jwk, name, what);
  return String(jwk[name]);
}

function member(jwk: Readonly<Record<string, unknown>>, name: string, what: string): Uint8Array {
  const v = jwk[name];
  if (v === undefined) throw new KeyError(`${what}: member "${name}" is missing`);
  if (typeof v !== 'string') throw new KeyError(`${what}: member "${name}" is not a string`);
  let bytes: Uint8Array;
  try {
    bytes = fromB64u(v);
  } catch (e) {
    if (e instanceof Base64UrlError) throw new KeyError(`${what}: member "${name}" is not unpadded base64url`);
    throw e;
  }
  if (bytes.length !== COORDINATE_BYTES) throw new KeyError(`${what}: member "${name}" is ${bytes.length} bytes, P-256 needs ${COORDINATE_BYTES}`);
  return bytes;
}

/** Shape checks shared by both imports; `use`, `key_ops` and `alg` must allow ES256 signing. */
function checkJwk(jwk: unknown, what: string, op: 'sign' | 'verify'): Readonly<Record<string, unknown>> {
  if (!isRecord(jwk)) throw new KeyError(`${what}: not a JSON object`);
  const rec = jwk;
  if (rec['kty'] !== 'EC') throw new KeyError(`${what}: "kty" must be "EC"`);
  if (rec['crv'] !== 'P-256') throw new KeyError(`${what}: "crv" must be "P-256"`);
  if (rec['use'] !== undefined && rec['use'] !== 'sig') throw new KeyError(`${what}: "use" must be "sig" when present`);
  if (rec['alg'] !== undefined && rec['alg'] !== 'ES256') throw new KeyError(`${what}: "alg" must be "ES256" when present`);
  const ops = rec['key_ops'];
  if (ops !== undefined && !(Array.isArray(ops) && ops.includes(op))) throw new KeyError(`${what}: "key_ops" must include "${op}" when present`);
  member(rec, 'x', what);
  member(rec, 'y', what);
  return rec;
}

/** Whether (x, y) is d·G, computed independently of the JWK's own x and y. */
function pointMatches(d: Uint8Array, x: Uint8Array, y: Uint8Array): boolean {
  const ecdh = createECDH('prime256v1');
  try {
    ecdh.setPrivateKey(d);
  } catch {
    return false;
  }
  const point = ecdh.getPublicKey(); // 0x04 || X || Y
  return b64u(point.subarray(1, 1 + COORDINATE_BYTES)) === b64u(x) && b64u(point.subarray(1 + COORDINATE_BYTES)) === b64u(y);
}

/** The private key of a JWK; throws `KeyError` naming the member at fault (never its value). */
export function privateKeyFromJwk(jwk: unknown): KeyObject {
  const what = 'private JWK';
  const rec = checkJwk(jwk, what, 'sign');
  const d = member(rec, 'd', what);
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: { kty: 'EC', crv: 'P-256', x: memberText(rec, 'x', what), y: memberText(rec, 'y', what), d: memberText(rec, 'd', what) }, format: 'jwk' });
  } catch {
    throw new KeyError(`${what}: "d", "x" and "y" do not form a valid P-256 key`);
  }
  // OpenSSL keeps x and y as given; a pair that does not belong to d would sign unverifiably.
  if (!pointMatches(d, member(rec, 'x', what), member(rec, 'y', what))) throw new KeyError(`${what}: "x"/"y" are not the public point of "d"`);
  return key;
}

/** The public key of a JWK (a private JWK's `d` is ignored); throws `KeyError` naming the member at fault. */
export function publicKeyFromJwk(jwk: unknown): KeyObject {
  const what = 'public JWK';
  const rec = checkJwk(jwk, what, 'verify');
  try {
    return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: memberText(rec, 'x', what), y: memberText(rec, 'y', what) }, format: 'jwk' });
  } catch {
    throw new KeyError(`${what}: ("x", "y") is not a point on P-256`);
  }
}

/** The public JWK (kty, crv, x, y) of a private or public KeyObject. */
export function publicJwkOf(key: KeyObject): JsonWebKey {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  const { kty, crv, x, y } = pub.export({ format: 'jwk' });
  return { kty, crv, x, y };
}

/** True for a P-256 EC key (public or private). */
export function isP256(key: KeyObject): boolean {
  return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
}

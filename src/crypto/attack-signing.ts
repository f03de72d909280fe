/**
 * Deterministic signing for the attack catalogue. Attacks must produce the same bytes for the same
 * context, so they sign with @noble/curves (RFC 6979 deterministic nonces) instead of node:crypto,
 * and every "fresh" key is derived from a fixed label. Speed does not matter here.
 */
import { createHash, type JsonWebKey, type KeyObject } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { b64u } from './base64url.ts';
import { P256_N } from './service-signature.ts';

const scalars = new WeakMap<KeyObject, Uint8Array>();

/** The private scalar d of a P-256 KeyObject (kept in memory only, never printed). */
export function scalarOf(privateKey: KeyObject): Uint8Array {
  let d = scalars.get(privateKey);
  if (!d) {
    const jwk = privateKey.export({ format: 'jwk' });
    if (typeof jwk.d !== 'string') throw new Error('attack signing needs a private key');
    d = Buffer.from(jwk.d, 'base64url');
    scalars.set(privateKey, d);
  }
  return d;
}

/** A P-256 private scalar derived from a label: the same "attacker" key on every run. */
export function labelledScalar(label: string): Uint8Array {
  for (let i = 0; ; i++) {
    const d = createHash('sha256').update(`pouchproof/${label}/${i}`).digest();
    const v = BigInt('0x' + d.toString('hex'));
    if (v > 0n && v < P256_N) return new Uint8Array(d);
  }
}

export function publicJwkOfScalar(d: Uint8Array): JsonWebKey {
  const point = p256.getPublicKey(d, false);
  return { kty: 'EC', crv: 'P-256', x: b64u(point.subarray(1, 33)), y: b64u(point.subarray(33)) };
}

/**
 * ECDSA P-256 r||s over `message`. `prehash` (default true) hashes with SHA-256 first, as ES256
 * does; false treats `message` itself as the hash. `entropy` hedges the RFC 6979 nonce with fixed
 * bytes, giving a different but still deterministic signature.
 */
export function ecdsaSign(message: Uint8Array, d: Uint8Array, opts: { prehash?: boolean; entropy?: Uint8Array } = {}): Uint8Array {
  return p256.sign(message, d, { prehash: opts.prehash ?? true, lowS: true, ...(opts.entropy ? { extraEntropy: opts.entropy } : {}) });
}

export function bigintOf(bytes: Uint8Array): bigint {
  return BigInt('0x' + (Buffer.from(bytes).toString('hex') || '0'));
}

/** Big-endian bytes of `v`, left-padded to `len` (or as long as needed when `len` is too short). */
export function bytesOf(v: bigint, len: number): Uint8Array {
  let hex = v.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  return new Uint8Array(Buffer.from(hex.padStart(len * 2, '0'), 'hex'));
}

export function rsOf(sig: Uint8Array): { r: bigint; s: bigint } {
  return { r: bigintOf(sig.subarray(0, 32)), s: bigintOf(sig.subarray(32, 64)) };
}

export function joinRs(r: Uint8Array, s: Uint8Array): Uint8Array {
  const out = new Uint8Array(r.length + s.length);
  out.set(r);
  out.set(s, r.length);
  return out;
}

/** ASN.1 DER SEQUENCE { INTEGER r, INTEGER s } of a 64-byte r||s signature. */
export function derOf(sig: Uint8Array): Uint8Array {
  return p256.Signature.fromBytes(sig, 'compact').toBytes('der');
}

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

// ---- a self-signed X.509 certificate, for the x5c attack: DER written by hand, deterministic ----

function derLength(n: number): Uint8Array {
  if (n < 0x80) return Uint8Array.of(n);
  if (n < 0x100) return Uint8Array.of(0x81, n);
  return Uint8Array.of(0x82, n >> 8, n & 0xff);
}

function tlv(tag: number, ...parts: Uint8Array[]): Uint8Array {
  const body = Buffer.concat(parts);
  return new Uint8Array(Buffer.concat([Uint8Array.of(tag), derLength(body.length), body]));
}

const hexBytes = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));
const ECDSA_WITH_SHA256 = hexBytes('06082a8648ce3d040302');
const EC_PUBLIC_KEY = hexBytes('06072a8648ce3d0201');
const PRIME256V1 = hexBytes('06082a8648ce3d030107');
const COMMON_NAME = hexBytes('0603550403');

/**
 * A minimal self-signed X.509 v3 certificate for the P-256 key `d` (CN `name`, valid 2025 to 2049,
 * serial 1), DER-encoded: what an attacker puts in a JWS header's `x5c` for a verifier that takes
 * the first certificate's key without building a chain to a trusted root.
 */
export function selfSignedCertificate(d: Uint8Array, name: string): Uint8Array {
  const seq = (...p: Uint8Array[]) => tlv(0x30, ...p);
  const algorithm = seq(ECDSA_WITH_SHA256);
  const subject = seq(tlv(0x31, seq(COMMON_NAME, tlv(0x0c, new Uint8Array(Buffer.from(name, 'utf8'))))));
  const validity = seq(tlv(0x17, new Uint8Array(Buffer.from('250101000000Z', 'ascii'))), tlv(0x17, new Uint8Array(Buffer.from('491231235959Z', 'ascii'))));
  const spki = seq(seq(EC_PUBLIC_KEY, PRIME256V1), tlv(0x03, Uint8Array.of(0), p256.getPublicKey(d, false)));
  const tbs = seq(tlv(0xa0, tlv(0x02, Uint8Array.of(2))), tlv(0x02, Uint8Array.of(1)), algorithm, subject, validity, subject, spki);
  return seq(tbs, algorithm, tlv(0x03, Uint8Array.of(0), derOf(ecdsaSign(tbs, d))));
}

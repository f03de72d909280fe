/**
 * The `Service-Signature` header of a device's commit (section 5): a detached compact JWS,
 * `BASE64URL(header)..BASE64URL(r||s)`, whose payload is the 32-byte BLAKE3 digest of the RFC 8785
 * canonical form of the body (so the signing input is `header.BASE64URL(digest)`).
 *
 * Choices where the spec is silent: the key is the one enrolled for the authenticated device (chosen
 * by the caller's credentials, never by the header); `kid`, `typ` and other registered parameters are
 * ignored, `jwk`/`jku`/`x5c`/`x5u` are never trusted; any `crit` is refused (no extension is
 * understood, RFC 7515 §4.1.11), and so is `b64` (RFC 7797 is not implemented); an attached payload
 * is refused; the signature must be exactly 64 bytes in unpadded base64url; high-S is accepted
 * (RFC 7518 has no low-S rule).
 */
import { createHash, createHmac, createPublicKey, timingSafeEqual, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { blake3 } from '@noble/hashes/blake3.js';
import type { BugCheck } from './bugs.ts';
import { canonicalJson, parseJson, type Json, type JsonObject } from './json.ts';
import { isObject } from './validate.ts';

export interface SignatureKeys {
  /** The authenticated device's enrolled key. */
  readonly own: KeyObject;
  /** Every enrolled device key by device id (what a sloppy server looks keys up in). */
  readonly all: ReadonlyMap<string, KeyObject>;
  /** Header values seen valid before (only 5.2-25 reads it). */
  readonly seen: Set<string>;
}

export interface SignedRequest {
  readonly header: string | undefined;
  readonly body: Json;
  readonly rawBody: Buffer;
}

const B64URL = /^[A-Za-z0-9_-]*$/;
const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** Strict unpadded base64url: the alphabet, no impossible length, and the canonical encoding. */
function b64urlDecode(s: string, bug: BugCheck): Buffer | undefined {
  if (bug('5.2-18')) return Buffer.from(s, 'base64');
  if (!B64URL.test(s) || s.length % 4 === 1) return undefined;
  const bytes = Buffer.from(s, 'base64url');
  return bytes.toString('base64url') === s ? bytes : undefined;
}

function protectedHeader(segment: string, bug: BugCheck): JsonObject | undefined {
  const bytes = b64urlDecode(segment, () => false);
  if (!bytes) return undefined;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    const v = parseJson(text, (name) => name === 'Intro-16' && bug('5.2-6'));
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The member set the digest covers under 5.2-23: required members of the typed view only. */
function typedView(body: Json): Json {
  if (!isObject(body) || !Array.isArray(body['ops'])) return body;
  const keep = ['type', 'artifact_id', 'revision_id', 'base_revision_id', 'key_gen', 'envelope', 'signature', 'signer_member_id', 'blob_ids'];
  const ops = body['ops'].map((op) => (isObject(op) ? Object.fromEntries(keep.filter((k) => k in op).map((k) => [k, op[k]!])) : op));
  return { operation_id: body['operation_id'] ?? null, epoch: body['epoch'] ?? null, ops } as JsonObject;
}

function digestOf(req: SignedRequest, bug: BugCheck): Buffer {
  let covered: Json = req.body;
  if (bug('5.2-23')) covered = typedView(req.body);
  if (bug('5.2-24') && isObject(req.body)) covered = { ops: req.body['ops'] ?? null } as JsonObject;
  const bytes = bug('5.2-26') ? req.rawBody : Buffer.from(canonicalJson(covered), 'utf8');
  if (bug('5.2-21')) return createHash('sha256').update(bytes).digest();
  return Buffer.from(blake3(bytes));
}

/** Refusals the protected header alone decides, or undefined. */
function headerProblem(h: JsonObject, bug: BugCheck): string | undefined {
  if ('crit' in h && !bug('5.2-7')) return 'crit names an extension this server does not understand';
  if ('b64' in h && !(bug('5.2-8') && h['b64'] === false)) return 'b64 is not supported';
  return undefined;
}

function sec1(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
}

function ecdsaOk(hash: string, input: Buffer, key: KeyObject, sig: Buffer, bug: BugCheck): boolean {
  const der = bug('5.2-17') && sig.length !== 64 && sig[0] === 0x30;
  if (!der && sig.length !== 64) return false;
  if (bug('5.2-19') && BigInt(`0x${sig.subarray(32).toString('hex')}`) > P256_N / 2n) return false;
  try {
    return verify(hash, input, { key, dsaEncoding: der ? 'der' : 'ieee-p1363' }, sig);
  } catch {
    return false;
  }
}

/** The key a header claims to be signed with, where a sloppy server would believe it. */
function embeddedKey(h: JsonObject, bug: BugCheck): KeyObject | undefined {
  try {
    if (bug('5.2-9') && isObject(h['jwk'])) return createPublicKey({ key: JSON.parse(canonicalJson(h['jwk'])) as import('node:crypto').JsonWebKey, format: 'jwk' });
    const x5c = h['x5c'];
    if (bug('5.2-10') && Array.isArray(x5c) && typeof x5c[0] === 'string') return new X509Certificate(Buffer.from(x5c[0], 'base64')).publicKey;
  } catch {
    return undefined;
  }
  return undefined;
}

/** The keys tried, in order: the device's own, unless a bug looks elsewhere. */
function candidateKeys(h: JsonObject, keys: SignatureKeys, bug: BugCheck): KeyObject[] | 'skip' {
  const embedded = embeddedKey(h, bug);
  if (embedded) return [embedded];
  const kid = typeof h['kid'] === 'string' ? h['kid'].toLowerCase() : undefined;
  if (kid !== undefined && bug('5.2-28') && keys.all.has(kid)) return [keys.all.get(kid)!];
  if (kid !== undefined && bug('5.2-12') && !keys.all.has(kid)) return 'skip';
  if (bug('5.2-13')) return [...keys.all.values()];
  return [keys.own];
}

function algOk(h: JsonObject, input: Buffer, sig: Buffer, ks: KeyObject[], bug: BugCheck): boolean {
  const alg = typeof h['alg'] === 'string' ? h['alg'] : '';
  if (alg === 'none' && bug('5.2-2')) return true;
  if (alg === 'HS256' && bug('5.2-4')) {
    return ks.some((k) => {
      const mac = createHmac('sha256', sec1(k)).update(input).digest();
      return mac.length === sig.length && timingSafeEqual(mac, sig);
    });
  }
  const hashes = new Map(bug('5.2-5') ? [['ES256', 'sha256'], ['ES384', 'sha384'], ['ES512', 'sha512']] : [['ES256', 'sha256']]);
  const hash = hashes.get(bug('5.2-3') ? alg.toUpperCase() : alg);
  return hash !== undefined && ks.some((k) => ecdsaOk(hash, input, k, sig, bug));
}

/** Why the header does not sign this body for this device, or undefined when it does. */
export function signatureProblem(req: SignedRequest, keys: SignatureKeys, bug: BugCheck): string | undefined {
  if (req.header === undefined) return bug('5.1-1') ? undefined : 'Service-Signature header missing';
  if (bug('5.2-25') && keys.seen.has(req.header)) return undefined;
  const parts = req.header.split('.');
  if (parts.length !== 3) return 'not a compact JWS';
  const [hSeg, pSeg, sSeg] = parts as [string, string, string];
  if (bug('5.2-20') && hSeg !== Buffer.from('{"alg":"ES256"}').toString('base64url')) return 'unexpected protected header';
  const h = protectedHeader(hSeg, bug);
  if (!h) return 'protected header is not a base64url JSON object';
  const problem = headerProblem(h, bug);
  if (problem) return problem;
  if (pSeg !== '' && !bug('5.2-22')) return 'the JWS must be detached';
  const sig = b64urlDecode(sSeg, bug);
  if (!sig) return 'signature is not base64url';
  if (bug('5.2-1')) return undefined;
  const payload = pSeg !== '' ? pSeg : digestOf(req, bug).toString('base64url');
  const ks = candidateKeys(h, keys, bug);
  if (ks === 'skip') return undefined;
  if (!algOk(h, Buffer.from(`${hSeg}.${payload}`, 'ascii'), sig, ks, bug)) return 'signature does not verify';
  if (bug('5.2-25')) keys.seen.add(req.header);
  return undefined;
}

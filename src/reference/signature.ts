/**
 * Section 5 on the reference: a signed commit carries `Service-Signature`, a detached ES256 JWS
 * over the BLAKE3 digest of the canonical form of the body. The readings decide the canonical form
 * (`canonical-json`), what the JWS payload is (`jws-form`), whose key verifies and what the kid must
 * name (`kid-binding`) and whether high-S signatures verify (`high-s-accepted`); verification is
 * src/crypto's, through OpenSSL, which knows every form. The signature faults sit exactly where a
 * hand-written verifier would take each shortcut.
 */
import { X509Certificate, createHmac, createPublicKey, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import {
  b64u,
  fromB64u,
  parseProtectedHeader,
  payloadOf,
  protectedHeaderSegment,
  signingDigest,
  signingInput,
  verifyEs256,
  verifyServiceSignature,
  type HighS,
  type SignatureForm,
} from '../crypto/index.ts';
import { PouchOperation, commitOperations, isRecord, parseJson, type ObjectNode } from '../spec/index.ts';
import { HttpError } from './errors.ts';
import { SIGNATURE_SHORTCUT_FAULTS, type FaultName } from './fault-catalogue.ts';
import type { FaultSet } from './faults.ts';
import type { Caller, Directory } from './fixture.ts';
import type { ReadingSet } from './readings.ts';

export { SIGNATURE_HEADER } from '../spec/index.ts';

const unauthorized = (message: string): HttpError => new HttpError(401, 'invalid_signature', message);

// Stryker disable all: segments, claimsAlgNone, isZeroSignature, requestDto and kidNamesNoDevice run only under their faults (docs/mutation.md)
function segments(header: string): [string, string, string] | undefined {
  const [a, b, c, ...rest] = header.split('.');
  return c !== undefined && rest.length === 0 ? [a, b, c] : undefined;
}

/** A shortcut taken by the `signature-alg-none` fault: trusts the header's own alg. */
function claimsAlgNone(header: string): boolean {
  const s = segments(header);
  if (!s) return false;
  try {
    const h = parseJson(Buffer.from(fromB64u(s[0])).toString('utf8'));
    return isRecord(h) && h.alg === 'none';
  } catch {
    return false;
  }
}

/** The `signature-zero-accepted` fault: no range check on r and s, so r = s = 0 passes (CVE-2022-21449). */
function isZeroSignature(header: string): boolean {
  const s = segments(header);
  if (!s) return false;
  try {
    const sig = fromB64u(s[2]);
    return sig.length > 0 && sig.every((b) => b === 0);
  } catch {
    return false;
  }
}

/**
 * `signature-partial-body`: the digest is taken over the server's typed view of the request, which
 * keeps the required members only. The optional members of an operation (merge_parent_id,
 * name_index, conflict_id) and unknown members are then outside the signature.
 */
function requestDto(body: unknown): unknown {
  const pick = (v: unknown, node: ObjectNode): Record<string, unknown> => {
    const src = isRecord(v) ? v : {};
    const out: Record<string, unknown> = {};
    for (const [k, field] of Object.entries(node.fields)) if (field.required && k in src) out[k] = src[k];
    return out;
  };
  const dto = pick(body, commitOperations.body);
  if (Array.isArray(dto['ops'])) dto['ops'] = dto['ops'].map((o) => pick(o, PouchOperation));
  return dto;
}

/**
 * A hand-written verifier with the one shortcut each fault names, taken only where that fault's
 * header feature is present (a crit member, b64 false, a jwk or x5c, alg HS256, a kid that is a
 * path, a DER signature, padding or the + / alphabet, an attached payload); everything else it
 * leaves to the real verifier.
 * True when the shortcut accepts the header.
 */
function shortcutAccepts(a: { header: string; rawBody: Uint8Array; parsedBody: unknown; expectedKid: string | undefined; keyFor: (kid: string) => KeyObject | undefined; faults: FaultSet; form: SignatureForm; highS: HighS }): boolean {
  const s = segments(a.header);
  if (!s) return false;
  const [seg, payloadSeg, sigSeg] = s;
  let parsed: unknown;
  try {
    parsed = parseJson(Buffer.from(fromB64u(seg)).toString('utf8'));
  } catch {
    return false;
  }
  if (!isRecord(parsed) || typeof parsed['kid'] !== 'string') return false;
  const h = parsed;
  const kid = parsed['kid'];
  const digest = (): Uint8Array => signingDigest(a.parsedBody, a.rawBody, a.form);
  const input = (): Buffer => signingInput(seg, payloadOf(digest(), a.form.jwsForm));
  const has = (f: FaultName): boolean => a.faults.has(f);
  const hmacMatches = (secret: string): boolean => {
    const mac = createHmac('sha256', secret).update(input()).digest();
    const sig = Buffer.from(fromB64u(sigSeg));
    return sig.length === mac.length && timingSafeEqual(sig, mac);
  };
  // A key file named by kid (path traversal reaches /dev/null, whose empty content is the HS256 secret); kid is then a path, never bound to the caller.
  if (has('signature-kid-path') && h['alg'] === 'HS256' && kid.includes('../')) return kid.endsWith('/dev/null') && hmacMatches('');
  if (a.expectedKid !== undefined && kid !== a.expectedKid) return false;
  const key = a.keyFor(kid);
  try {
    if (has('signature-hmac-public-key') && h['alg'] === 'HS256' && key) {
      // jsonwebtoken < 4.2.2: one "secretOrPublicKey" for every alg, so HS256 is keyed with the public key's PEM.
      return hmacMatches(String(key.export({ type: 'spki', format: 'pem' })));
    }
    if (h['alg'] !== 'ES256') return false;
    if (has('signature-embedded-jwk') && isRecord(h['jwk'])) {
      return verifyEs256(input(), sigSeg, createPublicKey({ key: { ...h['jwk'] }, format: 'jwk' }), a.highS).ok;
    }
    // The first certificate's key, with no chain built to a trusted root.
    if (has('signature-x5c-trusted') && Array.isArray(h['x5c']) && typeof h['x5c'][0] === 'string') {
      return verifyEs256(input(), sigSeg, new X509Certificate(Buffer.from(h['x5c'][0], 'base64')).publicKey, a.highS).ok;
    }
    if (!key) return false;
    if (has('signature-crit-ignored') && 'crit' in h && !('b64' in h)) return verifyEs256(input(), sigSeg, key, a.highS).ok;
    if (has('signature-b64-without-crit') && h['b64'] === false && !('crit' in h)) {
      // RFC 7797: the payload itself, unencoded, in the signing input.
      return verifyEs256(Buffer.concat([Buffer.from(`${seg}.`, 'latin1'), payloadOf(digest(), a.form.jwsForm)]), sigSeg, key, a.highS).ok;
    }
    if (has('signature-attached-payload') && payloadSeg !== '') return verifyEs256(Buffer.from(`${seg}.${payloadSeg}`, 'latin1'), sigSeg, key, a.highS).ok;
    if (has('signature-lenient-base64') && /[=+/]/.test(sigSeg)) return verifyEs256(input(), b64u(Buffer.from(sigSeg, 'base64')), key, a.highS).ok;
    if (has('signature-der-accepted')) {
      const sig = fromB64u(sigSeg);
      return sig[0] === 0x30 && sig.length !== 64 && verify('sha256', input(), { key, dsaEncoding: 'der' }, sig);
    }
  } catch {
    return false;
  }
  return false;
}

/** `signature-kid-fallback`: whether the header's kid names no enrolled device (then the caller's key is tried). */
function kidNamesNoDevice(header: string, directory: Directory): boolean {
  const s = segments(header);
  const h = s ? parseProtectedHeader(s[0]) : undefined;
  if (!h?.ok || !('kid' in h.header)) return false;
  const kid = h.header['kid'];
  return typeof kid !== 'string' || directory.deviceKey(kid) === undefined;
}

/** `signature-cache-by-header`: the header values that verified, per server (its directory), bounded. */
const verifiedHeaders = new WeakMap<Directory, Set<string>>();
const CACHED_HEADERS = 4096;

function cachedHeaders(directory: Directory): Set<string> {
  let set = verifiedHeaders.get(directory);
  if (!set) verifiedHeaders.set(directory, (set = new Set()));
  if (set.size >= CACHED_HEADERS) set.clear();
  return set;
}
// Stryker restore all

/**
 * Which key verifies, per `kid-binding`: `bound`, the kid must be the caller's and its key verifies;
 * `unbound`, the kid names the enrolled device whose key verifies; `caller-key`, the caller's key
 * verifies whatever the kid says. `signature-kid-fallback` takes the caller's key under any reading
 * when the kid names no enrolled device.
 */
function keyChoice(a: { caller: Caller; directory: Directory; faults: FaultSet; readings: ReadingSet }, header: string): {
  expectedKid: string | undefined;
  keyFor: (kid: string) => KeyObject | undefined;
  callerKey?: { readonly key: KeyObject | undefined };
} {
  const callerId = a.caller.deviceId ?? a.caller.memberId;
  const binding = a.readings.of('kid-binding');
  const keyFor = (kid: string): KeyObject | undefined => a.directory.deviceKey(kid);
  if (binding === 'caller-key' || (a.faults.has('signature-kid-fallback') && kidNamesNoDevice(header, a.directory))) {
    return { expectedKid: undefined, keyFor: () => a.directory.deviceKey(callerId), callerKey: { key: a.directory.deviceKey(callerId) } };
  }
  switch (binding) {
    case 'bound':
      return { expectedKid: callerId, keyFor };
    case 'unbound':
      return { expectedKid: undefined, keyFor };
    default:
      return binding satisfies never;
  }
}

/**
 * Throws 401 unless the request carries a valid Service-Signature of the caller. A browser holds no
 * enrolled key: under a bound kid, or the caller's key, nothing it sends can verify.
 */
export function checkServiceSignature(a: {
  header: string | string[] | undefined;
  rawBody: Uint8Array;
  body: unknown;
  caller: Caller;
  directory: Directory;
  faults: FaultSet;
  readings: ReadingSet;
}): void {
  const { faults, readings } = a;
  const header = Array.isArray(a.header) ? a.header.join(',') : a.header;
  if (header === undefined || header === '') {
    if (faults.has('signature-header-optional')) return;
    throw unauthorized(`Service-Signature header is required on a ${a.caller.kind === 'device' ? 'command-line device' : 'browser'} commit`);
  }
  if (faults.has('signature-not-verified')) return;
  // `signature-never-verifies`: the verifier hashes a form no reading names, so nothing verifies.
  if (faults.has('signature-never-verifies')) throw new HttpError(403, 'invalid_signature', 'Service-Signature does not verify');
  // `signature-header-literal`: the protected header is compared as text with the one the service's own client writes, instead of parsed.
  if (faults.has('signature-header-literal') && segments(header)?.[0] !== protectedHeaderSegment(a.caller.deviceId ?? a.caller.memberId)) {
    throw unauthorized('Service-Signature rejected: unexpected protected header');
  }
  if (faults.has('signature-alg-none') && claimsAlgNone(header)) return;
  if (faults.has('signature-zero-accepted') && isZeroSignature(header)) return;
  // `signature-cache-by-header`: a header that verified before is taken without hashing this body.
  if (faults.has('signature-cache-by-header') && cachedHeaders(a.directory).has(header)) return;
  const parsedBody = faults.has('signature-partial-body') ? requestDto(a.body) : a.body;
  const { expectedKid, keyFor, callerKey } = keyChoice(a, header);
  const form: SignatureForm = { canonical: readings.of('canonical-json'), jwsForm: readings.of('jws-form') };
  const highS = readings.of('high-s-accepted');
  if (SIGNATURE_SHORTCUT_FAULTS.some((f) => faults.has(f)) && shortcutAccepts({ header, rawBody: a.rawBody, parsedBody, expectedKid, keyFor, faults, form, highS })) return;
  const r = verifyServiceSignature({
    header,
    rawBody: a.rawBody,
    parsedBody,
    keyFor,
    ...(expectedKid === undefined ? {} : { expectedKid }),
    ...(callerKey ? { callerKey } : {}),
    highS,
    ...form,
  });
  if (!r.ok) throw unauthorized(`Service-Signature rejected: ${r.reason}`);
  if (faults.has('signature-cache-by-header')) cachedHeaders(a.directory).add(header);
}

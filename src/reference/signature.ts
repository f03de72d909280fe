/**
 * Section 5 on the reference: a signed commit carries `Service-Signature`, a detached ES256 JWS
 * over the BLAKE3 digest of the canonical form of the body. The readings decide the canonical form
 * (`canonical-json`), what the JWS payload is (`jws-form`), whether the kid must be the caller's own
 * device id (`kid-binding`) and whether high-S signatures verify (`high-s-accepted`); verification is
 * src/crypto's, through OpenSSL, which knows every form. The signature faults sit exactly where a
 * hand-written verifier would take each shortcut.
 */
import { fromB64u } from '../crypto/base64url.ts';
import { protectedHeaderSegment, verifyServiceSignature } from '../crypto/service-signature.ts';
import { PouchOperation, commitOperations, type ObjectNode } from '../spec/index.ts';
import { HttpError } from './errors.ts';
import type { FaultSet } from './faults.ts';
import type { Caller, Directory } from './fixture.ts';
import type { ReadingSet } from './readings.ts';

export { SIGNATURE_HEADER } from '../spec/index.ts';

const unauthorized = (message: string): HttpError => new HttpError(401, 'invalid_signature', message);

// Stryker disable all: segments, claimsAlgNone, isZeroSignature and requestDto run only under their faults (docs/mutation.md)
function segments(header: string): [string, string, string] | undefined {
  const parts = header.split('.');
  return parts.length === 3 ? (parts as [string, string, string]) : undefined;
}

/** A shortcut taken by the `signature-alg-none` fault: trusts the header's own alg. */
function claimsAlgNone(header: string): boolean {
  const s = segments(header);
  if (!s) return false;
  try {
    const h = JSON.parse(Buffer.from(fromB64u(s[0])).toString('utf8')) as { alg?: unknown };
    return typeof h === 'object' && h !== null && h.alg === 'none';
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
    const src = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, field] of Object.entries(node.fields)) if (field.required && k in src) out[k] = src[k];
    return out;
  };
  const dto = pick(body, commitOperations.body);
  if (Array.isArray(dto['ops'])) dto['ops'] = dto['ops'].map((o) => pick(o, PouchOperation));
  return dto;
}
// Stryker restore all

/**
 * Throws 401 unless the request carries a valid Service-Signature of the caller. A browser holds no
 * enrolled key: under a bound kid nothing it sends can verify.
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
  const parsedBody = faults.has('signature-partial-body') ? requestDto(a.body) : a.body;
  const r = verifyServiceSignature({
    header,
    rawBody: a.rawBody,
    parsedBody,
    keyFor: (kid) => a.directory.deviceKey(kid),
    ...(readings.is('kid-binding', 'unbound') ? {} : { expectedKid: a.caller.deviceId ?? a.caller.memberId }),
    highS: readings.of('high-s-accepted'),
    canonical: readings.of('canonical-json'),
    jwsForm: readings.of('jws-form'),
  });
  if (!r.ok) throw unauthorized(`Service-Signature rejected: ${r.reason}`);
}

/**
 * The `Service-Signature` a call carries (section 5): computed over the exact bytes sent, in the
 * canonical form and JWS form the profile's assumptions name.
 */
import { canonicalize, sortedCompact } from '../crypto/canonical.ts';
import { signServiceSignature, type CanonicalForm, type JwsForm } from '../crypto/service-signature.ts';
import type { AssumptionSet, Endpoint } from '../spec/index.ts';
import type { Identity } from './profile.ts';

export type SignatureOption = 'auto' | 'omit' | { header: string | undefined };

/** The body as the server will parse it, or undefined when the bytes are not JSON. */
function parsedBytes(bytes: Uint8Array): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as unknown };
  } catch {
    return undefined;
  }
}

/** Whether the bytes are the JCS text and the sorted-compact text of what they parse to. */
function formsAgree(value: unknown, bytes: Uint8Array): boolean {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  try {
    return canonicalize(value) === text && sortedCompact(value) === text;
  } catch {
    return false;
  }
}

/**
 * The header value to send, or undefined for none. `auto` signs when a device with a key calls an
 * endpoint section 5 says devices sign; a body that is not JSON is signed only under `raw-bytes`
 * (no canonical form exists for it), otherwise it goes unsigned.
 */
export function signatureFor(a: {
  option: SignatureOption | undefined;
  endpoint: Endpoint;
  identity: Identity | undefined;
  bytes: Uint8Array;
  assumptions: AssumptionSet;
}): string | undefined {
  const option = a.option ?? 'auto';
  if (option === 'omit') return undefined;
  if (typeof option === 'object') return option.header;
  const id = a.identity;
  if (!a.endpoint.signedByDevice || id?.kind !== 'device' || !id.privateKey || !id.deviceId) return undefined;
  const jwsForm = a.assumptions['jws-form'] as JwsForm;
  const parsed = parsedBytes(a.bytes);
  // Bytes that are already the canonical text under every reading hash alike whatever the target
  // reads, so the reading of `canonical-json` is not consulted (nor rests on) for them.
  const canonical: CanonicalForm = parsed && formsAgree(parsed.value, a.bytes) ? 'raw-bytes' : (a.assumptions['canonical-json'] as CanonicalForm);
  if (!parsed && canonical !== 'raw-bytes') return undefined;
  return signServiceSignature({
    body: parsed?.value,
    rawBody: a.bytes,
    kid: id.deviceId,
    privateKey: id.privateKey,
    canonical,
    jwsForm,
  });
}

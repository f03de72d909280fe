/**
 * The `Service-Signature` a request carries (section 5), decided in one place for the conformance
 * client and the load bodies alike: who signs (a device with a key, on an endpoint section 5 says
 * devices sign) and what is hashed, under the run's readings of `canonical-json` and `jws-form`.
 */
import type { KeyObject } from 'node:crypto';
import { blake3, canonicalize, sortedCompact, signDigest, signingDigest, type CanonicalForm, type JwsForm } from '../crypto/index.ts';
import { parseJson, readingsOf, type AssumptionSet, type Endpoint } from '../spec/index.ts';
import type { Identity } from './profile.ts';

export type SignatureOption = 'auto' | 'omit' | { header: string | undefined };

/** Signs request bodies with one device's key under one run's readings. */
export interface BodySigner {
  /** The header for any bytes; undefined when the readings give them no digest (bytes that are not JSON, unless hashed raw). */
  sign(bytes: Uint8Array): string | undefined;
  /**
   * The header for text its writer made canonical (RFC 8785, as the load builders write bodies):
   * hashed as sent when every reading digests that very text, so a hot path never parses what it
   * has just written, and the reading of `canonical-json` is not consulted for it. `bytes`: the
   * text's UTF-8 when the caller holds it already (a 35 MB commit encoded twice was 35 MB more).
   */
  signCanonical(text: string, bytes?: Uint8Array): string;
}

/**
 * Whether a reading of `canonical-json` digests the RFC 8785 text of a body as it stands. Every
 * reading must answer (the switch is exhaustive); where one does not, canonical text is given the
 * run's reading like any other body.
 */
function digestsCanonicalText(form: CanonicalForm): boolean {
  switch (form) {
    case 'rfc8785':
      return true;
    case 'raw-bytes':
      return true;
    // JSON.stringify with sorted names: apart from JCS only on values JSON text cannot hold
    // (undefined, NaN, toJSON) and on lone surrogates, which JCS text never holds.
    case 'sorted-compact':
      return true;
    default:
      return form satisfies never;
  }
}

/** Canonical text hashes alike under every reading of the registry: then the run's reading does not matter for it. */
const CANONICAL_TEXT_AS_SENT = readingsOf('canonical-json').every(digestsCanonicalText);

/** The body as the server will parse it, or undefined when the bytes are not JSON. */
function parsedBytes(bytes: Uint8Array): { value: unknown } | undefined {
  try {
    return { value: parseJson(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) };
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
 * A signer for one key under the readings of `assumptions`, each read only when it decides
 * something (a verdict resting on a reading records that it consulted it).
 */
export function bodySigner(key: { readonly kid: string; readonly privateKey: KeyObject }, assumptions: Pick<AssumptionSet, 'canonical-json' | 'jws-form'>): BodySigner {
  const jwsForm = (): JwsForm => assumptions['jws-form'];
  const asSent = (bytes: Uint8Array): string => signDigest(blake3(bytes), key.kid, key.privateKey, jwsForm());
  const byReading = (bytes: Uint8Array, parsed: { value: unknown } | undefined): string | undefined => {
    const canonical = assumptions['canonical-json'];
    // A body that is not JSON has no canonical form: only a raw-bytes digest exists for it.
    if (!parsed && canonical !== 'raw-bytes') return undefined;
    return signDigest(signingDigest(parsed?.value, bytes, { canonical }), key.kid, key.privateKey, jwsForm());
  };
  return {
    sign(bytes) {
      const parsed = parsedBytes(bytes);
      // Bytes already the canonical text under every reading hash alike whatever the target reads.
      return parsed && formsAgree(parsed.value, bytes) ? asSent(bytes) : byReading(bytes, parsed);
    },
    // `bytes`, when given, are the text's UTF-8 (the client has just encoded it): a 35 MB body is not encoded twice.
    signCanonical(text, bytes = Buffer.from(text, 'utf8')) {
      if (CANONICAL_TEXT_AS_SENT) return asSent(bytes);
      const header = byReading(bytes, parsedBytes(bytes));
      if (header === undefined) throw new TypeError('signCanonical was given text that is not JSON');
      return header;
    },
  };
}

/** The signer of `identity` on `endpoint`: undefined unless a device with a key calls an endpoint section 5 says devices sign. */
export function deviceSigner(identity: Identity | undefined, endpoint: Endpoint, assumptions: AssumptionSet): BodySigner | undefined {
  if (!endpoint.signedByDevice || identity?.kind !== 'device' || !identity.privateKey || !identity.deviceId) return undefined;
  return bodySigner({ kid: identity.deviceId, privateKey: identity.privateKey }, assumptions);
}

/** The header value to send, or undefined for none: `auto` asks `deviceSigner`; `omit` and a given header are sent as they are. */
export function signatureFor(a: {
  option: SignatureOption | undefined;
  endpoint: Endpoint;
  identity: Identity | undefined;
  bytes: Uint8Array;
  /** The bytes are this text, which canonicalize wrote: signed without parsing it back (a 35 MB commit was parsed and written twice more). */
  canonicalText?: string;
  assumptions: AssumptionSet;
}): string | undefined {
  const option = a.option ?? 'auto';
  if (option === 'omit') return undefined;
  if (typeof option === 'object') return option.header;
  const signer = deviceSigner(a.identity, a.endpoint, a.assumptions);
  return a.canonicalText === undefined ? signer?.sign(a.bytes) : signer?.signCanonical(a.canonicalText, a.bytes);
}

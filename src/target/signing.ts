/**
 * The `Service-Signature` a request carries (section 5), decided in one place for the conformance
 * client and the load bodies alike: who signs (a device with a key, on an endpoint section 5 says
 * devices sign) and what is hashed, under the run's readings of `canonical-json` and `jws-form`.
 */
import type { KeyObject } from 'node:crypto';
import { blake3 } from '../crypto/blake3.ts';
import { signDigest, signingDigest, type CanonicalForm, type JwsForm } from '../crypto/service-signature.ts';
import type { AssumptionSet, Endpoint } from '../spec/index.ts';
import type { Identity } from './profile.ts';

export type SignatureOption = 'auto' | 'omit' | { header: string | undefined };

/** Signs request bodies with one device's key under one run's readings. */
export interface BodySigner {
  /** The header for any bytes; undefined when the readings give them no digest (bytes that are not JSON, unless hashed raw). */
  sign(bytes: Uint8Array): string | undefined;
  /**
   * The header for text its writer made canonical (RFC 8785, as the load builders write bodies):
   * hashed as sent wherever the reading digests that very text, so a hot path never parses what it
   * has just written.
   */
  signCanonical(text: string): string;
}

/**
 * Whether a reading of `canonical-json` digests the RFC 8785 text of a body as it stands. Every
 * reading must answer (the switch is exhaustive): one that does not is given the parsed body.
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

/** The body as the server will parse it, or undefined when the bytes are not JSON. */
function parsedBytes(bytes: Uint8Array): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as unknown };
  } catch {
    return undefined;
  }
}

/** A signer for one key under the readings of `assumptions`. */
export function bodySigner(key: { readonly kid: string; readonly privateKey: KeyObject }, assumptions: Pick<AssumptionSet, 'canonical-json' | 'jws-form'>): BodySigner {
  const canonical = assumptions['canonical-json'] as CanonicalForm;
  const jwsForm = assumptions['jws-form'] as JwsForm;
  const asSent = digestsCanonicalText(canonical);
  const sign = (bytes: Uint8Array): string | undefined => {
    const parsed = parsedBytes(bytes);
    // A body that is not JSON has no canonical form: only a raw-bytes digest exists for it.
    if (!parsed && canonical !== 'raw-bytes') return undefined;
    return signDigest(signingDigest(parsed?.value, bytes, { canonical }), key.kid, key.privateKey, jwsForm);
  };
  return {
    sign,
    signCanonical(text) {
      const bytes = Buffer.from(text, 'utf8');
      if (asSent) return signDigest(blake3(bytes), key.kid, key.privateKey, jwsForm);
      const header = sign(bytes);
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
  assumptions: AssumptionSet;
}): string | undefined {
  const option = a.option ?? 'auto';
  if (option === 'omit') return undefined;
  if (typeof option === 'object') return option.header;
  return deviceSigner(a.identity, a.endpoint, a.assumptions)?.sign(a.bytes);
}

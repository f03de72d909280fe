/**
 * TLS as a staging target needs it: a private CA to trust (besides Node's bundled roots), a client
 * certificate and key (mutual TLS, the key possibly encrypted), the name to verify, a lowest
 * version. There is no switch to turn verification off. Every client of a run (conformance,
 * connection probe, load engine) connects with `tlsConnectOptions`, and every TLS failure reads as
 * one line that names the profile field to set (`describeTlsFailure`).
 */
import { type KeyObject, X509Certificate, createPrivateKey } from 'node:crypto';
import { rootCertificates, type ConnectionOptions } from 'node:tls';
import { causeChain, errorCodes, innermostMessage } from './error-codes.ts';
import { FieldError } from './field-error.ts';
import { errorCode, errorMessage } from '../spec/index.ts';

export const TLS_MIN_VERSIONS = ['TLSv1.2', 'TLSv1.3'] as const;
export type TlsMinVersion = (typeof TLS_MIN_VERSIONS)[number];

/** Where a piece of TLS material came from: a curl line names a file by its path, and says so when there is none. */
export type MaterialOrigin = { readonly kind: 'file'; readonly path: string } | { readonly kind: 'env'; readonly name: string } | { readonly kind: 'inline' };

export interface TlsSettings {
  /** PEM certificates trusted besides Node's bundled roots. */
  readonly ca?: string;
  /** PEM client certificate (and its chain), for a server that asks for one. */
  readonly cert?: string;
  /** PEM private key of `cert` (a secret). */
  readonly key?: string;
  /** Decrypts `key` (a secret). */
  readonly passphrase?: string;
  /** The name to send (SNI) and to verify the server's certificate against, instead of the base URL's host. */
  readonly servername?: string;
  readonly minVersion?: TlsMinVersion;
  readonly origins: { readonly ca?: MaterialOrigin; readonly cert?: MaterialOrigin; readonly key?: MaterialOrigin };
}

/** A TLS block that cannot be used: `field` names the profile field at fault. */
export class TlsMaterialError extends FieldError {
  override readonly name = 'TlsMaterialError';
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The PEM certificates of `text`, each parsed (so a broken one is named now, not at the first handshake). */
export function pemCertificates(text: string, field: string): X509Certificate[] {
  const blocks = text.match(PEM_CERT) ?? [];
  if (blocks.length === 0) throw new TlsMaterialError(field, 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  return blocks.map((b, i) => {
    try {
      return new X509Certificate(b);
    } catch {
      throw new TlsMaterialError(field, `certificate ${i + 1} of ${blocks.length} is not a valid X.509 certificate`);
    }
  });
}

/** Checks a client certificate, its key and passphrase together; messages never quote the material. */
export function checkClientIdentity(cert: string, key: string, passphrase: string | undefined): void {
  const leaf = pemCertificates(cert, 'tls.cert')[0];
  // OpenSSL's error for a missing passphrase differs between Node versions: the PEM says it is encrypted.
  if (passphrase === undefined && /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(key)) {
    throw new TlsMaterialError('tls.key', 'the key is encrypted: set tls.passphrase');
  }
  let k: KeyObject;
  try {
    k = createPrivateKey({ key, format: 'pem', ...(passphrase !== undefined ? { passphrase } : {}) });
  } catch (e) {
    const code = errorCode(e) ?? '';
    if (code === 'ERR_MISSING_PASSPHRASE') throw new TlsMaterialError('tls.key', 'the key is encrypted: set tls.passphrase');
    if (passphrase !== undefined && /BAD_DECRYPT|DECRYPT|bad decrypt/i.test(`${code} ${errorMessage(e)}`)) {
      throw new TlsMaterialError('tls.passphrase', 'does not decrypt tls.key');
    }
    throw new TlsMaterialError('tls.key', 'not a PEM private key (-----BEGIN PRIVATE KEY-----, or an RSA/EC key in PEM)');
  }
  if (!leaf.checkPrivateKey(k)) throw new TlsMaterialError('tls.key', 'is not the key of tls.cert (the first certificate of tls.cert)');
}

/** Options for `tls.connect` (and undici's `connect`): the profile's block, over Node's defaults. */
export function tlsConnectOptions(t: TlsSettings | undefined): ConnectionOptions {
  if (!t) return {};
  return {
    ...(t.ca !== undefined ? { ca: [...rootCertificates, t.ca] } : {}),
    ...(t.cert !== undefined ? { cert: t.cert } : {}),
    ...(t.key !== undefined ? { key: t.key } : {}),
    ...(t.passphrase !== undefined ? { passphrase: t.passphrase } : {}),
    ...(t.servername !== undefined ? { servername: t.servername } : {}),
    ...(t.minVersion !== undefined ? { minVersion: t.minVersion } : {}),
  };
}

/** OpenSSL's verification failures that mean "signed by nobody this client trusts". */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
  'INVALID_CA',
]);

/**
 * A TLS failure as one line naming what to set, or undefined when `err` is not one. `host` is the
 * target's host:port as the base URL names it.
 */
export function describeTlsFailure(err: unknown, host: string): string | undefined {
  const codes = errorCodes(err);
  const has = (c: string): boolean => codes.includes(c);
  const what = innermostMessage(err);
  const untrusted = codes.find((c) => UNTRUSTED.has(c));
  if (untrusted) return `the certificate of ${host} is not trusted (${what}): set tls.ca in the profile to the CA that signed it`;
  if (has('ERR_TLS_CERT_ALTNAME_INVALID')) {
    const names = altNames(err);
    return `the certificate of ${host} is not valid for that name (${names ? `it names ${names}` : what}): set tls.servername in the profile to a name it carries`;
  }
  if (has('CERT_HAS_EXPIRED')) return `the certificate of ${host} has expired (${what}): the target must renew it (pouchproof never skips verification)`;
  if (has('CERT_NOT_YET_VALID')) return `the certificate of ${host} is not valid yet (${what}): check the clock of this machine and the target's certificate`;
  if (has('CERT_REVOKED')) return `the certificate of ${host} is revoked`;
  if (has('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED')) return `${host} requires a client certificate: set tls.cert and tls.key in the profile`;
  if (codes.some((c) => /ALERT_(BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN|UNSUPPORTED_CERTIFICATE|CERTIFICATE_EXPIRED|CERTIFICATE_REVOKED|ACCESS_DENIED)$/.test(c))) {
    return `${host} refused the client certificate (${what}): check tls.cert and tls.key in the profile`;
  }
  if (codes.some((c) => /ALERT_HANDSHAKE_FAILURE$/.test(c))) {
    return `the TLS handshake with ${host} failed (${what}): it may require a client certificate (tls.cert, tls.key) or a version or cipher not offered`;
  }
  if (codes.some((c) => /ALERT_PROTOCOL_VERSION$|UNSUPPORTED_PROTOCOL$|NO_PROTOCOLS_AVAILABLE$/.test(c))) {
    return `${host} and this client share no TLS version (${what}): check tls.minVersion in the profile`;
  }
  if (has('ERR_SSL_WRONG_VERSION_NUMBER') || has('ERR_SSL_PACKET_LENGTH_TOO_LONG')) return `${host} does not answer TLS (${what}): is the base URL https where the target speaks plain http?`;
  if (codes.some((c) => c.startsWith('ERR_SSL_') || c.startsWith('ERR_TLS_')) || has('EPROTO')) return `TLS with ${host} failed (${what})`;
  return undefined;
}

function altNames(err: unknown): string | undefined {
  for (const e of causeChain(err)) {
    const cert = 'cert' in e ? e.cert : undefined;
    if (typeof cert === 'object' && cert !== null && 'subjectaltname' in cert && typeof cert.subjectaltname === 'string') return cert.subjectaltname;
  }
  return undefined;
}

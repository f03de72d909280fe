/**
 * base64url without padding (RFC 7515 section 2). Decoding is strict: a signature or header that
 * could be spelled two ways would let an attacker change the header value without changing what
 * it means, so padding, the standard alphabet and non-zero trailing bits are all refused.
 */

export class Base64UrlError extends Error {
  override name = 'Base64UrlError';
}

const ALPHABET = /^[A-Za-z0-9_-]*$/;
const VALUE = new Int8Array(128).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].entries()) VALUE[c.charCodeAt(0)] = i;

/** Encodes bytes (a string is taken as UTF-8) without padding. */
export function b64u(data: Uint8Array | string): string {
  if (typeof data === 'string') return Buffer.from(data, 'utf8').toString('base64url');
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64url');
}

/**
 * Decodes unpadded base64url. Throws `Base64UrlError` on a character outside the alphabet
 * (including `=`, `+`, `/` and whitespace), on an impossible length, and on a last character whose
 * unused low bits are not zero (a second spelling of the same bytes).
 */
export function fromB64u(s: string): Uint8Array {
  if (!ALPHABET.test(s)) throw new Base64UrlError('not base64url: character outside A-Z a-z 0-9 - _ (no padding)');
  const rem = s.length % 4;
  if (rem === 1) throw new Base64UrlError('not base64url: impossible length');
  if (rem !== 0) {
    const last = VALUE[s.charCodeAt(s.length - 1)];
    const unusedBits = rem === 2 ? 0b1111 : 0b11;
    if ((last & unusedBits) !== 0) throw new Base64UrlError('not base64url: non-canonical final character');
  }
  const buf = Buffer.from(s, 'base64url');
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

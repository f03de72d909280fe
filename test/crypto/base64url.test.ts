import { describe, expect, it } from 'vitest';
import { Base64UrlError, b64u, fromB64u } from '../../src/crypto/base64url.ts';

describe('base64url', () => {
  it('encodes without padding, strings as UTF-8', () => {
    expect(b64u(new Uint8Array([0xfb, 0xff]))).toBe('-_8');
    expect(b64u('é')).toBe('w6k');
    expect(b64u(new Uint8Array(0))).toBe('');
  });
  it('round-trips every length up to 70', () => {
    for (let n = 0; n <= 70; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff);
      expect(Array.from(fromB64u(b64u(bytes)))).toEqual(Array.from(bytes));
    }
  });
  it.each([
    ['padding', 'AA=='],
    ['standard alphabet +', 'a+b'],
    ['standard alphabet /', 'a/bc'],
    ['whitespace', 'AA AA'],
    ['impossible length', 'AAAAA'],
    ['non-canonical final character (2 chars)', 'AB'],
    ['non-canonical final character (3 chars)', 'AAB'],
  ])('refuses %s', (_name, text) => {
    expect(() => fromB64u(text)).toThrow(Base64UrlError);
  });
});

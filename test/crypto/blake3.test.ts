import { blake3 as nobleBlake3 } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import { blake3 } from '../../src/crypto/blake3.ts';
import { vectorJson } from './vectors.ts';

interface Blake3Vectors {
  cases: { input_len: number; hash: string }[];
}
const { cases } = vectorJson<Blake3Vectors>('blake3/test_vectors.json');

function input(len: number): Uint8Array {
  return Uint8Array.from({ length: len }, (_, i) => i % 251);
}

describe('BLAKE3 (official test_vectors.json)', () => {
  it('has 35 cases', () => expect(cases).toHaveLength(35));
  it.each(cases.map((c) => [c.input_len, c.hash.slice(0, 64)] as const))('input_len %i', (len, hex) => {
    expect(Buffer.from(blake3(input(len))).toString('hex')).toBe(hex);
  });
});

describe('blake3()', () => {
  it('hashes a string as its UTF-8 bytes', () => {
    const s = 'pouch ✓ 😂';
    expect(Buffer.from(blake3(s)).equals(Buffer.from(blake3(Buffer.from(s, 'utf8'))))).toBe(true);
  });
  it('is stateless between calls and agrees with @noble/hashes', () => {
    const a = blake3('abc');
    blake3(input(5000));
    expect(Buffer.from(blake3('abc')).equals(Buffer.from(a))).toBe(true);
    expect(Buffer.from(a).equals(Buffer.from(nobleBlake3(new TextEncoder().encode('abc'))))).toBe(true);
    expect(a).toHaveLength(32);
  });
});

/**
 * String arbitraries of an exact length. Lengths are chosen by the caller (edge-biased) because
 * fast-check never aims at a maxLength by itself; here we only fill a given length quickly.
 *
 * Short alphabet strings pack several characters into one 30-bit integer (shrinking to 'AAAA…');
 * longer ones expand a single drawn seed, and beyond a chunk repeat it, so a 1 KiB envelope is one
 * draw and a 699051-character envelope costs one 8 KiB chunk.
 */
import fc from 'fast-check';

const CHUNK = 8192;
const BITS = 30;
/**
 * Longer strings do not shrink their content: the shrinker would spend thousands of steps (each a
 * request, on a live target) on characters nobody reads; lengths and structure still shrink.
 */
const SHRINK_UP_TO = 64;

/** Characters per 30-bit draw for an alphabet of `size` characters. */
function perDraw(size: number): number {
  return Math.max(1, Math.floor(BITS / Math.log2(size)));
}

function decode(chars: string, draws: readonly number[], length: number): string {
  const per = perDraw(chars.length);
  const out: string[] = [];
  for (const d of draws) {
    let x = d;
    for (let j = 0; j < per && out.length < length; j++) {
      out.push(chars[x % chars.length]);
      x = Math.floor(x / chars.length);
    }
  }
  return out.join('');
}

/**
 * xorshift32: expands one drawn seed into a long string without a draw per character. Built as
 * bytes, not by `+=`: thousands of kept rope strings cost more in GC than generating them.
 */
function expand(chars: string, length: number, seed: number): string {
  let x = seed >>> 0 || 0x9e3779b9;
  const n = Math.min(length, CHUNK);
  const bytes = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    bytes[i] = chars.charCodeAt(x % chars.length);
  }
  const out = bytes.toString('latin1');
  return length <= CHUNK ? out : out.repeat(Math.ceil(length / CHUNK)).slice(0, length);
}

/** A string of exactly `length` characters drawn from `chars` (an alphabet of Latin-1 characters). */
export function alphabetString(chars: string, length: number): fc.Arbitrary<string> {
  if (/[^\x00-\xff]/.test(chars)) throw new Error('alphabetString: the alphabet must be Latin-1');
  if (length === 0) return fc.constant('');
  if (length > SHRINK_UP_TO) return fc.noShrink(fc.integer({ min: 0, max: 0x7fffffff }).map((seed) => expand(chars, length, seed)));
  const draws = Math.ceil(length / perDraw(chars.length));
  return fc
    .array(fc.integer({ min: 0, max: 2 ** BITS - 1 }), { minLength: draws, maxLength: draws })
    .map((ds) => decode(chars, ds, length));
}

const fromCode = (c: number): string => String.fromCodePoint(c);

/**
 * One BMP code point, never a lone surrogate (those do not survive UTF-8). Biased to the
 * characters JSON encoders get wrong: controls, quote, backslash, U+2028/9, BOM, U+FFFF.
 */
export const bmpChar: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.constantFrom(0x00, 0x09, 0x0a, 0x0d, 0x1f, 0x22, 0x2f, 0x5c, 0x7f, 0xe9, 0x2028, 0x2029, 0xfeff, 0xfffe, 0xffff) },
    { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xd7ff }) },
    { weight: 1, arbitrary: fc.integer({ min: 0xe000, max: 0xffff }) },
  )
  .map(fromCode);

/** One code point outside the BMP: two UTF-16 units, four UTF-8 bytes, one "character". */
export const astralChar: fc.Arbitrary<string> = fc
  .oneof(fc.constantFrom(0x10000, 0x1f600, 0x10ffff), fc.integer({ min: 0x10000, max: 0x10ffff }))
  .map(fromCode);

export const asciiChar: fc.Arbitrary<string> = fc.integer({ min: 0x20, max: 0x7e }).map(fromCode);

export type PlainRepertoire = 'ascii' | 'bmp' | 'astral';

function charOf(rep: PlainRepertoire): fc.Arbitrary<string> {
  if (rep === 'ascii') return asciiChar;
  if (rep === 'bmp') return bmpChar;
  return fc.oneof({ weight: 2, arbitrary: bmpChar }, { weight: 1, arbitrary: astralChar });
}

const PRINTABLE_ASCII = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('');

/** A free-text string of exactly `length` code points. */
export function plainString(length: number, rep: PlainRepertoire = 'bmp'): fc.Arbitrary<string> {
  if (length === 0) return fc.constant('');
  if (length > CHUNK) {
    // Long free text only appears in "max everywhere" bodies: printable ASCII is enough there.
    return alphabetString(PRINTABLE_ASCII, length);
  }
  const arb = fc.array(charOf(rep), { minLength: length, maxLength: length }).map((cs) => cs.join(''));
  return length > SHRINK_UP_TO ? fc.noShrink(arb) : arb;
}

/** `codePointLength` counts what iterating a string yields: a well-formed pair is one, a lone surrogate one. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength } from '../../src/spec/index.ts';

const iterated = (s: string): number => [...s].length;

// Units chosen so that pairs, lone high and low surrogates, and pairs the wrong way round all occur.
const UNITS = ['a', 'é', '\uD83D', '\uDE00', '\uDBFF', '\uDC00', '\uD800', '\uDFFF'];

describe('codePointLength', () => {
  it('equals the number of code points the string iterates to, surrogates paired or not', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...UNITS), { maxLength: 12 }), (units) => {
        const s = units.join('');
        expect(codePointLength(s)).toBe(iterated(s));
      }),
      { numRuns: 2000 },
    );
  });

  it('counts the cases the fast path and the pair count meet', () => {
    expect(codePointLength('A'.repeat(1000))).toBe(1000);
    expect(codePointLength('😀😀')).toBe(2);
    expect(codePointLength('\uD83D\uD83D\uDE00')).toBe(2);
    expect(codePointLength('\uDE00\uD83D')).toBe(2);
    expect(codePointLength('')).toBe(0);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CanonicalizationError, canonicalize, sortedCompact } from '../../src/crypto/canonical.ts';
import { vectorBytes, vectorText } from './vectors.ts';

const PAIRS = ['arrays', 'french', 'structures', 'unicode', 'values', 'weird'];

describe('RFC 8785 test data (cyberphone/json-canonicalization)', () => {
  it.each(PAIRS)('%s.json canonicalises to output/ and outhex/ bytes', (name) => {
    const out = Buffer.from(canonicalize(JSON.parse(vectorText(`jcs/input/${name}.json`))), 'utf8');
    expect(out.equals(vectorBytes(`jcs/output/${name}.json`))).toBe(true);
    const hex = vectorText(`jcs/outhex/${name}.txt`).trim().split(/\s+/).join('');
    expect(out.toString('hex')).toBe(hex);
  });
});

describe('ES6 number serialisation (es6_number_samples.csv)', () => {
  const rows = vectorText('jcs/numbers/es6_number_samples.csv')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [hex, expected, comment] = line.split(',');
      return { hex: hex!, expected: expected!, comment: comment ?? '' };
    });
  it('has the 33 rows, 2 of them errors', () => {
    expect(rows).toHaveLength(33);
    expect(rows.filter((r) => r.expected === 'ERROR')).toHaveLength(2);
  });
  it.each(rows)('$hex → $expected ($comment)', ({ hex, expected }) => {
    const n = Buffer.from(hex.padStart(16, '0'), 'hex').readDoubleBE(0);
    if (expected === 'ERROR') expect(() => canonicalize(n)).toThrow(CanonicalizationError);
    else {
      expect(canonicalize(n)).toBe(expected);
      expect(canonicalize([n])).toBe(`[${expected}]`);
    }
  });
});

describe('canonicalize', () => {
  it('sorts by UTF-16 code units, not code points', () => {
    // U+FF61 sorts after U+1F600 (surrogates D83D…) in UTF-16 order but before it in code point order.
    expect(canonicalize({ '\uff61': 1, '\u{1f600}': 2, a: 3 })).toBe('{"a":3,"\u{1f600}":2,"\uff61":1}');
  });
  it('escapes like JSON.stringify and keeps other characters literal', () => {
    expect(canonicalize('\u0000\u001f"\\/\u007f\u2028é')).toBe('"\\u0000\\u001f\\"\\\\/\u007f\u2028é"');
  });
  it('writes -0 as 0 and integers without exponent up to 1e21', () => {
    expect(canonicalize({ a: -0, b: 1e20, c: 1e21, d: 0.000001, e: 1e-7 })).toBe('{"a":0,"b":100000000000000000000,"c":1e+21,"d":0.000001,"e":1e-7}');
  });
  it('keeps a member named __proto__ as data', () => {
    const v = JSON.parse('{"b":1,"__proto__":{"x":1}}') as unknown;
    expect(canonicalize(v)).toBe('{"__proto__":{"x":1},"b":1}');
  });
  it('does not change its input and gives the same text for already sorted input', () => {
    const v = { b: [{ d: 1, c: 2 }], a: null };
    const before = JSON.stringify(v);
    expect(canonicalize(v)).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
    expect(JSON.stringify(v)).toBe(before);
    expect(canonicalize(JSON.parse(canonicalize(v)))).toBe(canonicalize(v));
  });
  it.each<[string, unknown, string]>([
    ['NaN', { a: [1, NaN] }, '$.a[1]'],
    ['Infinity', -Infinity, '$'],
    ['undefined member', { a: undefined }, '$.a'],
    ['undefined item', [undefined], '$[0]'],
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case under test
    ['array hole', [1, , 2], '$[1]'],
    ['bigint', { n: 1n }, '$.n'],
    ['function', { f: () => 1 }, '$.f'],
    ['symbol', { s: Symbol('x') }, '$.s'],
    ['Date', { d: new Date(0) }, '$.d'],
    ['Map', new Map(), '$'],
    ['class instance', { 'odd key': new (class Thing {})() }, '$["odd key"]'],
    ['lone high surrogate', { s: 'a\ud800b' }, '$.s'],
    ['lone low surrogate in a name', { ['\udc00']: 1 }, '$["\\udc00"]'],
  ])('refuses %s with a path', (_name, value, path) => {
    let err: unknown;
    try {
      canonicalize(value);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CanonicalizationError);
    expect((err as CanonicalizationError).path).toBe(path);
  });
  it('orders array-index member names as strings, as JCS does', () => {
    expect(canonicalize({ b: 1, 9: 2, 10: 3, '': 4 })).toBe('{"":4,"10":3,"9":2,"b":1}');
    expect(canonicalize({ 10: { z: 1, y: 2 }, 9: 0 })).toBe('{"10":{"y":2,"z":1},"9":0}');
  });
  it('agrees with a naive recursive implementation on arbitrary JSON', () => {
    const naive = (v: unknown): string => {
      if (Array.isArray(v)) return `[${v.map(naive).join(',')}]`;
      if (v !== null && typeof v === 'object') {
        const rec = v as Record<string, unknown>;
        return `{${Object.keys(rec).sort().map((k) => `${JSON.stringify(k)}:${naive(rec[k])}`).join(',')}}`;
      }
      return JSON.stringify(v);
    };
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalize(v)).toBe(naive(v));
        expect(canonicalize(JSON.parse(canonicalize(v)))).toBe(canonicalize(v));
      }),
      { numRuns: 300, seed: 8785 },
    );
  });
  it('handles many distinct member names and null-prototype objects', () => {
    const wide = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${(i * 7919) % 300}`, i]));
    const expected = `{${Object.keys(wide).sort().map((k) => `"${k}":${wide[k]}`).join(',')}}`;
    expect(canonicalize([wide, { k1: { k0: 1 } }])).toBe(`[${expected},{"k1":{"k0":1}}]`);
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { b: 1, a: 2 });
    expect(canonicalize({ z: bare })).toBe('{"z":{"a":2,"b":1}}');
  });
  it('accepts text that merely looks like an escaped surrogate', () => {
    expect(canonicalize('\\ud800')).toBe('"\\\\ud800"');
  });
  it('refuses cycles without overflowing', () => {
    const a: Record<string, unknown> = {};
    a['self'] = a;
    expect(() => canonicalize(a)).toThrow(CanonicalizationError);
  });
});

describe('sortedCompact', () => {
  it('equals JCS for ordinary JSON data', () => {
    const v = JSON.parse(vectorText('jcs/input/structures.json')) as unknown;
    expect(sortedCompact(v)).toBe(canonicalize(v));
    expect(sortedCompact({ z: 1, a: { y: [3, { c: 1, b: 2 }] } })).toBe('{"a":{"y":[3,{"b":2,"c":1}]},"z":1}');
  });
});

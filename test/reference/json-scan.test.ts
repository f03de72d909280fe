import { describe, expect, it } from 'vitest';
import { lexemeIsInteger, lossyNumbers, scanJson } from '../../src/reference/json-scan.ts';

describe('scanJson', () => {
  it('finds duplicate member names, also when spelled with escapes, at any depth', () => {
    expect(scanJson('{"a":1,"a":2}', 64)).toEqual({ kind: 'duplicate', key: 'a' });
    expect(scanJson('{"a":1,"\\u0061":2}', 64)).toEqual({ kind: 'duplicate', key: 'a' });
    expect(scanJson('{"x":[{"k":1},{"k":2,"z":{"q":1,"q":2}}]}', 64)).toEqual({ kind: 'duplicate', key: 'q' });
  });
  it('does not confuse values, escaped quotes or sibling objects with duplicate names', () => {
    expect(scanJson('{"a":"a","b":"a"}', 64)).toBeUndefined();
    expect(scanJson('{"a":"x\\"a\\":1","b":[{"a":1},{"a":2}]}', 64)).toBeUndefined();
    expect(scanJson('{"a\\\\":1,"a":2}', 64)).toBeUndefined();
    expect(scanJson('["a","a"]', 64)).toBeUndefined();
  });
  it('bounds nesting depth without recursion', () => {
    expect(scanJson('['.repeat(64) + ']'.repeat(64), 64)).toBeUndefined();
    expect(scanJson('['.repeat(65) + ']'.repeat(65), 64)).toEqual({ kind: 'depth', limit: 64 });
    expect(scanJson('{"a":'.repeat(1_000_000), 64)).toEqual({ kind: 'depth', limit: 64 });
    expect(scanJson('['.repeat(1_000_000), undefined)).toBeUndefined();
  });
  it('stops safely on invalid text', () => {
    for (const s of ['{"a', '{"a":"', '"\\', '}}}]]]', '{"a":1,', '\u0000', '{"\\u12":1}']) expect(() => scanJson(s, 64)).not.toThrow();
  });
  it('stays linear on hostile inputs (many backslashes, many keys)', () => {
    const many = '{' + Array.from({ length: 100_000 }, (_, i) => `"k${i}":"${'\\\\'.repeat(3)}"`).join(',') + '}';
    expect(scanJson(many, 64)).toBeUndefined();
    expect(scanJson('["' + '\\\\'.repeat(500_000) + '"]', 64)).toBeUndefined();
  });
});

describe('lossyNumbers: numbers that name no integer while their double is one', () => {
  const lexemes = (s: string) => lossyNumbers(s).map((n) => n.lexeme);

  it('finds a fraction past a double\'s precision, a tiny exponent and a long fraction, and only those', () => {
    expect(lexemes('{"a":9007199254740991.4,"b":1e-400,"c":1.0000000000000000001,"d":-4503599627370497.5}')).toEqual(['9007199254740991.4', '1e-400', '1.0000000000000000001', '-4503599627370497.5']);
    // Integers however written, and fractions a double keeps: none is lossy.
    expect(lexemes('{"a":1.0,"b":10e-1,"c":123e2,"d":1.5,"e":0.1,"f":-0.0,"g":9007199254740991,"h":1e400}')).toEqual([]);
  });

  it('reads numbers only outside strings, escapes included', () => {
    expect(lexemes('{"a":"9007199254740991.4","b\\"":"x\\" 1e-400","c":[2.00000000000000000001]}')).toEqual(['2.00000000000000000001']);
  });

  it('tells exact integers from the digits, not from a double', () => {
    expect(lexemeIsInteger('9007199254740991', '4', '0')).toBe(false);
    expect(lexemeIsInteger('1', '50', '2')).toBe(true);
    expect(lexemeIsInteger('1', '505', '2')).toBe(false);
    expect(lexemeIsInteger('0', '000', '0')).toBe(true);
  });
});

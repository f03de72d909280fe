import { describe, expect, it } from 'vitest';
import { scanJson } from '../../src/reference/json-scan.ts';

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

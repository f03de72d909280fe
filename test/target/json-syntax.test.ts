/**
 * findJsonSyntaxError against the JavaScript engine's own parser: the same texts are valid, and an
 * error's line and column point at its offset. Texts are JSON values, JSON with a few characters of
 * the grammar inserted or removed (where the errors are), and arbitrary strings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from '../../src/target/json-syntax.ts';

const GRAMMAR = [...'{}[],:"\\ \n\t0123456789-+.eEtrufalsn'];

/** A JSON text with up to 3 characters removed at one place and up to 3 grammar characters put there instead. */
const mutatedJson = fc
  .tuple(fc.json(), fc.nat(), fc.nat({ max: 3 }), fc.string({ maxLength: 3, unit: fc.constantFrom(...GRAMMAR, '\u0001', 'é') }))
  .map(([text, at, drop, insert]) => {
    const k = at % (text.length + 1);
    return text.slice(0, k) + insert + text.slice(k + drop);
  });

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('findJsonSyntaxError', () => {
  it('finds an error exactly when JSON.parse refuses the text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), mutatedJson, fc.string()), (text) => {
        expect(findJsonSyntaxError(text) === undefined).toBe(parses(text));
      }),
      { numRuns: 3000 },
    );
  });

  it("gives the error's line and column of its offset", () => {
    fc.assert(
      fc.property(mutatedJson.filter((t) => !parses(t)), (text) => {
        const e = findJsonSyntaxError(text);
        expect(e).toBeDefined();
        const { offset, line, column } = e!;
        expect(offset).toBeGreaterThanOrEqual(0);
        expect(offset).toBeLessThanOrEqual(text.length);
        const lines = text.slice(0, offset).split('\n');
        expect([line, column]).toEqual([lines.length, lines.at(-1)!.length + 1]);
      }),
      { numRuns: 1000 },
    );
  });

  it('names what it found and what it expected, and stops past 512 levels', () => {
    expect(findJsonSyntaxError('{"a": tru}')).toEqual({ offset: 9, line: 1, column: 10, problem: `unexpected '}', expected "true"` });
    expect(findJsonSyntaxError('[1,]')?.problem).toBe("unexpected ']', expected a JSON value");
    expect(findJsonSyntaxError('"\\x"')?.problem).toBe("unexpected 'x', expected an escape character");
    expect(findJsonSyntaxError('{"a":1')?.problem).toBe("unexpected end of input, expected ',' or '}'");
    expect(findJsonSyntaxError('\u00a0')?.problem).toBe('unexpected U+00A0, expected a JSON value');
    // The outermost value is level 0: 513 arrays in one another are levels 0 to 512.
    expect(findJsonSyntaxError(`${'['.repeat(514)}${']'.repeat(514)}`)?.problem).toBe('nesting deeper than 512 levels');
    expect(findJsonSyntaxError(`${'['.repeat(513)}${']'.repeat(513)}`)).toBeUndefined();
  });
});

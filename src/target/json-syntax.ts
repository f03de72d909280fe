/**
 * Locates the first JSON syntax error in a text. V8's own messages quote a slice of the input,
 * and a profile's input may hold a secret, so the message shown to the user is built here from a
 * position alone.
 */

export interface JsonSyntaxError {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
  /** What was found, never the surrounding text. */
  readonly problem: string;
}

class Stop {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {}
}

/** Undefined when `text` is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const fail = (expected: string): never => {
    if (i >= text.length) throw new Stop(i, `unexpected end of input, expected ${expected}`);
    const c = text.codePointAt(i)!;
    const shown = c >= 0x21 && c < 0x7f ? `'${String.fromCodePoint(c)}'` : `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
    throw new Stop(i, `unexpected ${shown}, expected ${expected}`);
  };
  const literal = (word: string): void => {
    for (const ch of word) {
      if (text[i] !== ch) fail(`"${word}"`);
      i++;
    }
  };
  const string = (): void => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail('a closing quote');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) fail('a string character (control characters must be escaped)');
      if (c === 0x5c) {
        i++;
        const e = text[i];
        if (e === 'u') {
          for (let k = 1; k <= 4; k++) {
            i++;
            if (!/[0-9a-fA-F]/.test(text[i] ?? '')) fail('a hexadecimal digit');
          }
        } else if (e === undefined || !'"\\/bfnrt'.includes(e)) fail('an escape character');
      }
      i++;
    }
  };
  const digits = (): void => {
    if (!/[0-9]/.test(text[i] ?? '')) fail('a digit');
    while (/[0-9]/.test(text[i] ?? '')) i++;
  };
  const number = (): void => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      digits();
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits();
    }
  };
  const value = (depth: number): void => {
    if (depth > 512) throw new Stop(i, 'nesting deeper than 512 levels');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('a double-quoted property name');
        string();
        ws();
        if (text[i] !== ':') fail("':'");
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail("',' or '}'");
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail("',' or ']'");
      }
    } else if (c === '"') string();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) number();
    else fail('a JSON value');
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail('end of input');
    return undefined;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    const before = text.slice(0, e.offset);
    const line = before.split('\n').length;
    const column = e.offset - (before.lastIndexOf('\n') + 1) + 1;
    return { offset: e.offset, line, column, problem: e.problem };
  }
}

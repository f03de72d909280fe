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

/**
 * A recursive-descent reader of RFC 8259 that only moves a cursor: it builds no value, and stops at the
 * first byte that cannot continue the grammar.
 */
class Scanner {
  i = 0;
  constructor(private readonly text: string) {}

  ws(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i])) this.i++;
  }

  /** The character at the cursor as a message may show it: printable ASCII quoted, anything else as a code point (never the text around it). */
  fail(expected: string): never {
    const { text, i } = this;
    if (i >= text.length) throw new Stop(i, `unexpected end of input, expected ${expected}`);
    // i is within text (checked on the line above)
    const c = text.codePointAt(i)!;
    const shown = c >= 0x21 && c < 0x7f ? `'${String.fromCodePoint(c)}'` : `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
    throw new Stop(i, `unexpected ${shown}, expected ${expected}`);
  }

  /** Steps over `ch` when it is at the cursor. */
  eat(ch: string): boolean {
    if (this.text[this.i] !== ch) return false;
    this.i++;
    return true;
  }

  literal(word: string): void {
    for (const ch of word) if (!this.eat(ch)) this.fail(`"${word}"`);
  }

  string(): void {
    this.i++; // opening quote
    for (;;) {
      if (this.i >= this.text.length) this.fail('a closing quote');
      const c = this.text.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return;
      }
      if (c < 0x20) this.fail('a string character (control characters must be escaped)');
      if (c === 0x5c) this.escape();
      this.i++;
    }
  }

  /** From the backslash to the escape's last character. */
  escape(): void {
    this.i++;
    const e = this.text[this.i];
    if (e === 'u') {
      for (let k = 1; k <= 4; k++) {
        this.i++;
        if (!/[0-9a-fA-F]/.test(this.text[this.i] ?? '')) this.fail('a hexadecimal digit');
      }
    } else if (e === undefined || !'"\\/bfnrt'.includes(e)) this.fail('an escape character');
  }

  digits(): void {
    if (!/[0-9]/.test(this.text[this.i] ?? '')) this.fail('a digit');
    while (/[0-9]/.test(this.text[this.i] ?? '')) this.i++;
  }

  number(): void {
    this.eat('-');
    if (!this.eat('0')) this.digits();
    if (this.eat('.')) this.digits();
    if (this.eat('e') || this.eat('E')) {
      if (!this.eat('+')) this.eat('-');
      this.digits();
    }
  }

  /** From the '{' to the '}'. */
  object(depth: number): void {
    this.i++;
    this.ws();
    if (this.eat('}')) return;
    for (;;) {
      this.ws();
      if (this.text[this.i] !== '"') this.fail('a double-quoted property name');
      this.string();
      this.ws();
      if (!this.eat(':')) this.fail("':'");
      this.value(depth + 1);
      this.ws();
      if (this.eat(',')) continue;
      if (this.eat('}')) return;
      this.fail("',' or '}'");
    }
  }

  /** From the '[' to the ']'. */
  array(depth: number): void {
    this.i++;
    this.ws();
    if (this.eat(']')) return;
    for (;;) {
      this.value(depth + 1);
      this.ws();
      if (this.eat(',')) continue;
      if (this.eat(']')) return;
      this.fail("',' or ']'");
    }
  }

  value(depth: number): void {
    if (depth > 512) throw new Stop(this.i, 'nesting deeper than 512 levels');
    this.ws();
    const c = this.text[this.i];
    if (c === '{') this.object(depth);
    else if (c === '[') this.array(depth);
    else if (c === '"') this.string();
    else if (c === 't') this.literal('true');
    else if (c === 'f') this.literal('false');
    else if (c === 'n') this.literal('null');
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) this.number();
    else this.fail('a JSON value');
  }
}

/** Undefined when `text` is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const scan = new Scanner(text);
  try {
    scan.value(0);
    scan.ws();
    if (scan.i < text.length) scan.fail('end of input');
    return undefined;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    const before = text.slice(0, e.offset);
    const line = before.split('\n').length;
    const column = e.offset - (before.lastIndexOf('\n') + 1) + 1;
    return { offset: e.offset, line, column, problem: e.problem };
  }
}

/**
 * A strict RFC 8259 parser written for this server: JSON.parse cannot refuse duplicate members and
 * loses the digits of a number, and both matter here (an integer field must refuse `9007199254740991.4`,
 * a duplicated `rows` must not silently win). Numbers keep their lexeme (`Num`); objects have no
 * prototype, so `__proto__` in a free-form object is an ordinary member. The parser is iterative: a
 * deep body costs memory, never the stack.
 *
 * The `bug` hooks switch on one realistic parser mistake each (see bugs.ts).
 */
import type { BugCheck } from './bugs.ts';

export class Num {
  constructor(readonly text: string) {}
}
export type Json = null | boolean | string | Num | Json[] | JsonObject;
export interface JsonObject {
  [member: string]: Json;
}

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
}

const WS = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LAX_NUMBER = /[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const PLAIN_RUN = /[^"\\\x00-\x1f]*/y;
const LAX_RUN = /[^"\\]*/y;
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** An open container on the parser's own stack. */
type Frame = { kind: 'array'; value: Json[] } | { kind: 'object'; value: JsonObject; key: string | undefined; rawKeys: Set<string>; firstKey?: string };

class Parser {
  private i = 0;
  constructor(
    private readonly s: string,
    private readonly bug: BugCheck,
  ) {}

  fail(what: string): never {
    throw new JsonSyntaxError(`${what} at offset ${this.i}`);
  }

  ws(): void {
    if (this.bug('Intro-6')) return this.wsWithComments();
    WS.lastIndex = this.i;
    WS.exec(this.s);
    this.i = WS.lastIndex;
  }

  private wsWithComments(): void {
    for (;;) {
      WS.lastIndex = this.i;
      WS.exec(this.s);
      this.i = WS.lastIndex;
      if (this.s.startsWith('//', this.i)) this.i = this.s.indexOf('\n', this.i) < 0 ? this.s.length : this.s.indexOf('\n', this.i);
      else if (this.s.startsWith('/*', this.i)) this.i = this.s.indexOf('*/', this.i) < 0 ? this.s.length : this.s.indexOf('*/', this.i) + 2;
      else return;
    }
  }

  string(): string {
    const quote = this.s[this.i]!;
    this.i++;
    let out = '';
    const run = this.bug('Intro-8') ? LAX_RUN : PLAIN_RUN;
    for (;;) {
      run.lastIndex = this.i;
      run.exec(this.s);
      const end = quote === "'" ? Math.min(run.lastIndex, this.endOfSingle()) : run.lastIndex;
      out += this.s.slice(this.i, end);
      this.i = end;
      const c = this.s[this.i];
      if (c === quote) {
        this.i++;
        // Intro-15: the text goes through a strict UTF-8 encoder that throws on a lone surrogate.
        if (this.bug('Intro-15') && /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(out)) throw new Error('lone surrogate');
        return out;
      }
      if (c === '\\') out += this.escape();
      else if (c === '"') (out += c), this.i++;
      else this.fail(c === undefined ? 'unterminated string' : 'control character in a string');
    }
  }

  private endOfSingle(): number {
    const j = this.s.indexOf("'", this.i);
    return j < 0 ? this.s.length : j;
  }

  private escape(): string {
    const c = this.s[this.i + 1];
    if (c === 'u') {
      const hex = this.s.slice(this.i + 2, this.i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
      this.i += 6;
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    const e = c === undefined ? undefined : ESCAPES[c];
    if (e === undefined) this.fail('bad escape');
    this.i += 2;
    return e;
  }

  number(): Num {
    const re = this.bug('Intro-9') ? LAX_NUMBER : NUMBER;
    re.lastIndex = this.i;
    const m = re.exec(this.s);
    if (!m || m[0] === '' || m[0] === '-') this.fail('bad number');
    this.i += m[0].length;
    // Intro-10: a digit cap whose error nobody catches (CVE-2020-10735's fix).
    if (this.bug('Intro-10') && m[0].length > 4300) throw new Error('Exceeds the limit (4300 digits) for integer string conversion');
    return new Num(m[0]);
  }

  /** A scalar, or the opening of a container (pushed on `stack`). */
  value(stack: Frame[]): Json | undefined {
    const c = this.s[this.i];
    if (this.bug('Intro-5')) {
      for (const word of ['NaN', 'Infinity', '-Infinity']) if (this.s.startsWith(word, this.i)) return (this.i += word.length), new Num(word);
    }
    if (c === '{') return this.i++, stack.push({ kind: 'object', value: Object.create(null) as JsonObject, key: undefined, rawKeys: new Set() }), undefined;
    if (c === '[') return this.i++, stack.push({ kind: 'array', value: [] }), undefined;
    if (c === '"' || (c === "'" && this.bug('Intro-4'))) return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9') || (c === '+' && this.bug('Intro-9'))) return this.number();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.s.startsWith(word, this.i)) return (this.i += word.length), v;
    }
    return this.fail(c === undefined ? 'unexpected end' : 'unexpected character');
  }

  /** Stores `v` into the open container (under the member name read before it). */
  put(frame: Frame, v: Json): void {
    if (frame.kind === 'array') return void frame.value.push(v);
    const key = frame.key!;
    frame.key = undefined;
    frame.value[key] = v;
  }

  key(frame: Frame & { kind: 'object' }): void {
    const start = this.i;
    const key = this.string();
    const raw = this.s.slice(start, this.i);
    const dup = this.bug('Intro-18') ? frame.rawKeys.has(raw) : this.bug('Intro-17') ? frame.firstKey === key : Object.hasOwn(frame.value, key);
    if (dup && !this.bug('Intro-16')) this.fail(`duplicate member ${JSON.stringify(key)}`);
    frame.rawKeys.add(raw);
    frame.firstKey ??= key;
    frame.key = key;
  }

  text(): string {
    return this.s;
  }
  at(): number {
    return this.i;
  }
  skip(n: number): void {
    this.i += n;
  }
}

/** After a value inside `frame`: `,` or the closer. Returns true when the container closed. */
function afterValue(p: Parser, frame: Frame, bug: BugCheck): boolean {
  p.ws();
  const c = p.text()[p.at()];
  const closer = frame.kind === 'array' ? ']' : '}';
  if (c === closer) return p.skip(1), true;
  if (c !== ',') p.fail(`expected , or ${closer}`);
  p.skip(1);
  p.ws();
  if (bug('Intro-3') && p.text()[p.at()] === closer) return p.skip(1), true;
  return false;
}

/** Reads a member name and its colon when the frame is an object. */
function beforeValue(p: Parser, frame: Frame | undefined, bug: BugCheck): void {
  p.ws();
  if (frame?.kind !== 'object') return;
  const c = p.text()[p.at()];
  if (c !== '"' && !(c === "'" && bug('Intro-4'))) p.fail('expected a member name');
  p.key(frame);
  p.ws();
  if (p.text()[p.at()] !== ':') p.fail('expected :');
  p.skip(1);
  p.ws();
}

/** True when the container just opened is empty and closes at once. */
function closesEmpty(p: Parser, frame: Frame): boolean {
  p.ws();
  if (p.text()[p.at()] === (frame.kind === 'array' ? ']' : '}')) return p.skip(1), true;
  return false;
}

export function parseJson(text: string, bug: BugCheck): Json {
  const p = new Parser(text, bug);
  const stack: Frame[] = [];
  let result: Json | undefined;
  let done = false;
  p.ws();
  let v = p.value(stack);
  while (!done) {
    if (v === undefined) {
      const top = stack.at(-1)!;
      if (!closesEmpty(p, top)) {
        beforeValue(p, top, bug);
        v = p.value(stack);
        continue;
      }
      v = stack.pop()!.value;
    }
    // A finished value: store it and close every container it completes.
    for (;;) {
      const top = stack.at(-1);
      if (!top) {
        result = v;
        done = true;
        break;
      }
      p.put(top, v);
      if (!afterValue(p, top, bug)) {
        beforeValue(p, top, bug);
        v = p.value(stack);
        break;
      }
      v = stack.pop()!.value;
    }
  }
  p.ws();
  if (p.at() !== text.length && !bug('Intro-7')) p.fail('trailing characters after the value');
  return result!;
}

// ---------------------------------------------------------------------------------------------
// RFC 8785 (JCS): the canonical form the Service-Signature digest covers.
// ---------------------------------------------------------------------------------------------

class Raw {
  constructor(readonly text: string) {}
}

/** The ES6 form of a number lexeme; JCS has no form for a number that is not finite. */
function canonicalNumber(n: Num): string {
  const d = Number(n.text);
  if (!Number.isFinite(d)) throw new JsonSyntaxError('a number without a canonical form');
  return JSON.stringify(d);
}

/** Iterative like the parser: whatever depth parsed can be canonicalised. */
export function canonicalJson(value: Json): string {
  const out: string[] = [];
  const work: (Json | Raw)[] = [value];
  while (work.length > 0) {
    const x = work.pop()!;
    if (x instanceof Raw) out.push(x.text);
    else if (x instanceof Num) out.push(canonicalNumber(x));
    else if (x === null || typeof x !== 'object') out.push(JSON.stringify(x));
    else if (Array.isArray(x)) {
      work.push(new Raw(']'));
      for (let k = x.length - 1; k >= 0; k--) work.push(x[k]!, new Raw(k > 0 ? ',' : ''));
      work.push(new Raw('['));
    } else {
      // JCS sorts member names by UTF-16 code units, which is what the default sort compares.
      const keys = Object.keys(x).sort();
      work.push(new Raw('}'));
      for (let k = keys.length - 1; k >= 0; k--) work.push(x[keys[k]!]!, new Raw(`${k > 0 ? ',' : ''}${JSON.stringify(keys[k])}:`));
      work.push(new Raw('{'));
    }
  }
  return out.join('');
}

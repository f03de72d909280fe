/**
 * What lenient JSON parsers accept that RFC 8259 does not, as the parser faults of the reference
 * (JSONTestSuite's `n_` files, Seriot's "Parsing JSON is a Minefield"). Each function is the one
 * shortcut a real parser takes: comments skipped (JSON5, Jackson ALLOW_COMMENTS), the first value
 * decoded and the rest ignored (Go's json.Decoder, Jackson without FAIL_ON_TRAILING_TOKENS), raw
 * control characters inside strings (Python strict=False), leading zeros and a plus sign on
 * numbers, a digit cap on
 * integers that raises an unhandled error (Python 3.11's int limit, CVE-2020-10735), a strict
 * UTF-8 encoder on the way to storage that fails on a lone surrogate. The correct reference never
 * runs any of this: body.ts calls it only under the matching fault.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

// Stryker disable all: runs only under the parser faults (docs/mutation.md)

/** Index just past the string opening at `start` (escapes skipped), or the text's end. */
function stringEnd(s: string, start: number): number {
  for (let i = start + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return s.length;
}

/** `text` with `outside` applied to every stretch between strings and `inside` to every string token (quotes included). */
function mapSegments(text: string, outside: (s: string) => string, inside: (s: string) => string = (s) => s): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const q = text.indexOf('"', i);
    if (q < 0) {
      out += outside(text.slice(i));
      break;
    }
    out += outside(text.slice(i, q));
    const end = stringEnd(text, q);
    out += inside(text.slice(q, end));
    i = end;
  }
  return out;
}

/** `json-comments`: block and line comments outside strings are skipped. */
export function withoutComments(text: string): string {
  return mapSegments(text, (s) => s.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' '));
}

/** `json-lenient-numbers`: `01` read as 1, `+1` as 1. */
export function withPlainNumbers(text: string): string {
  return mapSegments(text, (s) => s.replace(/([:[,]\s*)\+?(-?)0+(?=\d)/g, '$1$2').replace(/([:[,]\s*)\+(?=\d)/g, '$1'));
}

/** `json-raw-control-chars`: control characters inside strings taken as they are (escaped here, so JSON.parse reads them). */
export function withEscapedControls(text: string): string {
  return mapSegments(
    text,
    (s) => s,
    (s) => s.replace(/[\u0000-\u001f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}

/** `json-trailing-garbage`: the first top-level value, and whatever follows it dropped (a decoder reading one value). */
export function firstValue(text: string): string {
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      i = stringEnd(text, i);
      if (depth === 0) return text.slice(0, i);
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return text.slice(0, i + 1);
    }
    i++;
  }
  return text;
}

/** `json-huge-number-500`: the longest run of digits outside strings (a number literal's length). */
export function longestNumber(text: string): number {
  let longest = 0;
  mapSegments(text, (s) => {
    for (const m of s.matchAll(/\d+/g)) longest = Math.max(longest, m[0].length);
    return s;
  });
  return longest;
}

// With the `u` flag a surrogate range matches only unpaired surrogates.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** `lone-surrogate-500`: whether any string of the parsed value (member names included) holds a lone surrogate. */
export function holdsLoneSurrogate(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return true;
    } else if (Array.isArray(v)) stack.push(...v);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (LONE_SURROGATE.test(k)) return true;
        stack.push(x);
      }
    }
  }
  return false;
}
// Stryker restore all

/**
 * Patterns that let a test lie or flake, found in a test file's code (its comments and the contents of
 * its strings, templates and regular expressions blanked first, so prose about them is no hit):
 *
 * - a skip (`describe.skipIf`, `it.skip(`, `test.runIf`, a test context's `ctx.skip(`…): it hides tests.
 *   The one exception is the tool guard of test/tools.ts: `skipIf(X.skip)` where `X = tool(…)` in the
 *   same file, which skips only while the tool is missing and POUCHPROOF_REQUIRE_TOOLS is not set;
 * - a fixed-millisecond upper bound: `toBeLessThan`/`toBeLessThanOrEqual` of a number written in the
 *   test (digits and arithmetic only) on something named like a time (ms, elapsed, duration, took,
 *   latency, wall, Date.now(), performance.now()). A bound on a time comes from what the same test
 *   measured (test/timing.ts); a loaded machine does not honour a number.
 */

export type PatternKind = 'skip' | 'fixed-ms-bound';

export interface PatternHit {
  readonly kind: PatternKind;
  /** 1-based. */
  readonly line: number;
  /** The code as written, for the message. */
  readonly text: string;
}

/** Characters after which a `/` opens a regular expression rather than dividing. */
const BEFORE_REGEX = new Set(['', '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^']);

/** Skips a quoted string or regular expression from `i` (its opening delimiter), blanking its contents; returns the index after it. */
function skipDelimited(src: string, out: string[], i: number, close: string): number {
  let j = i + 1;
  let inClass = false;
  while (j < src.length && src[j] !== '\n') {
    const c = src[j]!;
    if (c === '\\') {
      out[j] = ' ';
      if (src[j + 1] !== '\n') out[j + 1] = ' ';
      j += 2;
      continue;
    }
    if (close === '/' && c === '[') inClass = true;
    else if (close === '/' && c === ']') inClass = false;
    else if (c === close && !inClass) return j + 1;
    out[j] = ' ';
    j++;
  }
  return j;
}

/** A template literal, contents and `${…}` alike blanked (newlines kept for line numbers). */
function skipTemplate(src: string, out: string[], i: number): number {
  let j = i + 1;
  while (j < src.length && src[j] !== '`') {
    if (src[j] === '\\') {
      out[j] = ' ';
      j++;
    }
    if (src[j] !== '\n') out[j] = ' ';
    j++;
  }
  return j + 1;
}

function lastCodeChar(out: readonly string[], i: number): string {
  for (let k = i - 1; k >= 0; k--) if (!/\s/.test(out[k]!)) return out[k]!;
  return '';
}

/** The source with comments and literal contents blanked, every line where it was. */
export function codeOnly(src: string): string {
  const out = src.split('');
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    const next = src[i + 1];
    if (c === '/' && next === '/') {
      while (i < src.length && src[i] !== '\n') out[i++] = ' ';
    } else if (c === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      for (; i < stop; i++) if (src[i] !== '\n') out[i] = ' ';
    } else if (c === '"' || c === "'") i = skipDelimited(src, out, i, c);
    else if (c === '`') i = skipTemplate(src, out, i);
    else if (c === '/' && (BEFORE_REGEX.has(lastCodeChar(out, i)) || /\breturn\s*$/.test(src.slice(Math.max(0, i - 8), i)))) i = skipDelimited(src, out, i, '/');
    else i++;
  }
  return out.join('');
}

/** The text of a call's balanced parentheses from `open` (the index of its `(`), without them; undefined if unbalanced. */
function argsAt(code: string, open: number): string | undefined {
  let depth = 0;
  for (let k = open; k < code.length; k++) {
    if (code[k] === '(') depth++;
    else if (code[k] === ')' && --depth === 0) return code.slice(open + 1, k);
  }
  return undefined;
}

const lineOf = (code: string, at: number): number => code.slice(0, at).split('\n').length;

const SKIP_CALL = /\b(?:describe|suite|it|test|bench)(?:\.(?:only|concurrent|sequential|shuffle|fails|each))*\.(skipIf|runIf|skip)(?:\.(?:only|concurrent|sequential|shuffle|fails|each))*\s*\(|\b(?:ctx|context|task)\.skip\s*\(/g;

/** Names bound to `tool(…)` in the file: their `.skip` is the tool guard. */
function toolGuards(code: string): Set<string> {
  return new Set([...code.matchAll(/\b(?:const|let)\s+([A-Za-z_$][\w$]*)\s*=\s*tool\s*\(/g)].map((m) => m[1]!));
}

function skipHits(code: string): PatternHit[] {
  const guards = toolGuards(code);
  const hits: PatternHit[] = [];
  for (const m of code.matchAll(SKIP_CALL)) {
    const open = m.index + m[0].length - 1;
    const args = (argsAt(code, open) ?? '').trim();
    const guard = /^([A-Za-z_$][\w$]*)\.skip$/.exec(args);
    if (m[1] === 'skipIf' && guard && guards.has(guard[1]!)) continue;
    hits.push({ kind: 'skip', line: lineOf(code, m.index), text: `${m[0]}${args})` });
  }
  return hits;
}

/** Something named like a time: an identifier such as ms, elapsedMs, DURATION_MS, tookMs, latency, wallMs, or a clock read. */
export function namesATime(subject: string): boolean {
  if (/\b(?:Date|performance)\.now\s*\(/.test(subject)) return true;
  const ids = subject.match(/[A-Za-z_$][\w$]*/g) ?? [];
  return ids.some((id) => /^ms$|Ms$|_MS$|_ms$|^ms[A-Z_]|elapsed|duration|took|latency|wall/i.test(id));
}

/** A bound written as a number: digits (with `_` and `.`) and arithmetic, no name. */
const LITERAL_BOUND = /^[\d_.\s+\-*/()e]+$/;

function boundHits(code: string): PatternHit[] {
  const hits: PatternHit[] = [];
  for (const m of code.matchAll(/\.toBeLessThan(?:OrEqual)?\s*\(/g)) {
    // A trailing comma, as a formatter leaves it after a bound on its own line, is no part of it.
    const bound = argsAt(code, m.index + m[0].length - 1)?.replace(/,\s*$/, '');
    if (bound === undefined || !LITERAL_BOUND.test(bound) || !/\d/.test(bound)) continue;
    // The expect(…) this matcher hangs on: back from the `.` to its balanced `(`, then the word before it.
    let k = m.index - 1;
    while (k >= 0 && /\s/.test(code[k]!)) k--;
    if (code[k] !== ')') continue;
    let depth = 0;
    for (; k >= 0; k--) {
      if (code[k] === ')') depth++;
      else if (code[k] === '(' && --depth === 0) break;
    }
    if (!/\bexpect\s*$/.test(code.slice(Math.max(0, k - 12), k))) continue;
    const subject = argsAt(code, k) ?? '';
    if (namesATime(subject)) hits.push({ kind: 'fixed-ms-bound', line: lineOf(code, m.index), text: `expect(${subject.trim()})${m[0]}${bound})` });
  }
  return hits;
}

/** Every hit in a test source file, in line order. */
export function flakyPatterns(src: string): PatternHit[] {
  const code = codeOnly(src);
  return [...skipHits(code), ...boundHits(code)].sort((a, b) => a.line - b.line);
}

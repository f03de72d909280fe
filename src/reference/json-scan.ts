/**
 * A linear pre-scan of a JSON text for the two things JSON.parse does not report: duplicate member
 * names (assumption `duplicate-keys`: rejected) and nesting deeper than a bound. It runs in one pass
 * with an explicit stack, so a hostile body can neither blow the call stack nor make it quadratic:
 * string values are skipped with indexOf, and only member names are read character by character.
 * Syntax is left to JSON.parse, which runs afterwards; on invalid text the scan just stops safely.
 */

export type ScanProblem = { kind: 'depth'; limit: number } | { kind: 'duplicate'; key: string };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJ = 0x7b;
const CLOSE_OBJ = 0x7d;
const OPEN_ARR = 0x5b;
const CLOSE_ARR = 0x5d;
const COMMA = 0x2c;

interface Frame {
  readonly object: boolean;
  keys: Names | undefined;
}

/** The member names of one object seen so far. */
interface Names {
  has(name: string): boolean;
  add(name: string): void;
}

/**
 * `member-names-quadratic`: the names kept in a list and each new one compared with every earlier
 * one, as a hand-written duplicate check does: O(n²) in an object's members (CWE-407).
 */
// Stryker disable all: runs only under the member-names-quadratic fault (docs/mutation.md)
class NameList implements Names {
  private readonly names: string[] = [];
  has(name: string): boolean {
    for (const n of this.names) if (n === name) return true;
    return false;
  }
  add(name: string): void {
    this.names.push(name);
  }
}
// Stryker restore all

/** Index just past the closing quote of the string opening at `start`, or -1. */
function skipString(s: string, start: number): number {
  let j = start + 1;
  for (;;) {
    const k = s.indexOf('"', j);
    if (k < 0) return -1;
    let bs = 0;
    for (let b = k - 1; b >= j && s.charCodeAt(b) === BACKSLASH; b--) bs++;
    if (bs % 2 === 0) return k + 1;
    j = k + 1;
  }
}

/** A member name and the index past it; escapes are decoded so "a" and "\u0061" collide (unless `raw`, the `duplicate-keys-escaped` fault). */
function readKey(s: string, start: number, raw = false): { key: string; end: number } | undefined {
  let escaped = false;
  let i = start + 1;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === BACKSLASH) {
      escaped = true;
      i++;
    } else if (c === QUOTE) break;
  }
  if (i >= s.length) return undefined;
  const text = s.slice(start, i + 1);
  // Stryker disable next-line all: `raw` is the duplicate-keys-escaped fault only
  if (!escaped || raw) return { key: text.slice(1, -1), end: i + 1 };
  try {
    return { key: String(JSON.parse(text)), end: i + 1 };
  } catch {
    return undefined;
  }
}

/**
 * The first duplicate name or depth overflow in `s`, or undefined. `maxDepth` undefined: no depth
 * bound. `rawNames` compares names as written, before unescaping (the `duplicate-keys-escaped` fault);
 * `namesInList` keeps them in a list (the `member-names-quadratic` fault).
 */
export function scanJson(s: string, maxDepth: number | undefined, o: { readonly rawNames?: boolean; readonly namesInList?: boolean } = {}): ScanProblem | undefined {
  const stack: Frame[] = [];
  let expectKey = false;
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    switch (c) {
      case QUOTE: {
        const top = stack[stack.length - 1];
        if (expectKey && top?.object) {
          const k = readKey(s, i, o.rawNames);
          if (!k) return undefined;
          top.keys ??= o.namesInList ? new NameList() : new Set();
          if (top.keys.has(k.key)) return { kind: 'duplicate', key: k.key };
          top.keys.add(k.key);
          expectKey = false;
          i = k.end;
        } else {
          const end = skipString(s, i);
          if (end < 0) return undefined;
          i = end;
        }
        continue;
      }
      case OPEN_OBJ:
      case OPEN_ARR:
        stack.push({ object: c === OPEN_OBJ, keys: undefined });
        if (maxDepth !== undefined && stack.length > maxDepth) return { kind: 'depth', limit: maxDepth };
        expectKey = c === OPEN_OBJ;
        break;
      case CLOSE_OBJ:
      case CLOSE_ARR:
        stack.pop();
        expectKey = false;
        break;
      case COMMA:
        expectKey = stack[stack.length - 1]?.object ?? false;
        break;
      default:
        break;
    }
    i++;
  }
  return undefined;
}

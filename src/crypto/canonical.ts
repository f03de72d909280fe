/**
 * RFC 8785 JSON Canonicalization Scheme (JCS). Strings and numbers are serialised exactly as
 * ECMAScript's JSON.stringify does (which is what RFC 8785 specifies), object members are sorted by
 * the UTF-16 code units of their names (JavaScript's default string order), and no whitespace is
 * emitted. Anything that is not I-JSON data (RFC 7493) is refused rather than silently dropped or
 * coerced, because a signature over a value that two parties serialise differently proves nothing.
 */

export class CanonicalizationError extends Error {
  override name = 'CanonicalizationError';
  constructor(
    message: string,
    /** JSON path of the offending value, `$` for the root. */
    readonly path: string,
  ) {
    super(`${message} at ${path}`);
  }
}

/** Raised deep inside; the path is collected on the way out so the hot path never tracks it. */
class Refusal {
  readonly segments: (string | number)[] = [];
  constructor(readonly message: string) {}
}

// With the `u` flag a surrogate range matches only unpaired surrogates.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function str(s: string, strict = true): string {
  const out = JSON.stringify(s);
  if (!strict) return out;
  // JSON.stringify writes a lone surrogate as a \udXXX escape, so only then is the slow test needed.
  if (out.includes('\\ud') && LONE_SURROGATE.test(s)) throw new Refusal('string contains a lone surrogate');
  return out;
}

/**
 * The plain concatenating serialiser: used where the native fast path cannot be (a `__proto__`
 * member, very many distinct names) and to locate a lone surrogate; `strict: false` is the
 * lenient variant behind `sortedCompact`.
 */
function serialise(v: unknown, ancestors: Set<object>, strict = true): string {
  switch (typeof v) {
    case 'string':
      return str(v, strict);
    case 'number':
      if (!Number.isFinite(v)) throw new Refusal(`${v} is not a JSON number`);
      return JSON.stringify(v); // ES6 Number-to-String; -0 becomes "0" as RFC 8785 requires
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (ancestors.has(v)) throw new Refusal('cyclic structure');
      ancestors.add(v);
      let out: string;
      if (Array.isArray(v)) {
        out = '[';
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out += ',';
          try {
            out += serialise(v[i], ancestors, strict);
          } catch (e) {
            if (e instanceof Refusal) e.segments.push(i);
            throw e;
          }
        }
        out += ']';
      } else {
        const proto: unknown = Object.getPrototypeOf(v);
        if (proto !== Object.prototype && proto !== null) {
          const kind = (v).constructor?.name;
          throw new Refusal(`${typeof kind === 'string' && kind ? kind : 'non-plain'} object is not JSON data`);
        }
        const keys = Object.keys(v).sort();
        out = '{';
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i];
          if (i > 0) out += ',';
          try {
            out += str(k, strict) + ':' + serialise(Reflect.get(v, k), ancestors, strict);
          } catch (e) {
            if (e instanceof Refusal) e.segments.push(k);
            throw e;
          }
        }
        out += '}';
      }
      ancestors.delete(v);
      return out;
    }
    default:
      throw new Refusal(`${typeof v} is not JSON data`);
  }
}

function pathOf(segments: readonly (string | number)[]): string {
  let p = '$';
  for (let i = segments.length - 1; i >= 0; i--) {
    const s = segments[i];
    p += typeof s === 'number' ? `[${s}]` : IDENTIFIER.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`;
  }
  return p;
}

/**
 * Validates `v` like `serialise` does and collects every member name in it. JSON.stringify with an
 * array replacer writes each object's members in the order of that list, so with the sorted union
 * of names as the list the native serialiser produces JCS member order (array-index names
 * included), about three times faster than concatenating in JavaScript.
 */
function collect(v: unknown, depth: number, names: Set<string>): void {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(v)) throw new Refusal(`${v} is not a JSON number`);
      return;
    case 'object': {
      if (v === null) return;
      if (depth > MAX_DEPTH) throw new Refusal('structure nested too deeply (or cyclic)');
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          try {
            collect(v[i], depth + 1, names);
          } catch (e) {
            if (e instanceof Refusal) e.segments.push(i);
            throw e;
          }
        }
        return;
      }
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        const kind = (v).constructor?.name;
        throw new Refusal(`${typeof kind === 'string' && kind ? kind : 'non-plain'} object is not JSON data`);
      }
      for (const k of Object.keys(v)) {
        names.add(k);
        try {
          collect(Reflect.get(v, k), depth + 1, names);
        } catch (e) {
          if (e instanceof Refusal) e.segments.push(k);
          throw e;
        }
      }
      return;
    }
    default:
      throw new Refusal(`${typeof v} is not JSON data`);
  }
}

const MAX_DEPTH = 1000;
/** With more distinct names the replacer list costs more per object than concatenation. */
const MAX_NAMES_FOR_NATIVE = 128;
// An escaped lone surrogate in JSON.stringify output: `\udXXX` preceded by an even run of backslashes.
const ESCAPED_SURROGATE = /(?<!\\)(?:\\\\)*\\ud[89a-f]/;

/** The RFC 8785 canonical text of `value`; throws `CanonicalizationError` on non-JSON data. */
export function canonicalize(value: unknown): string {
  try {
    const names = new Set<string>();
    collect(value, 0, names);
    // Every plain object inherits a `__proto__` accessor, which the replacer list would read.
    if (names.size > MAX_NAMES_FOR_NATIVE || names.has('__proto__')) return serialise(value, new Set());
    const out = JSON.stringify(value, [...names].sort());
    // Lone surrogates are rare; the concatenating serialiser finds where one is.
    if (out.includes('\\ud') && ESCAPED_SURROGATE.test(out)) serialise(value, new Set());
    return out;
  } catch (e) {
    if (e instanceof Refusal) throw new CanonicalizationError(e.message, pathOf(e.segments));
    if (e instanceof RangeError) throw new CanonicalizationError('structure nested too deeply', '$');
    throw e;
  }
}

/**
 * The `sorted-compact` reading of assumption `canonical-json`: JSON.stringify's output with member
 * names sorted recursively (by UTF-16 code units, like JCS). It differs from JCS only where
 * JSON.stringify is lenient: it drops `undefined` members, writes NaN as null, calls `toJSON`, and
 * escapes lone surrogates instead of refusing them.
 */
export function sortedCompact(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new CanonicalizationError(`${typeof value} is not JSON data`, '$');
  return serialise(JSON.parse(text), new Set(), false);
}

/**
 * `arbitraryOf(node)`: a fast-check arbitrary of a valid value of any model node, derived by
 * walking the node, so nothing about a field is typed twice.
 *
 * Edge bias is explicit: lengths, counts and integers are picked from {min, min+1, max-1, max,
 * a small random value}, UUIDs from the 2.2 edge forms, optional fields from {absent, null,
 * present}. Limits too large to hit on every sample (a 699051-character envelope, 2000 blob ids)
 * are left to `boundaries.ts` and `maxBody`, which put ONE field at such a bound per sample, so
 * the default samples stay small enough to run hundreds of them.
 */
import fc from 'fast-check';
import { CHARSETS, LIMITS, MAX_SAFE, childPath, itemPath, type Field, type Node, type PatternName } from '../spec/index.ts';
import { FIRST_DAY, edgeDay } from './days.ts';
import { objectValue, parseJsonValue, type Json, type JsonObject } from './json.ts';
import { alphabetString, plainString, type PlainRepertoire } from './strings.ts';
import { edgeUuid, versionedUuid } from './uuid.ts';

export interface ArbitraryOptions {
  /**
   * `edge` (default): edge-biased values of modest size. `lean`: the smallest valid value of each
   * node (for filler items). `max`: every length, count and integer at its maximum.
   */
  readonly mode?: 'edge' | 'lean' | 'max';
  /** Free-text strings may hold code points outside the BMP (assumption `characters-are-code-points`). */
  readonly astral?: boolean;
  /**
   * A template path (`ops[].name_index`) that must exist: every optional field on it is present and
   * non-null, every array on it has at least one item. Violation and boundary generators use it.
   */
  readonly require?: string;
  /** Exact lengths by template path (the bench's "1 KiB envelopes"). */
  readonly lengths?: Readonly<Record<string, number>>;
  /** Exact item counts by template path. */
  readonly counts?: Readonly<Record<string, number>>;
  /** A max length above this is not aimed at by `edge` (default 1024). */
  readonly cheapLength?: number;
  /** A max count above this is not aimed at by `edge` (default 64). */
  readonly cheapItems?: number;
  /**
   * Integers whose limit states only a maximum (usage counters): `zero` keeps them >= 0 (default,
   * valid under every reading); `json-safe` lets them go down to -MAX_SAFE, which is valid only
   * under assumption `usage-counters-negative`=accepted.
   */
  readonly unstatedMin?: 'zero' | 'json-safe';
}

/** Small random lengths and counts stay under these. */
const SMALL_LENGTH = 24;
const SMALL_ITEMS = 3;
/** Length of free text with no stated bound in `max` mode. */
const UNBOUNDED_TEXT = 16;

const ABSENT: unique symbol = Symbol('absent');
type Slot = Json | typeof ABSENT;

/** True when `at` lies on the required path (is it, or one of its containers). */
export function onPath(at: string, require: string | undefined): boolean {
  if (require === undefined) return false;
  return at === '' || require === at || require.startsWith(at + '.') || require.startsWith(at + '[');
}

function pick(values: number[], small: fc.Arbitrary<number>): fc.Arbitrary<number> {
  const uniq = [...new Set(values)];
  return fc.oneof({ weight: uniq.length, arbitrary: fc.constantFrom(...uniq) }, { weight: uniq.length + 2, arbitrary: small });
}

/** Edge-biased choice of a length or count in [lo, hi]. */
export function sizeChoice(lo: number, hi: number | undefined, cheap: number, small: number): fc.Arbitrary<number> {
  const top = hi === undefined ? lo + small : Math.min(hi, lo + small);
  const edges = [lo, Math.min(lo + 1, top)];
  if (hi !== undefined && hi <= cheap) edges.push(hi - 1 >= lo ? hi - 1 : hi, hi);
  return pick(edges, fc.integer({ min: lo, max: top }));
}

/** An integer in [lo, hi] (both within ±MAX_SAFE) biased to both ends, 0, ±1 and MAX_SAFE. */
export function edgeInteger(lo: number, hi: number): fc.Arbitrary<number> {
  const edges = [lo, hi, lo + 1, hi - 1, 0, 1, -1, MAX_SAFE, -MAX_SAFE].filter((v) => v >= lo && v <= hi);
  const small = fc.integer({ min: Math.max(lo, -1000), max: Math.min(hi, 1000) });
  const wide = fc.bigInt({ min: BigInt(lo), max: BigInt(hi) }).map(Number);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...new Set(edges)) },
    { weight: 3, arbitrary: small },
    { weight: 2, arbitrary: wide },
  );
}

export function integerBounds(node: Extract<Node, { kind: 'integer' }>, opts: ArbitraryOptions = {}): { lo: number; hi: number } {
  const l = node.range ? LIMITS[node.range] : undefined;
  const hi = l?.max ?? MAX_SAFE;
  const unstated = l?.max !== undefined && l.min === undefined && (opts.unstatedMin ?? 'zero') === 'zero' ? 0 : -MAX_SAFE;
  return { lo: l?.min ?? unstated, hi };
}

/** A string node's length bounds, in code points; `hi` undefined when the spec states none. */
export function lengthBounds(node: Extract<Node, { kind: 'string' }>): { lo: number; hi: number | undefined } {
  const l = node.length ? LIMITS[node.length] : undefined;
  return { lo: l?.min ?? 0, hi: l?.max };
}

/** The stated maximum length of a string node: a maxLength constraint is listed only for a string that has one. */
export function maxLengthOf(node: Extract<Node, { kind: 'string' }>): number {
  const { hi } = lengthBounds(node);
  if (hi === undefined) throw new Error('pouchproof: a maxLength constraint on a string whose limit states no maximum');
  return hi;
}

/** The stated maximum count of an array node: a maxItems constraint is listed only for an array that has one. */
export function maxCountOf(node: Extract<Node, { kind: 'array' }>): number {
  const { hi } = countBounds(node);
  if (hi === undefined) throw new Error('pouchproof: a maxItems constraint on an array whose limit states no maximum');
  return hi;
}

/** An array node's count bounds. */
export function countBounds(node: Extract<Node, { kind: 'array' }>): { lo: number; hi: number | undefined } {
  const l = node.count ? LIMITS[node.count] : undefined;
  return { lo: l?.min ?? 0, hi: l?.max };
}

/**
 * A valid string of exactly `length` characters for a string node without a pattern: from the
 * node's charset, or free text from the given repertoire.
 */
export function stringOfLength(node: Extract<Node, { kind: 'string' }>, length: number, rep: PlainRepertoire = 'bmp'): fc.Arbitrary<string> {
  if (node.charset) return alphabetString(CHARSETS[node.charset].chars, length);
  return plainString(length, rep);
}

/**
 * Valid values of each structured format: edge-biased, and the leanest. Days are real calendar days
 * (valid under every reading of `day-calendar-valid`).
 */
const PATTERN_VALUES: { readonly [P in PatternName]: { readonly edge: fc.Arbitrary<string>; readonly lean: fc.Arbitrary<string> } } = {
  uuid: { edge: edgeUuid, lean: versionedUuid },
  day: { edge: edgeDay, lean: fc.constant(FIRST_DAY) },
};

function stringArb(node: Extract<Node, { kind: 'string' }>, at: string, opts: ArbitraryOptions): fc.Arbitrary<string> {
  if (node.pattern) return PATTERN_VALUES[node.pattern][opts.mode === 'lean' ? 'lean' : 'edge'];
  const rep: PlainRepertoire = opts.astral ? 'astral' : 'bmp';
  const { lo, hi } = lengthBounds(node);
  const fixed = opts.lengths?.[at];
  let len: fc.Arbitrary<number>;
  if (fixed !== undefined) len = fc.constant(fixed);
  else if (opts.mode === 'max') len = fc.constant(hi ?? UNBOUNDED_TEXT);
  else if (opts.mode === 'lean') len = fc.constant(lo);
  else len = sizeChoice(lo, hi, opts.cheapLength ?? 1024, SMALL_LENGTH);
  // In `max` mode free text is ASCII so the sample's size in bytes is its size in characters.
  return len.chain((n) => stringOfLength(node, n, opts.mode === 'max' ? 'ascii' : rep));
}

function fieldArb(field: Field, at: string, opts: ArbitraryOptions): fc.Arbitrary<Slot> {
  const value = arbitraryOf(field.node, { ...opts }, at);
  if (onPath(at, opts.require) || opts.mode === 'max') return value;
  if (opts.mode === 'lean') {
    if (!field.required) return fc.constant(ABSENT);
    return field.nullable ? fc.constant(null) : value;
  }
  const choices: { weight: number; arbitrary: fc.Arbitrary<Slot> }[] = [{ weight: 3, arbitrary: value }];
  if (!field.required) choices.push({ weight: 1, arbitrary: fc.constant(ABSENT) });
  if (field.nullable) choices.push({ weight: 1, arbitrary: fc.constant(null) });
  return choices.length === 1 ? value : fc.oneof(...choices);
}

/** Arbitrary JSON objects, for free-form nodes (4.4 `response`). */
const freeFormObject: fc.Arbitrary<JsonObject> = fc
  .dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
  // A JSON round trip of fast-check's dictionary (whose type allows undefined members) is a JSON object.
  .map((o) => objectValue(parseJsonValue(JSON.stringify(o)), 'a free-form object'));

/**
 * A valid value of `node`. `at` is the node's template path from the root of its scope (the body
 * or a parameter name); options keyed by path (`require`, `lengths`, `counts`) are matched on it.
 */
export function arbitraryOf(node: Node, opts: ArbitraryOptions = {}, at = ''): fc.Arbitrary<Json> {
  const mode = opts.mode ?? 'edge';
  switch (node.kind) {
    case 'string':
      return stringArb(node, at, opts);
    case 'uuid':
      return mode === 'edge' ? edgeUuid : versionedUuid;
    case 'integer': {
      const { lo, hi } = integerBounds(node, opts);
      if (mode === 'max') return fc.constant(hi);
      if (mode === 'lean') return fc.constant(Math.min(Math.max(0, lo), hi));
      return edgeInteger(lo, hi);
    }
    case 'boolean':
      return fc.boolean();
    case 'enum':
      return fc.constantFrom(...node.values);
    case 'array': {
      const { lo: min, hi } = countBounds(node);
      const lo = onPath(itemPath(at), opts.require) ? Math.max(min, 1) : min;
      const fixed = opts.counts?.[at];
      let count: fc.Arbitrary<number>;
      if (fixed !== undefined) count = fc.constant(fixed);
      else if (mode === 'max') count = fc.constant(hi ?? SMALL_ITEMS);
      else if (mode === 'lean') count = fc.constant(lo);
      else count = sizeChoice(lo, hi, opts.cheapItems ?? 64, SMALL_ITEMS);
      const item = arbitraryOf(node.items, opts, itemPath(at));
      return count.chain((n) => fc.array(item, { minLength: n, maxLength: n }));
    }
    case 'object': {
      if (node.freeForm) return mode === 'lean' ? fc.constant({}) : freeFormObject;
      const shape: Record<string, fc.Arbitrary<Slot>> = {};
      for (const [key, field] of Object.entries(node.fields)) shape[key] = fieldArb(field, childPath(at, key), opts);
      return fc.record(shape).map((rec) => {
        const out: JsonObject = {};
        for (const [k, v] of Object.entries(rec)) if (v !== ABSENT) out[k] = v;
        return out;
      });
    }
    default:
      return node satisfies never;
  }
}

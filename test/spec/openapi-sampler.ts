/**
 * A small JSON Schema sampler over pouchproof's OpenAPI document, as a peer tool (Schemathesis,
 * Prism) reads it: it draws values from the document alone, never from the spec model, so what it
 * draws is what the document calls valid. It knows exactly the keywords the document uses and throws
 * on any other, so a keyword added to the document cannot be ignored here without a test noticing.
 *
 * Like a peer tool it honours `format: date` (a calendar day) beside a pattern; a pattern of one
 * character class (`^[…]*$`) is drawn with the schema's length bounds; any other pattern through
 * fast-check's `stringMatching`. Lengths and integers reach both ends of a bound (a 699051-character
 * envelope included; where no bound is stated, the JSON-safe range of `integers-json-safe`), arrays
 * stay short.
 */
import fc from 'fast-check';
import { MAX_SAFE } from '../../src/spec/index.ts';

type Schema = Readonly<Record<string, unknown>>;

const KNOWN = new Set([
  '$ref', 'anyOf', 'type', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'maxItems',
  'minLength', 'maxLength', 'pattern', 'format', 'enum', 'examples', 'minimum', 'maximum', 'title', 'description',
]);

/** Optional members, extra items and free text stay small: the point is the shapes, not the volume. */
const EXTRA_ITEMS = 3;
const FREE_LENGTH = 40;
const PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));
/** `^[…]*$`: the form the document gives a charset (2.3–2.7). */
const ONE_CLASS = /^\^(\[(?:\\.|[^\]\\])+\])\*\$$/;

/**
 * `any`: values anywhere in their bounds, optional members and null now and then. `low` and `high`:
 * every length, count and integer at that end of its bounds (a list holds at least one item, so its
 * items' ends are reached too), every optional member present and not null.
 */
export type SampleMode = 'any' | 'low' | 'high';

export class DocumentSampler {
  constructor(
    private readonly doc: Schema,
    private readonly mode: SampleMode = 'any',
  ) {}

  /** The schema a local `$ref` names. */
  deref(s: Schema): Schema {
    const ref = s['$ref'];
    if (typeof ref !== 'string') return s;
    let at: unknown = this.doc;
    for (const seg of ref.replace(/^#\//, '').split('/')) at = (at as Record<string, unknown>)[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (!at || typeof at !== 'object') throw new Error(`unresolved $ref ${ref}`);
    return this.deref(at as Schema);
  }

  arbitrary(schema: Schema): fc.Arbitrary<unknown> {
    const s = this.deref(schema);
    const unknown = Object.keys(s).filter((k) => !KNOWN.has(k) && !k.startsWith('x-'));
    if (unknown.length) throw new Error(`the sampler does not know ${unknown.join(', ')}`);
    if (Array.isArray(s['anyOf'])) return this.either((s['anyOf'] as Schema[]).map((x) => this.arbitrary(x)), (s['anyOf'] as Schema[]).map((x) => x['type'] === 'null'));
    const type = s['type'];
    if (Array.isArray(type)) return this.either((type as string[]).map((t) => (t === 'null' ? fc.constant(null) : this.arbitrary({ ...s, type: t }))), (type as string[]).map((t) => t === 'null'));
    switch (type) {
      case 'object':
        return this.object(s);
      case 'array': {
        const min = (s['minItems'] as number | undefined) ?? 0;
        const max = Math.min((s['maxItems'] as number | undefined) ?? Number.MAX_SAFE_INTEGER, min + EXTRA_ITEMS);
        const n = this.mode === 'low' ? Math.min(Math.max(min, 1), max) : max;
        return fc.array(this.arbitrary(s['items'] as Schema), this.mode === 'any' ? { minLength: min, maxLength: max } : { minLength: n, maxLength: n });
      }
      case 'string':
        return this.string(s);
      case 'integer': {
        // Either end of the range as often as a peer tool's boundary values reach it.
        const min = (s['minimum'] as number | undefined) ?? -MAX_SAFE;
        const max = (s['maximum'] as number | undefined) ?? MAX_SAFE;
        return this.inBounds(min, max, fc.integer({ min, max }));
      }
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      default:
        throw new Error(`the sampler does not know type ${JSON.stringify(type)}`);
    }
  }

  private object(s: Schema): fc.Arbitrary<unknown> {
    const props = (s['properties'] as Record<string, Schema> | undefined) ?? {};
    if (Object.keys(props).length === 0) {
      if (s['additionalProperties'] !== true) throw new Error('an object with no properties that is not free-form');
      return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
    }
    const required = this.mode === 'any' ? ((s['required'] as string[] | undefined) ?? []) : Object.keys(props);
    // Only listed members: whether a server ignores others is a reading (unknown-fields-ignored).
    const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, this.arbitrary(v)]));
    return fc.record(model, { requiredKeys: required });
  }

  private string(s: Schema): fc.Arbitrary<string> {
    if (Array.isArray(s['enum'])) return fc.constantFrom(...(s['enum'] as string[]));
    const pattern = typeof s['pattern'] === 'string' ? new RegExp(s['pattern'] as string, 'u') : undefined;
    if (s['format'] === 'date') return calendarDay().filter((d) => pattern?.test(d) ?? true);
    if (s['format'] !== undefined) throw new Error(`the sampler does not know format ${String(s['format'])}`);
    const min = (s['minLength'] as number | undefined) ?? 0;
    const max = s['maxLength'] as number | undefined;
    const cls = typeof s['pattern'] === 'string' ? ONE_CLASS.exec(s['pattern'] as string)?.[1] : undefined;
    if (cls) {
      const one = new RegExp(`^${cls}$`, 'u');
      return this.lengthIn(min, max).chain((n) => drawn(PRINTABLE.filter((c) => one.test(c)), n));
    }
    if (pattern) return fc.stringMatching(pattern).filter((v) => [...v].length >= min && (max === undefined || [...v].length <= max));
    return this.lengthIn(min, Math.min(max ?? min + FREE_LENGTH, min + FREE_LENGTH * 10)).chain((n) => fc.string({ unit: 'binary', minLength: n, maxLength: n }));
  }

  /** A length at either end of the bounds or in between (near the lower end when there is no upper). */
  private lengthIn(min: number, max: number | undefined): fc.Arbitrary<number> {
    const hi = max ?? min + FREE_LENGTH;
    return this.inBounds(min, hi, fc.integer({ min, max: Math.min(hi, min + FREE_LENGTH) }));
  }

  /** The mode's end of [min, max], or (`any`) either end or `between`. */
  private inBounds(min: number, max: number, between: fc.Arbitrary<number>): fc.Arbitrary<number> {
    switch (this.mode) {
      case 'low':
        return fc.constant(min);
      case 'high':
        return fc.constant(max);
      case 'any':
        return fc.oneof(fc.constant(min), fc.constant(max), between);
      default:
        return this.mode satisfies never;
    }
  }

  /** One of several schemas; at an end, the first that is not null. */
  private either(arbs: readonly fc.Arbitrary<unknown>[], isNull: readonly boolean[]): fc.Arbitrary<unknown> {
    return this.mode === 'any' ? fc.oneof(...arbs) : arbs[isNull.indexOf(false)]!;
  }
}

/** `n` characters of `chars`: a drawn stem repeated, so a 699051-character value costs no 699051 draws. */
function drawn(chars: readonly string[], n: number): fc.Arbitrary<string> {
  if (n === 0) return fc.constant('');
  return fc.array(fc.constantFrom(...chars), { minLength: 1, maxLength: Math.min(n, 64) }).map((stem) => stem.join('').repeat(Math.ceil(n / stem.length)).slice(0, n));
}

/** RFC 3339 full-date, as JSON Schema's `date` format means it: a real day of the Gregorian calendar. */
function calendarDay(): fc.Arbitrary<string> {
  return fc.date({ min: new Date(Date.UTC(1900, 0, 1)), max: new Date(Date.UTC(2199, 11, 31)), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
}

/**
 * How large a success answer can be: the largest valid 2.1 envelope of each endpoint, read off the
 * same nodes as the schemas, given the stated limits, plus a stated allowance for every value the
 * spec leaves unbounded. The conformance client reads no more than this of a response (a profile
 * may raise it), so a target that answers an endless body costs a bounded buffer, never the
 * machine's memory; what goes past it is pouchproof's limit, reported as such, never a violation.
 *
 * The figure is compact JSON (UTF-8) at every stated maximum: uuids at 36 characters, integers at
 * their longest decimal form, enums at their longest value, every optional and nullable field
 * present, arrays at their largest count. Two things the spec leaves open are allowed for:
 * - JSON may escape any character as a six-byte `\uXXXX` and put whitespace between tokens: the
 *   stated part counts ESCAPE_FACTOR times;
 * - a value with no stated bound (meta.request_id, meta.next_cursor, the free-form `data` of 4.4,
 *   and the fields the spec does not list, which the schemas accept) gets UNBOUNDED_ALLOWANCE_BYTES.
 */
import type { AssumptionName } from './assumptions.ts';
import { ENDPOINTS, type Endpoint, type EndpointId } from './endpoints.ts';
import { CHARSETS, LIMITS, MAX_SAFE, type LimitName } from './limits.ts';
import { childPath, itemPath, type Node } from './model.ts';
import { envelopeNode } from './zod.ts';

/** Every character of a JSON text may be a six-byte `\uXXXX` escape; whitespace between tokens is room for the same. */
export const ESCAPE_FACTOR = 6;

/** What one value the spec leaves unbounded (a string without a length, a free-form object) may take. */
export const UNBOUNDED_ALLOWANCE_BYTES = 64 * 1024;

/** UTF-8 bytes of one code point at most (a string without a charset). */
const MAX_UTF8_BYTES = 4;
const UUID_CHARS = 36;

/**
 * Arrays of an answer that state no count of their own, bounded by what the request carried under
 * a reading of the registry: a commit answers one result per op (`commit-results`), and ops are 1 to 50.
 */
const ANSWER_COUNTS: Partial<Record<EndpointId, Readonly<Record<string, { readonly limit: LimitName; readonly reading: AssumptionName }>>>> = {
  commitOperations: { 'data.results': { limit: 'opsPerCommit', reading: 'commit-results' } },
};

export interface AnswerSize {
  readonly endpoint: EndpointId;
  /** Compact JSON bytes of the largest valid envelope, unbounded values empty. */
  readonly statedBytes: number;
  /** Where the spec states no bound (each counted with its multiplicity), plus the unlisted fields. */
  readonly unbounded: readonly string[];
  /** ESCAPE_FACTOR × statedBytes + UNBOUNDED_ALLOWANCE_BYTES per unbounded value. */
  readonly boundBytes: number;
  /** The readings a count rests on. */
  readonly readings: readonly AssumptionName[];
}

interface Walk {
  bytes: number;
  unbounded: string[];
  readings: AssumptionName[];
}

const quoted = (chars: number): number => chars + 2;
const digits = (n: number): number => String(n).length;

function walk(node: Node, path: string, counts: Readonly<Record<string, { readonly limit: LimitName; readonly reading: AssumptionName }>>, out: Walk, times: number): number {
  switch (node.kind) {
    case 'uuid':
      return quoted(UUID_CHARS);
    case 'boolean':
      return 'false'.length;
    case 'enum':
      return quoted(Math.max(...node.values.map((v) => v.length)));
    case 'integer': {
      // No stated range: the harness's `integers-json-safe` bound (the spec's own largest integer).
      const l = node.range ? LIMITS[node.range] : { min: -MAX_SAFE, max: MAX_SAFE };
      return Math.max(digits(l.min ?? 0), digits(l.max ?? MAX_SAFE));
    }
    case 'string': {
      const max = node.length ? LIMITS[node.length].max : undefined;
      if (max === undefined) {
        for (let i = 0; i < times; i++) out.unbounded.push(path);
        return quoted(0);
      }
      // Every charset of the spec is ASCII: one byte a character.
      const ascii = node.charset !== undefined && /^[\x20-\x7e]*$/.test(CHARSETS[node.charset].chars);
      return quoted(ascii ? max : max * MAX_UTF8_BYTES);
    }
    case 'array': {
      const answered = counts[path];
      const max = node.count ? LIMITS[node.count].max : answered ? LIMITS[answered.limit].max : undefined;
      if (answered && !out.readings.includes(answered.reading)) out.readings.push(answered.reading);
      if (max === undefined) {
        for (let i = 0; i < times; i++) out.unbounded.push(itemPath(path));
        return 2;
      }
      if (max === 0) return 2;
      const item = walk(node.items, itemPath(path), counts, out, times * max);
      return 2 + max * item + (max - 1);
    }
    case 'object': {
      if (node.freeForm) {
        for (let i = 0; i < times; i++) out.unbounded.push(path || '(body)');
        return 2;
      }
      const fields = Object.entries(node.fields);
      let bytes = 2 + Math.max(0, fields.length - 1);
      for (const [key, field] of fields) {
        const value = walk(field.node, childPath(path, key), counts, out, times);
        bytes += quoted(key.length) + 1 + (field.nullable ? Math.max(value, 'null'.length) : value);
      }
      return bytes;
    }
    default:
      return node satisfies never;
  }
}

/** The largest valid success answer of one endpoint, and the bound derived from it. */
export function answerSize(e: Endpoint): AnswerSize {
  const out: Walk = { bytes: 0, unbounded: [], readings: [] };
  const statedBytes = walk(envelopeNode(e.data), '', ANSWER_COUNTS[e.id] ?? {}, out, 1);
  const unbounded = [...out.unbounded, '(fields the spec does not list)'];
  return {
    endpoint: e.id,
    statedBytes,
    unbounded,
    boundBytes: ESCAPE_FACTOR * statedBytes + UNBOUNDED_ALLOWANCE_BYTES * unbounded.length,
    readings: out.readings,
  };
}

/** Each endpoint's answer size, in catalogue order. */
export const ANSWER_SIZES: readonly AnswerSize[] = Object.freeze(ENDPOINTS.map(answerSize));

/**
 * The most of a response the conformance client reads by default: the largest endpoint's bound,
 * rounded up to a KiB.
 */
export const RESPONSE_BODY_BOUND_BYTES = Math.ceil(Math.max(...ANSWER_SIZES.map((a) => a.boundBytes)) / 1024) * 1024;

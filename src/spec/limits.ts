/**
 * Every numeric bound of SPEC.md, in one table. Section 8 lists most of them; the rest are the
 * bounds stated beside a field in sections 2 and 4 (exact lengths, integer ranges). Nothing else
 * in the project writes one of these numbers: schemas, generators, the reference server and the
 * reports all read them from here.
 */
import { keysOf } from './narrow.ts';

/** 2^53 - 1: the spec's "9007199254740991". */
export const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** What a limit counts. `chars` are Unicode code points (assumption `characters-are-code-points`). */
export type LimitUnit = 'chars' | 'items' | 'integer';

export interface Limit {
  readonly unit: LimitUnit;
  readonly min?: number;
  readonly max?: number;
  /** Spec sections that state it; the first is where it is defined. */
  readonly sections: readonly string[];
  /** The spec's words, for reports. */
  readonly text: string;
}

/** A limit typed by the bounds it states, so `LIMITS.keyGen.min` is a number where the spec gives one. */
function limit<B extends { readonly min?: number; readonly max?: number }>(unit: LimitUnit, bounds: B, sections: string[], text: string): Limit & Readonly<B> {
  return Object.freeze({ unit, ...bounds, sections: Object.freeze(sections), text });
}

export const LIMITS = Object.freeze({
  opsPerCommit: limit('items', { min: 1, max: 50 }, ['4.2', '8'], 'ops per commit: 1 to 50'),
  blobIdsPerOp: limit('items', { max: 2000 }, ['2.5', '8'], 'blob_ids per operation: at most 2000'),
  envelopeLength: limit('chars', { max: 699051 }, ['2.5', '8'], 'envelope length: at most 699051 characters'),
  opSignatureLength: limit('chars', { max: 342 }, ['2.5', '8'], 'operation signature length: at most 342 characters'),
  nameIndexLength: limit('chars', { min: 43, max: 43 }, ['2.5'], 'name_index: exactly 43 characters'),
  keyGen: limit('integer', { min: 1, max: MAX_SAFE }, ['2.5', '2.4', '8'], 'key_gen: 1 to 9007199254740991'),
  resultInteger: limit('integer', { min: -MAX_SAFE, max: MAX_SAFE }, ['2.6'], 'seq, high_water: -9007199254740991 to 9007199254740991'),
  usageRowsPerRequest: limit('items', { max: 2000 }, ['4.3', '8'], 'usage rows per request: at most 2000'),
  usageCounter: limit('integer', { max: MAX_SAFE }, ['2.7', '8'], 'usage counters: at most 9007199254740991 each'),
  modelLength: limit('chars', { min: 1, max: 120 }, ['2.7', '8'], 'model length: 1 to 120 characters'),
  assistantLength: limit('chars', { min: 1, max: 32 }, ['2.7', '8'], 'assistant length: 1 to 32 characters'),
  sourceIdLength: limit('chars', { min: 32, max: 32 }, ['4.3'], 'sourceId: exactly 32 lowercase hexadecimal characters'),
  storedInteger: limit('integer', { min: -MAX_SAFE, max: MAX_SAFE }, ['4.3'], 'stored: -9007199254740991 to 9007199254740991'),
  rosterStatements: limit('items', { min: 1, max: 16 }, ['2.8', '8'], 'roster statements: 1 to 16'),
  rosterKeyEnvelopes: limit('items', { max: 2000 }, ['2.8', '8'], 'roster key_envelopes: at most 2000'),
  rosterStatementLength: limit('chars', { max: 87382 }, ['2.3', '8'], 'roster statement length: at most 87382 characters'),
  rosterSignatureLength: limit('chars', { max: 342 }, ['2.3', '2.4', '8'], 'roster signature length: at most 342 characters'),
  rosterHpkeEncLength: limit('chars', { max: 342 }, ['2.4', '8'], 'roster hpke_enc length: at most 342 characters'),
  rosterCiphertextLength: limit('chars', { max: 5462 }, ['2.4', '8'], 'roster ciphertext length: at most 5462 characters'),
  reasonLength: limit('chars', { max: 200 }, ['4.5', '8'], 'reason length: at most 200 characters'),
});

export type LimitName = keyof typeof LIMITS;

export const LIMIT_NAMES = keysOf(LIMITS);

/**
 * Character classes. `chars` is the exact set of allowed characters; generators draw from it and
 * violation generators draw from what it excludes.
 */
export interface Charset {
  readonly chars: string;
  readonly sections: readonly string[];
  readonly text: string;
}

const AZ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const az = AZ.toLowerCase();
const DIGITS = '0123456789';

export const CHARSETS = Object.freeze({
  base64url: { chars: AZ + az + DIGITS + '_-', sections: ['2.3', '2.4', '2.5'], text: 'alphabet A-Z a-z 0-9 _ -' },
  assistant: { chars: az + DIGITS + '-', sections: ['2.7'], text: 'a-z 0-9 -' },
  lowerHex: { chars: DIGITS + 'abcdef', sections: ['4.3'], text: 'lowercase hexadecimal' },
});

export type CharsetName = keyof typeof CHARSETS;

/** The regular expression source that matches strings of one charset only: `^[A-Za-z0-9_-]*$`. */
export function charsetSource(name: CharsetName): string {
  return `^[${CHARSETS[name].chars.replace(/[\]\\^-]/g, '\\$&')}]*$`;
}

/** The prefix every path begins with (section 9). */
export const API_PREFIX = '/v1';

// Without the `u` flag these classes match UTF-16 units, paired or not.
const HIGH_SURROGATE = /[\uD800-\uDBFF]/;
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/** Code point length: how the spec's "characters" are counted (assumption `characters-are-code-points`). */
export function codePointLength(s: string): number {
  // A string without a high surrogate (nearly every one, and every 699,051-character envelope of
  // the alphabet) has as many code points as UTF-16 units: a native scan says so without walking
  // the string one code point at a time. Otherwise each well-formed pair is one code point.
  if (!HIGH_SURROGATE.test(s)) return s.length;
  return s.length - (s.match(SURROGATE_PAIR)?.length ?? 0);
}


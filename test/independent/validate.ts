/**
 * Field validators written from SPEC.md's words alone (2.2 to 2.8, 8). Each throws `Invalid` naming
 * the field; the server answers it 400. Integers are read exactly from their lexeme (bigint), so no
 * bound is checked after a lossy conversion.
 */
import type { BugCheck } from './bugs.ts';
import { Num, type Json, type JsonObject } from './json.ts';

export class Invalid extends Error {
  override readonly name = 'Invalid';
}

export const MAX_SAFE = 9007199254740991n;

export function fail(path: string, problem: string): never {
  throw new Invalid(`${path}: ${problem}`);
}

export function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !(v instanceof Num) && !Array.isArray(v);
}

export function object(v: Json | undefined, path: string): JsonObject {
  if (!isObject(v)) fail(path, 'expected an object');
  return v;
}

/** A member by its exact name; under K-REQ-4 a name differing in case fills it (Go's encoding/json). */
export function member(o: JsonObject, name: string, bug: BugCheck): Json | undefined {
  if (Object.hasOwn(o, name)) return o[name];
  if (bug('K-REQ-4')) {
    const other = Object.keys(o).find((k) => k.toLowerCase() === name.toLowerCase());
    if (other !== undefined) return o[other];
  }
  return undefined;
}

export function required(o: JsonObject, name: string, path: string, bug: BugCheck): Json {
  const v = member(o, name, bug);
  if (v === undefined) fail(`${path}.${name}`, 'required');
  return v;
}

export function string(v: Json | undefined, path: string): string {
  if (typeof v !== 'string') fail(path, 'expected a string');
  return v;
}

// ---------------------------------------------------------------------------------------------
// 2.2 UUID
// ---------------------------------------------------------------------------------------------

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;
const ANY_UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SLOPPY_UUID = /^[0-9a-zA-Z]{7,9}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-zA-Z]{11,13}$/;
const NIL = '00000000-0000-0000-0000-000000000000';
const MAX_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** Braces, `urn:uuid:`, 32 bare digits, surrounding space: what a platform UUID parser forgives. */
function platformUuid(s: string): string {
  let t = s.trim().replace(/^urn:uuid:/i, '').replace(/^\{(.*)\}$/, '$1');
  if (/^[0-9a-fA-F]{32}$/.test(t)) t = `${t.slice(0, 8)}-${t.slice(8, 12)}-${t.slice(12, 16)}-${t.slice(16, 20)}-${t.slice(20)}`;
  return t;
}

export function isUuid(s: string, bug: BugCheck): boolean {
  let t = bug('K-UUID-4') ? platformUuid(s) : s;
  if (bug('K-UUID-5')) t = t.replace(/\n$/, '');
  if (bug('K-UUID-3') && t !== t.toLowerCase()) return false;
  const special = t.toLowerCase() === NIL || t.toLowerCase() === MAX_UUID;
  if (special) return !bug('K-UUID-2');
  if (bug('K-UUID-1')) return ANY_UUID.test(t);
  if (bug('K-UUID-6')) return SLOPPY_UUID.test(t);
  return UUID.test(t);
}

/** A uuid field; identity is case-insensitive, so the stored form is lower case. */
export function uuid(v: Json | undefined, path: string, bug: BugCheck): string {
  const s = string(v, path);
  if (!isUuid(s, bug)) fail(path, 'not a UUID (2.2)');
  return bug('K-UUID-9') ? s : s.toLowerCase();
}

/** An optional nullable uuid member: absent and null both mean none. */
export function optionalUuid(o: JsonObject, name: string, path: string, bug: BugCheck): string | null {
  const v = member(o, name, bug);
  if (v === undefined || v === null) return null;
  if (v === '' && bug('K-UUID-7')) return null;
  return uuid(v, `${path}.${name}`, bug);
}

// ---------------------------------------------------------------------------------------------
// Strings of the alphabet A-Z a-z 0-9 _ - (2.3, 2.4 in the roster, 2.5)
// ---------------------------------------------------------------------------------------------

const B64URL = /^[A-Za-z0-9_-]*$/;

function alphabetOk(s: string, bug: BugCheck): boolean {
  if (bug('K-B64-3')) return /^[A-Za-z0-9_-]*/.test(s);
  if (bug('K-B64-4')) return /^[A-z0-9-]*$/.test(s);
  if (bug('K-B64-5')) return B64URL.test(s.replace(/\n$/, ''));
  if (bug('K-B64-6')) return /^[A-Za-z0-9+/=]*$/.test(s);
  return B64URL.test(s);
}

/** At most `max` characters of the alphabet (all ASCII, so characters, bytes and UTF-16 units agree). */
export function b64(v: Json | undefined, path: string, max: number, bug: BugCheck): string {
  const s = string(v, path);
  const over = bug('K-B64-1') ? s.length >= max : bug('K-B64-2') ? s.length > max + 1 : s.length > max;
  if (over) fail(path, `longer than ${max} characters`);
  if (!alphabetOk(s, bug)) fail(path, 'a character outside A-Z a-z 0-9 _ -');
  return s;
}

// ---------------------------------------------------------------------------------------------
// Integers
// ---------------------------------------------------------------------------------------------

/** A value past every stated bound: enough for any range check, cheap for any lexeme. */
const HUGE = 10n ** 40n;

/** The exact integer a number lexeme denotes, or undefined when it has a fraction. */
export function exactInteger(text: string): bigint | undefined {
  const m = /^(-?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(text);
  if (!m) return undefined;
  const sign = m[1] === '-' ? -1n : 1n;
  const frac = m[3] ?? '';
  const digits = (m[2]! + frac).replace(/^0+/, '');
  if (digits === '') return 0n;
  const exp = Number(m[4] ?? '0');
  const scale = exp - frac.length;
  if (scale >= 0) return digits.length + scale > 40 ? sign * HUGE : sign * BigInt(digits + '0'.repeat(scale));
  const kept = digits.length + scale;
  if (!/^0*$/.test(digits.slice(Math.max(kept, 0)))) return undefined;
  return kept <= 0 ? 0n : kept > 40 ? sign * HUGE : sign * BigInt(digits.slice(0, kept));
}

/** How a sloppy server reads an integer: through a double (K-INT 4, 7). */
function lossyInteger(v: Num, bug: BugCheck): bigint | undefined {
  const d = Number(v.text);
  if (bug('K-INT-4') && Number.isFinite(d)) return BigInt(Math.trunc(d));
  if (bug('K-INT-7') && Number.isInteger(d)) return BigInt(d);
  return undefined;
}

function integerValue(v: Json | undefined, path: string, bug: BugCheck): bigint {
  if (typeof v === 'string' && bug('K-INT-5') && /^-?[0-9]+$/.test(v.trim())) return BigInt(v.trim());
  if (!(v instanceof Num)) fail(path, 'expected an integer');
  if (bug('K-INT-8') && v.text.length > 4300) throw new Error('Exceeds the limit (4300 digits) for integer string conversion');
  if (bug('K-INT-6') && !/^-?[0-9]+$/.test(v.text)) fail(path, 'expected an integer');
  if (bug('K-INT-10') && v.text === '-0') fail(path, 'expected an integer');
  const n = exactInteger(v.text) ?? lossyInteger(v, bug);
  if (n === undefined) fail(path, 'expected an integer');
  return n;
}

/**
 * An integer within [min, max]. Where the spec states no bound, the interoperable range of I-JSON
 * (RFC 7493: ±(2^53-1)) applies, so every accepted integer survives any JSON client.
 */
export function integer(v: Json | undefined, path: string, bug: BugCheck, min = -MAX_SAFE, max = MAX_SAFE): bigint {
  // K-INT-9: a bound written for finite doubles lets Infinity through.
  if (bug('K-INT-9') && v instanceof Num && !Number.isFinite(Number(v.text))) return Number(v.text) > 0 ? HUGE : -HUGE;
  const n = integerValue(v, path, bug);
  const lo = bug('K-INT-1') && min !== -MAX_SAFE ? min - 1n : min;
  const hi = bug('K-INT-2') ? 2n ** 53n : bug('K-INT-3') ? max - 1n : max;
  if (n < lo) fail(path, `below ${lo}`);
  if (n > hi) fail(path, `above ${hi}`);
  return n;
}

// ---------------------------------------------------------------------------------------------
// Arrays and text
// ---------------------------------------------------------------------------------------------

/** An array of `min` to `max` items (each bound optional). */
export function array(v: Json | undefined, path: string, bug: BugCheck, min?: number, max?: number): Json[] {
  if (!Array.isArray(v)) fail(path, 'expected an array');
  const lo = min === undefined ? (bug('K-ARR-4') ? 1 : 0) : bug('K-ARR-3') ? min - 1 : min;
  if (v.length < lo) fail(path, `fewer than ${lo} items`);
  if (max !== undefined) {
    const over = bug('K-ARR-1') ? v.length > max + 1 : bug('K-ARR-2') ? v.length >= max : v.length > max;
    if (over) fail(path, `more than ${max} items`);
  }
  return v;
}

/** Characters are code points (a lone surrogate counts as one). */
function characters(s: string, bug: BugCheck): number {
  if (bug('K-TEXT-1')) return s.length;
  if (bug('K-TEXT-2')) return Buffer.byteLength(s, 'utf8');
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Free text of `min` to `max` characters. */
export function text(v: Json | undefined, path: string, bug: BugCheck, min: number, max: number): string {
  const s = string(v, path);
  const n = characters(s, bug);
  if (n < min || n > (bug('K-TEXT-3') ? max + 1 : max)) fail(path, `not ${min} to ${max} characters`);
  return s;
}

/**
 * Request validation: the spec model's own zod schemas (`schemasOf`, `issuesOf`) under the server's
 * readings, so no constraint is written here a second time. The readings that make a server
 * stricter than the schema (unknown fields, empty lists, negative counters, future days, lengths in
 * bytes) and the validation faults are applied on top, each where an implementer's validator would
 * decide it or go wrong: a limit read one off from LIMITS, a looser or stricter UUID rule, the
 * roster schemas used outside the roster.
 */
import { z } from 'zod';
import {
  CHARSETS,
  DEFAULT_SCHEMA_OPTIONS,
  KeyEnvelope,
  PouchOperation,
  LIMITS,
  PATTERNS,
  REQUEST_CONSTRAINTS,
  RosterKeyEnvelope,
  RosterStatement,
  Statement,
  UUID_GROUPS,
  UUID_MAX,
  UUID_NIL,
  charsetSource,
  codePointLength,
  issuesOf,
  isRecord,
  mapTable,
  jsonPath,
  schemasOf,
  toZod,
  utcDayOf,
  type Endpoint,
  type EndpointId,
  type CharsetName,
  type LimitName,
  type Node,
  type SchemaIssue,
  type SchemaOptions,
} from '../spec/index.ts';
import { badRequest, type HttpError } from './errors.ts';
import { ENVELOPE_CHUNK_CHARS, type FaultName } from './fault-catalogue.ts';
import type { FaultSet } from './faults.ts';
import type { ReadingSet } from './readings.ts';

/** Issues listed in a 400 message; the rest are counted. */
const LISTED_ISSUES = 5;

// Stryker disable all: the text of a 400's message; error bodies are not shown in the spec (docs/mutation.md)
function describeIssues(where: string, issues: readonly { kind: string; at: readonly PropertyKey[] }[]): string {
  const shown = issues.slice(0, LISTED_ISSUES).map((i) => `${jsonPath(i.at)}: ${i.kind}`);
  const more = issues.length > LISTED_ISSUES ? ` (and ${issues.length - LISTED_ISSUES} more)` : '';
  return `${where} invalid: ${shown.join('; ')}${more}`;
}
// Stryker restore all

/** A problem found on top of the schema (a stricter reading or fault); `kind` is what the 400 names. */
interface Problem {
  readonly kind: string;
  readonly at: readonly PropertyKey[];
}

const paramSchemas = new Map<EndpointId, z.ZodType>();

/** 400 unless the path parameters satisfy the endpoint's parameter nodes. */
export function validateParams(e: Endpoint, params: Record<string, string>, faults: FaultSet): HttpError | undefined {
  if (faults.has('path-id-unvalidated')) return undefined;
  let schema = paramSchemas.get(e.id);
  if (!schema) {
    schema = z.object(schemasOf(e).params);
    paramSchemas.set(e.id, schema);
  }
  const all = issuesOf(schema, params);
  // `pattern-trailing-newline`: a path parameter's pattern anchored the same way (Werkzeug's converters let a %0A through to it).
  const issues = faults.has('pattern-trailing-newline') ? all.filter((i) => !passesBeforeNewline(e, 'params', i, params[i.path])) : all;
  if (issues.length === 0) return undefined;
  // Stryker disable next-line all: the text of a 400's message; error bodies are not shown in the spec
  const shown = issues.slice(0, LISTED_ISSUES).map((i) => `${String(i.at[0])}: ${i.kind}`);
  return badRequest('invalid_path', `path parameter invalid: ${shown.join('; ')}`);
}

/** UTF-8 bytes of a string, counted without allocating. */
const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * Body validation of one server: the spec model's schema under the server's readings
 * (`day-calendar-valid`, `characters-are-code-points`), then what its faults loosen, then what its
 * stricter readings and faults add. Built once per server, schemas compiled once per endpoint.
 */
export class BodyValidator {
  private readonly schemas = new Map<EndpointId, z.ZodType>();
  private readonly options: SchemaOptions;
  private readonly stricter: Strictness;
  private readonly binding: boolean;

  constructor(
    private readonly faults: FaultSet,
    readings: ReadingSet,
  ) {
    const unit = readings.of('characters-are-code-points');
    // zod counts code points or UTF-16 units; a byte count is stricter than both and is added on top.
    this.options = { ...DEFAULT_SCHEMA_OPTIONS, lengthUnit: unit === 'utf16' ? 'utf16' : 'codepoints', calendarDays: readings.is('day-calendar-valid', 'calendar') };
    this.stricter = strictnessOf(faults, readings);
    this.binding = BINDING_FAULTS.some((f) => faults.has(f));
  }

  private schema(e: Endpoint): z.ZodType {
    let schema = this.schemas.get(e.id);
    if (!schema) {
      schema = schemasOf(e, this.options).body;
      this.schemas.set(e.id, schema);
    }
    return schema;
  }

  /**
   * The body as the server's binder hands it on: the parsed body itself, unless a binding fault
   * reads it into the spec's fields more loosely than JSON says (member names without case, numbers
   * from strings, fractions truncated, uuids normalised). The handler works on what this returns.
   */
  bind(e: Endpoint, body: unknown): unknown {
    return this.binding ? bound(e.body, body, this.faults) : body;
  }

  /** 400 unless the body satisfies the endpoint's body schema (as bent by the readings and faults). */
  check(e: Endpoint, body: unknown): HttpError | undefined {
    const schemaIssues = issuesOf(this.schema(e), body);
    if (this.faults.has('envelope-regex-backtracking')) backtrackOnMismatch(schemaIssues, body);
    const kept = this.faults.any && schemaIssues.length > 0 ? schemaIssues.filter((i) => !loosened(e, i, body, this.faults)) : schemaIssues;
    const issues: readonly Problem[] = this.stricter.any && kept.length === 0 ? tightened(e, body, this.stricter) : kept;
    return issues.length === 0 ? undefined : badRequest('invalid_body', describeIssues('body', issues));
  }
}

function valueAt(root: unknown, at: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const k of at) {
    if (v === null || typeof v !== 'object') return undefined;
    v = Reflect.get(v, k);
  }
  return v;
}

// Stryker disable all: from here to EXCLUSIVE_MAX, the loosening, pattern, binding and backtracking faults only (docs/mutation.md);
// no `restore` may come before the block's end, or the rest of it is mutated as live code
/** Item-count limits read one too high by a fault: `LIMITS.<limit>.max + 1`. */
const COUNT_ONE_OVER: readonly (readonly [FaultName, string, LimitName])[] = [
  ['ops-limit-off-by-one', 'ops', 'opsPerCommit'],
  ['blob-ids-off-by-one', 'ops[].blob_ids', 'blobIdsPerOp'],
  ['roster-statements-off-by-one', 'roster.statements', 'rosterStatements'],
  ['usage-rows-off-by-one', 'rows', 'usageRowsPerRequest'],
];

/** `lax-pattern`: the operation signature checked against base64url with padding (`=` allowed), built from the same alphabet. */
const LAX_SIGNATURE = new RegExp(`^[${CHARSETS.base64url.chars.replace('-', '\\-')}=]*$`);

/** `uuid-any-version`: the 8-4-4-4-12 shape only, built from the same group lengths. */
const ANY_HEX_UUID = new RegExp(`^${UUID_GROUPS.map((n) => `[0-9a-fA-F]{${n}}`).join('-')}$`);

/** The charset of each body field and path parameter that has one, by endpoint, scope and template path. */
const CHARSET_AT: ReadonlyMap<string, CharsetName> = new Map(
  REQUEST_CONSTRAINTS.flatMap((c): [string, CharsetName][] => (c.kind === 'charset' && c.scope !== 'response' && c.charset ? [[`${c.endpoint} ${c.scope} ${c.path}`, c.charset]] : [])),
);
const CHARSET_RE = mapTable(CHARSETS, (_, n) => new RegExp(charsetSource(n)));
/** `charset-ascii-range`: the base64url class written with the range A-z, which spans [ \ ] ^ _ and the backtick too. */
const A_TO_Z_RANGE = /^[A-z0-9_-]*$/;

/**
 * `envelope-regex-backtracking`: the envelope's alphabet checked with a nested quantifier
 * (`^([A-Za-z0-9_-]+)*$`), which on a mismatch tries every way to split the string before it gives
 * up (CWE-1333). Backtracking that is exponential would hang any run, so the fault retries the
 * alphabet check from every ENVELOPE_CHUNK_CHARS-th position instead: O(n²) in a refused envelope's
 * length, nothing for a valid one.
 */
// Not mutated (inside the block above): runs only under the envelope-regex-backtracking fault.
function backtrackOnMismatch(issues: readonly SchemaIssue[], body: unknown): void {
  const alphabet = CHARSET_RE.base64url;
  for (const i of issues) {
    const v = i.kind === 'charset' && i.path === 'ops[].envelope' ? valueAt(body, i.at) : undefined;
    if (typeof v !== 'string') continue;
    for (let start = 0; start < v.length; start += ENVELOPE_CHUNK_CHARS) if (alphabet.test(v.slice(start))) break;
  }
}

/** `pattern-trailing-newline`: whether `v` passes the issue's own check once a final newline is dropped, as `$` lets it. */
function passesBeforeNewline(e: Endpoint, scope: 'body' | 'params', i: SchemaIssue, v: unknown): boolean {
  if (typeof v !== 'string' || !v.endsWith('\n')) return false;
  const head = v.slice(0, -1);
  switch (i.kind) {
    case 'charset': {
      const charset = CHARSET_AT.get(`${e.id} ${scope} ${i.path}`);
      return charset !== undefined && CHARSET_RE[charset].test(head);
    }
    case 'pattern':
      return PATTERNS.day.regex.test(head);
    case 'uuid':
      return PATTERNS.uuid.regex.test(head);
    default:
      return false;
  }
}

function loosened(e: Endpoint, i: SchemaIssue, body: unknown, faults: FaultSet): boolean {
  if (faults.has('pattern-trailing-newline') && passesBeforeNewline(e, 'body', i, valueAt(body, i.at))) return true;
  if (i.kind === 'charset' && faults.has('charset-ascii-range') && CHARSET_AT.get(`${e.id} body ${i.path}`) === 'base64url') {
    const v = valueAt(body, i.at);
    if (typeof v === 'string' && A_TO_Z_RANGE.test(v)) return true;
  }
  for (const [fault, path, limit] of COUNT_ONE_OVER) {
    if (i.kind === 'maxItems' && i.path === path && faults.has(fault)) {
      const v = valueAt(body, i.at);
      if (Array.isArray(v) && v.length <= LIMITS[limit].max + 1) return true;
    }
  }
  if (i.kind === 'min' && i.path === 'ops[].key_gen' && faults.has('key-gen-zero-accepted')) {
    const v = valueAt(body, i.at);
    if (typeof v === 'number' && v >= LIMITS.keyGen.min - 1) return true;
  }
  // The DTO declares the required-but-nullable base optional (`base_revision_id?: string | null`): absent passes, and is read as null.
  if (i.kind === 'required' && i.path === 'ops[].base_revision_id' && (faults.has('nullable-missing-as-null') || faults.has('nullable-missing-rewritten'))) return true;
  if (i.kind === 'charset' && i.path === 'ops[].signature' && faults.has('lax-pattern')) {
    const v = valueAt(body, i.at);
    if (typeof v === 'string' && LAX_SIGNATURE.test(v)) return true;
  }
  if (i.kind === 'uuid' && faults.has('uuid-any-version')) {
    const v = valueAt(body, i.at);
    if (typeof v === 'string' && ANY_HEX_UUID.test(v)) return true;
  }
  return false;
}

/** The faults of a binder that reads a body into the spec's fields more loosely than JSON says. */
const BINDING_FAULTS: readonly FaultName[] = ['field-names-case-insensitive', 'uuid-parsed-leniently', 'integer-string-coerced', 'integer-float-truncated', 'integer-overflow-saturated'];

/** `uuid-parsed-leniently`: what a platform UUID parser makes of a string (trimmed, urn:uuid: and braces dropped, hyphens optional), or undefined. */
function platformUuid(v: string): string | undefined {
  const hex = v.trim().replace(/^urn:uuid:/i, '').replace(/^\{(.*)\}$/, '$1').replaceAll('-', '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) return undefined;
  let at = 0;
  return UUID_GROUPS.map((n) => hex.slice(at, (at += n)))
    .join('-')
    .toLowerCase();
}

/** `integer-overflow-saturated`: the bound of an integer field a number past every double is read as. */
function saturated(node: Extract<Node, { kind: 'integer' }>, up: boolean): number {
  const l = node.range ? LIMITS[node.range] : undefined;
  return up ? (l?.max ?? Number.MAX_SAFE_INTEGER) : (l?.min ?? -Number.MAX_SAFE_INTEGER);
}

/** The value as a loose binder reads it into `node` (a copy where anything changed). */
function bound(node: Node, v: unknown, faults: FaultSet): unknown {
  switch (node.kind) {
    case 'object': {
      if (v === null || typeof v !== 'object' || Array.isArray(v) || node.freeForm) return v;
      const out: Record<string, unknown> = { ...v };
      for (const [key, field] of Object.entries(node.fields)) {
        if (!(key in out) && faults.has('field-names-case-insensitive')) {
          // Go's encoding/json: an exact match first, else any member whose name equals the field's without case.
          const twin = Object.keys(out).find((k) => k.toLowerCase() === key.toLowerCase());
          if (twin !== undefined) {
            out[key] = out[twin];
            delete out[twin];
          }
        }
        if (key in out) out[key] = bound(field.node, out[key], faults);
      }
      return out;
    }
    case 'array':
      return Array.isArray(v) ? v.map((x) => bound(node.items, x, faults)) : v;
    case 'integer':
      if (typeof v === 'string' && /^-?\d+$/.test(v) && faults.has('integer-string-coerced')) return Number(v);
      if (typeof v === 'number' && Number.isFinite(v) && !Number.isInteger(v) && faults.has('integer-float-truncated')) return Math.trunc(v);
      // A saturating parser whose range error is dropped: a number past every double reads as the field's bound.
      if (typeof v === 'number' && !Number.isFinite(v) && !Number.isNaN(v) && faults.has('integer-overflow-saturated')) return saturated(node, v > 0);
      return v;
    case 'uuid':
      return typeof v === 'string' && !PATTERNS.uuid.regex.test(v) && faults.has('uuid-parsed-leniently') ? (platformUuid(v) ?? v) : v;
    case 'string':
    case 'enum':
    case 'boolean':
      return v;
    default:
      return node satisfies never;
  }
}

/** Limits a fault reads as exclusive (`<` where the spec says "at most"). */
const EXCLUSIVE_MAX: readonly (readonly [FaultName, LimitName])[] = [
  ['envelope-length-exclusive', 'envelopeLength'],
  ['ops-limit-exclusive', 'opsPerCommit'],
  ['roster-key-envelopes-exclusive', 'rosterKeyEnvelopes'],
  ['reason-length-exclusive', 'reasonLength'],
];
// Stryker restore all

const rosterStatement = toZod(RosterStatement);
const ENVELOPE_NODE = PouchOperation.fields['envelope'].node;
const rosterKeyEnvelope = toZod(RosterKeyEnvelope);

/** What a server checks beyond the schema: its stricter readings and faults, resolved once. */
interface Strictness {
  readonly any: boolean;
  /** Limits a fault reads as exclusive. */
  readonly exclusive: ReadonlySet<LimitName>;
  readonly nilRejected: boolean;
  readonly lowerOnly: boolean;
  readonly rosterEverywhere: boolean;
  readonly emptyEnvelopeRefused: boolean;
  /** `characters-are-code-points`: how a length is counted. */
  readonly lengthOf: (s: string) => number;
  /** `characters-are-code-points=bytes`: lengths over their maximum in UTF-8 bytes are refused. */
  readonly bytes: boolean;
  /** `unknown-fields-ignored=rejected`. */
  readonly unknownRejected: boolean;
  /** `commit-unlisted-member-refused`: that reading taken by the commit body alone. */
  readonly commitUnknownRejected: boolean;
  /** `empty-lists=rejected`: a required list with no stated minimum must not be empty. */
  readonly emptyListsRejected: boolean;
  /** `usage-counters-negative=rejected`. */
  readonly negativeCountersRejected: boolean;
  /** `usage-day-window=not-future`. */
  readonly futureDaysRejected: boolean;
  /** `usage-day-today-refused`: that reading's check written `day >= today`. */
  readonly todayRefused: boolean;
}

function strictnessOf(faults: FaultSet, readings: ReadingSet): Strictness {
  const unit = readings.of('characters-are-code-points');
  const s = {
    // Stryker disable next-line all: the exclusive-limit faults only
    exclusive: new Set(EXCLUSIVE_MAX.filter(([f]) => faults.has(f)).map(([, l]) => l)),
    nilRejected: faults.has('uuid-nil-rejected'),
    lowerOnly: faults.has('uuid-lowercase-only'),
    rosterEverywhere: faults.has('roster-limits-everywhere'),
    emptyEnvelopeRefused: faults.has('envelope-empty-refused'),
    lengthOf: unit === 'bytes' ? utf8Length : unit === 'utf16' ? (v: string) => v.length : codePointLength,
    bytes: unit === 'bytes',
    unknownRejected: readings.is('unknown-fields-ignored', 'rejected'),
    commitUnknownRejected: faults.has('commit-unlisted-member-refused'),
    emptyListsRejected: readings.is('empty-lists', 'rejected'),
    negativeCountersRejected: readings.is('usage-counters-negative', 'rejected'),
    futureDaysRejected: readings.is('usage-day-window', 'not-future'),
    todayRefused: faults.has('usage-day-today-refused'),
  };
  const any =
    s.exclusive.size > 0 || s.nilRejected || s.lowerOnly || s.rosterEverywhere || s.emptyEnvelopeRefused || s.bytes || s.unknownRejected || s.emptyListsRejected || s.negativeCountersRejected || s.futureDaysRejected || s.commitUnknownRejected;
  return { ...s, any };
}

/** The current UTC day in the 20YY-MM-DD form: days compare as strings. */
const todayUtc = (): string => utcDayOf(Date.now());

/** The stricter readings and faults of one string value: its length in another unit or bound, the empty envelope, a day not yet past. */
function tightenedString(node: Extract<Node, { kind: 'string' }>, v: string, s: Strictness, today: string): string[] {
  const kinds: string[] = [];
  if (node.length) {
    const max = LIMITS[node.length].max;
    if (max !== undefined && ((s.exclusive.has(node.length) && s.lengthOf(v) >= max) || (s.bytes && utf8Length(v) > max))) kinds.push('maxLength');
  }
  // Stryker disable next-line all: the envelope-empty-refused fault only
  if (s.emptyEnvelopeRefused && node === ENVELOPE_NODE && v === '') kinds.push('minLength');
  if (s.futureDaysRejected && node.pattern === 'day' && v > today) kinds.push('future-day');
  // Stryker disable next-line all: the usage-day-today-refused fault only
  if (s.todayRefused && node.pattern === 'day' && v === today) kinds.push('future-day');
  return kinds;
}

/** Extra issues of the readings and faults that make validation stricter than the schema. Runs on schema-valid bodies only. */
function tightened(e: Endpoint, body: unknown, s: Strictness): Problem[] {
  const out: Problem[] = [];
  const add = (kind: string, at: PropertyKey[]) => out.push({ kind, at });
  const today = s.futureDaysRejected ? todayUtc() : '';
  const unknownRejected = s.unknownRejected || (s.commitUnknownRejected && e.id === 'commitOperations');
  const visit = (node: Node, v: unknown, at: PropertyKey[], required: boolean): void => {
    if (v === undefined || v === null) return;
    switch (node.kind) {
      case 'string':
        if (typeof v === 'string') for (const kind of tightenedString(node, v, s, today)) add(kind, at);
        return;
      case 'integer':
        if (s.negativeCountersRejected && node.range === 'usageCounter' && typeof v === 'number' && v < 0) add('min', at);
        return;
      case 'uuid':
        if (typeof v !== 'string') return;
        // Stryker disable next-line all: the uuid-nil-rejected fault only
        if (s.nilRejected && (v.toLowerCase() === UUID_NIL || v.toLowerCase() === UUID_MAX)) add('uuid', at);
        // Stryker disable next-line all: the uuid-lowercase-only fault only
        if (s.lowerOnly && v !== v.toLowerCase()) add('uuid', at);
        return;
      case 'array': {
        if (!Array.isArray(v)) return;
        // Stryker disable next-line all: the exclusive-limit faults only
        if (node.count && s.exclusive.has(node.count) && v.length >= LIMITS[node.count].max) add('maxItems', at);
        // Where the spec wants a minimum it states one; this reading asks an item of every required list without one.
        const statedMin = node.count ? (LIMITS[node.count].min ?? 0) : 0;
        if (s.emptyListsRejected && required && statedMin === 0 && v.length === 0) add('minItems', at);
        for (const [k, item] of v.entries()) visit(node.items, item, [...at, k], true);
        return;
      }
      case 'object': {
        if (!isRecord(v)) return;
        if (node.freeForm) return;
        // The roster's stricter forms applied to every statement and key envelope.
        // Stryker disable next-line all: the roster-limits-everywhere fault only
        if (s.rosterEverywhere && (node === Statement || node === KeyEnvelope)) {
          for (const i of issuesOf(node === Statement ? rosterStatement : rosterKeyEnvelope, v)) add(i.kind, [...at, ...i.at]);
        }
        if (unknownRejected) for (const key of Object.keys(v)) if (!Object.hasOwn(node.fields, key)) add('unknown-field', [...at, key]);
        for (const [key, field] of Object.entries(node.fields)) visit(field.node, v[key], [...at, key], field.required);
        return;
      }
      case 'enum':
      case 'boolean':
        return; // no reading or fault makes these stricter
      default:
        return node satisfies never;
    }
  };
  visit(e.body, body, [], true);
  return out;
}

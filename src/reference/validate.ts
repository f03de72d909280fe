/**
 * Request validation: the spec model's own zod schemas (`schemasOf`, `issuesOf`) with the registry's
 * default readings, so no constraint is written here a second time. The validation faults are
 * applied on top, each where an implementer's validator would go wrong: a limit read one off from
 * LIMITS, a looser or stricter UUID rule, the roster schemas used outside the roster.
 */
import { z } from 'zod';
import {
  DEFAULT_SCHEMA_OPTIONS,
  KeyEnvelope,
  LIMITS,
  RosterKeyEnvelope,
  RosterStatement,
  Statement,
  UUID_GROUPS,
  UUID_MAX,
  UUID_NIL,
  codePointLength,
  issuesOf,
  jsonPath,
  schemasOf,
  toZod,
  type ConstraintKind,
  type Endpoint,
  type EndpointId,
  type LimitName,
  type Node,
  type SchemaIssue,
  type SchemaOptions,
} from '../spec/index.ts';
import { badRequest, type HttpError } from './errors.ts';
import type { FaultName, FaultSet } from './faults.ts';

/** Issues listed in a 400 message; the rest are counted. */
const LISTED_ISSUES = 5;

function describeIssues(where: string, issues: readonly SchemaIssue[]): string {
  const shown = issues.slice(0, LISTED_ISSUES).map((i) => `${jsonPath(i.at)}: ${i.kind}`);
  const more = issues.length > LISTED_ISSUES ? ` (and ${issues.length - LISTED_ISSUES} more)` : '';
  return `${where} invalid: ${shown.join('; ')}${more}`;
}

function schemaOptions(faults: FaultSet): SchemaOptions {
  return {
    ...DEFAULT_SCHEMA_OPTIONS,
    ...(faults.has('length-in-utf16') ? { lengthUnit: 'utf16' as const } : {}),
    ...(faults.has('day-pattern-only') ? { calendarDays: false } : {}),
  };
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
  const issues = issuesOf(schema, params);
  if (issues.length === 0) return undefined;
  const shown = issues.slice(0, LISTED_ISSUES).map((i) => `${String(i.at[0])}: ${i.kind}`);
  return badRequest('invalid_path', `path parameter invalid: ${shown.join('; ')}`);
}

/** Body schemas per server (its faults choose the options), looked up once per endpoint. */
const bodySchemas = new WeakMap<FaultSet, Map<EndpointId, z.ZodType>>();

function bodySchema(e: Endpoint, faults: FaultSet): z.ZodType {
  let perEndpoint = bodySchemas.get(faults);
  if (!perEndpoint) {
    perEndpoint = new Map();
    bodySchemas.set(faults, perEndpoint);
  }
  let schema = perEndpoint.get(e.id);
  if (!schema) {
    schema = schemasOf(e, schemaOptions(faults)).body;
    perEndpoint.set(e.id, schema);
  }
  return schema;
}

/** 400 unless the body satisfies the endpoint's body schema (as bent by the switched-on faults). */
export function validateBody(e: Endpoint, body: unknown, faults: FaultSet): HttpError | undefined {
  let issues = issuesOf(bodySchema(e, faults), body);
  if (faults.any && issues.length > 0) issues = issues.filter((i) => !loosened(i, body, faults));
  if (faults.any && issues.length === 0) issues = tightened(e, body, faults);
  return issues.length === 0 ? undefined : badRequest('invalid_body', describeIssues('body', issues));
}

function valueAt(root: unknown, at: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const k of at) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k as string];
  }
  return v;
}

/** Item-count limits read one too high by a fault: `LIMITS.<limit>.max + 1`. */
const COUNT_ONE_OVER: readonly (readonly [FaultName, string, LimitName])[] = [
  ['ops-limit-off-by-one', 'ops', 'opsPerCommit'],
  ['blob-ids-off-by-one', 'ops[].blob_ids', 'blobIdsPerOp'],
  ['roster-statements-off-by-one', 'roster.statements', 'rosterStatements'],
  ['usage-rows-off-by-one', 'rows', 'usageRowsPerRequest'],
];

/** `uuid-any-version`: the 8-4-4-4-12 shape only, built from the same group lengths. */
const ANY_HEX_UUID = new RegExp(`^${UUID_GROUPS.map((n) => `[0-9a-fA-F]{${n}}`).join('-')}$`);

function loosened(i: SchemaIssue, body: unknown, faults: FaultSet): boolean {
  for (const [fault, path, limit] of COUNT_ONE_OVER) {
    if (i.kind === 'maxItems' && i.path === path && faults.has(fault)) {
      const v = valueAt(body, i.at);
      if (Array.isArray(v) && v.length <= LIMITS[limit].max! + 1) return true;
    }
  }
  if (i.kind === 'min' && i.path === 'ops[].key_gen' && faults.has('key-gen-zero-accepted')) {
    const v = valueAt(body, i.at);
    if (typeof v === 'number' && v >= LIMITS.keyGen.min! - 1) return true;
  }
  if (i.kind === 'uuid' && faults.has('uuid-any-version')) {
    const v = valueAt(body, i.at);
    if (typeof v === 'string' && ANY_HEX_UUID.test(v)) return true;
  }
  return false;
}

/** Limits a fault reads as exclusive (`<` where the spec says "at most"). */
const EXCLUSIVE_MAX: readonly (readonly [FaultName, LimitName])[] = [
  ['envelope-length-exclusive', 'envelopeLength'],
  ['roster-key-envelopes-exclusive', 'rosterKeyEnvelopes'],
  ['reason-length-exclusive', 'reasonLength'],
];

const rosterStatement = toZod(RosterStatement);
const rosterKeyEnvelope = toZod(RosterKeyEnvelope);

/** Extra issues of the faults that make validation stricter than the spec. Runs on schema-valid bodies only. */
function tightened(e: Endpoint, body: unknown, faults: FaultSet): SchemaIssue[] {
  const exclusive = new Set(EXCLUSIVE_MAX.filter(([f]) => faults.has(f)).map(([, l]) => l));
  const nilRejected = faults.has('uuid-nil-rejected');
  const lowerOnly = faults.has('uuid-lowercase-only');
  const rosterEverywhere = faults.has('roster-limits-everywhere');
  if (exclusive.size === 0 && !nilRejected && !lowerOnly && !rosterEverywhere) return [];
  const out: SchemaIssue[] = [];
  const add = (kind: ConstraintKind, at: PropertyKey[]) => out.push({ kind, at, path: at.map((k) => (typeof k === 'number' ? '[]' : String(k))).join('.') });
  const visit = (node: Node, v: unknown, at: PropertyKey[]): void => {
    if (v === undefined || v === null) return;
    switch (node.kind) {
      case 'string':
        if (node.length && exclusive.has(node.length) && typeof v === 'string' && codePointLength(v) >= LIMITS[node.length].max!) add('maxLength', at);
        return;
      case 'uuid':
        if (typeof v !== 'string') return;
        if (nilRejected && (v.toLowerCase() === UUID_NIL || v.toLowerCase() === UUID_MAX)) add('uuid', at);
        if (lowerOnly && v !== v.toLowerCase()) add('uuid', at);
        return;
      case 'array':
        if (!Array.isArray(v)) return;
        if (node.count && exclusive.has(node.count) && v.length >= LIMITS[node.count].max!) add('maxItems', at);
        v.forEach((item, k) => visit(node.items, item, [...at, k]));
        return;
      case 'object': {
        if (typeof v !== 'object') return;
        // The roster's stricter forms applied to every statement and key envelope.
        if (rosterEverywhere && (node === Statement || node === KeyEnvelope)) {
          for (const i of issuesOf(node === Statement ? rosterStatement : rosterKeyEnvelope, v)) add(i.kind, [...at, ...i.at]);
        }
        for (const [key, field] of Object.entries(node.fields)) visit(field.node, (v as Record<string, unknown>)[key], [...at, key]);
        return;
      }
      default:
        return;
    }
  };
  visit(e.body, body, []);
  return out;
}

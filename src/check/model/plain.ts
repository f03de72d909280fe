/**
 * The plain request of each endpoint: the request every reading of the registry accepts. Lists hold
 * one item (`empty-lists`), strings are short ASCII within their alphabet (`characters-are-code-
 * points`), days lie in the past (`usage-day-window`), counters are 0 (`usage-counters-negative`),
 * optional fields are left out (`unknown-fields-ignored` cannot object). It is what controls swap
 * a suspected part of a refused request back to, and what tells a refused case from a target that
 * refuses the whole endpoint. Derived from the model, so a new field or endpoint needs nothing here.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { CHARSETS, ENDPOINT_BY_ID, LIMITS, childPath, itemPath, utcDayOf, type EndpointId, type Node } from '../../spec/index.ts';
import type { Json, JsonObject, Params, RequestSample } from '../../gen/index.ts';

const DAY_MS = 86_400_000;

/** Yesterday (UTC): a past day every reading of the day rules accepts. */
export function plainDay(now = Date.now()): string {
  return utcDayOf(now - DAY_MS);
}

function plainString(node: Extract<Node, { kind: 'string' }>): string {
  if (node.pattern === 'day') return plainDay();
  const l = node.length ? LIMITS[node.length] : undefined;
  const n = Math.max(l?.min ?? 1, Math.min(4, l?.max ?? 4));
  const chars = node.charset ? CHARSETS[node.charset].chars : CHARSETS.base64url.chars;
  // The middle of the alphabet: no edge character a lenient or strict parser could trip on.
  const ch = chars[Math.floor(chars.length / 3)];
  return ch.repeat(n);
}

/**
 * Which optional members a plain value holds besides the required ones, by template path
 * (`ops[].merge_parent_id`): none for the plain request itself.
 */
export type OptionalMembers = (path: string) => boolean;

const NONE: OptionalMembers = () => false;

/** The plain value of a node (fresh uuids each call), with the optional members `fill` names present too: null where nullable, plain otherwise. */
export function plainValue(node: Node, fill: OptionalMembers = NONE, at = ''): Json {
  switch (node.kind) {
    case 'string':
      return plainString(node);
    case 'uuid':
      return randomUUID();
    case 'integer': {
      const l = node.range ? LIMITS[node.range] : undefined;
      return Math.max(l?.min ?? 0, 0);
    }
    case 'boolean':
      return true;
    case 'enum':
      return node.values[0];
    case 'array': {
      const min = node.count ? (LIMITS[node.count].min ?? 1) : 1;
      return Array.from({ length: Math.max(1, min) }, () => plainValue(node.items, fill, itemPath(at)));
    }
    case 'object': {
      const out: JsonObject = {};
      if (node.freeForm) return out;
      for (const [key, f] of Object.entries(node.fields)) {
        const path = childPath(at, key);
        if (!f.required && !fill(path)) continue;
        // A nullable reference (base_revision_id) is plainest as null: a create on nothing.
        out[key] = f.nullable ? null : plainValue(f.node, fill, path);
      }
      return out;
    }
    default:
      return node satisfies never;
  }
}

/** The plain value of a path parameter: a fresh uuid, or a fresh string of its alphabet and length. */
function plainParam(node: Node): string {
  if (node.kind === 'uuid') return randomUUID();
  if (node.kind === 'string' && node.charset === 'lowerHex' && node.length) return randomBytes(Math.ceil((LIMITS[node.length].max ?? 32) / 2)).toString('hex').slice(0, LIMITS[node.length].max);
  return String(plainValue(node));
}

export function plainRequest(endpoint: EndpointId, fill: OptionalMembers = NONE): RequestSample {
  const e = ENDPOINT_BY_ID[endpoint];
  const params: Params = {};
  for (const [name, node] of Object.entries(e.params)) params[name] = plainParam(node);
  return { params, body: plainValue(e.body, fill) };
}

/** The template paths of the optional members a plain request of `endpoint` can hold (those under an optional member included). */
export function optionalMembers(endpoint: EndpointId): readonly string[] {
  const out: string[] = [];
  const walk = (node: Node, at: string): void => {
    if (node.kind === 'array') walk(node.items, itemPath(at));
    if (node.kind !== 'object' || node.freeForm) return;
    for (const [key, f] of Object.entries(node.fields)) {
      const path = childPath(at, key);
      if (!f.required) out.push(path);
      if (!f.nullable) walk(f.node, path);
    }
  };
  walk(ENDPOINT_BY_ID[endpoint].body, '');
  return out;
}

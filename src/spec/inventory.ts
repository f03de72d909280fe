/**
 * The constraint inventory: every rule of sections 2, 4 and 8, enumerated from the model. It is
 * what coverage is measured against: each entry needs a violation generator and a boundary-valid
 * generator, and the reports count findings per entry.
 */
import type { ConstraintKind } from './constraints.ts';
import { ENDPOINTS, type Endpoint, type EndpointId } from './endpoints.ts';
import { CHARSETS, LIMITS, PATTERNS, type CharsetName, type LimitName, type PatternName } from './limits.ts';
import { childPath, itemPath, type Field, type Node } from './model.ts';
import { envelopeNode } from './zod.ts';

/** Where in an exchange a constraint applies: request path parameters, request body, or response envelope. */
export type Scope = 'params' | 'body' | 'response';

export interface Constraint {
  /** Stable id: `commitOperations/body/ops[].envelope#maxLength`. */
  readonly id: string;
  readonly endpoint: EndpointId;
  readonly scope: Scope;
  /** Template path inside the scope (`ops[].envelope`; path parameters by name). */
  readonly path: string;
  readonly kind: ConstraintKind;
  readonly section: string;
  readonly limit?: LimitName;
  readonly charset?: CharsetName;
  readonly pattern?: PatternName;
  /** For `enum`: the allowed values. */
  readonly values?: readonly string[];
  /** Set when the rule exists only under a registry assumption. */
  readonly assumption?: string;
  /** One line for reports. */
  readonly text: string;
  /** The node the rule sits on, for generators. */
  readonly node: Node;
  /** Whether the field may be null / absent (for generators of `not-null` and `required`). */
  readonly nullable: boolean;
  readonly required: boolean;
}

type Draft = Omit<Constraint, 'id' | 'endpoint' | 'scope' | 'node' | 'nullable' | 'required'>;

/** The rules that sit on one node, not counting presence and nullability. */
function nodeRules(node: Node, path: string, section: string): Draft[] {
  const out: Draft[] = [];
  const add = (kind: ConstraintKind, text: string, extra: Partial<Draft> = {}) => out.push({ kind, path, section, text, ...extra });
  switch (node.kind) {
    case 'string': {
      add('type', `${path} is a string`);
      if (node.length) {
        const l = LIMITS[node.length];
        if (l.min !== undefined && l.min > 0) add('minLength', l.text, { limit: node.length, section: l.sections[0]! });
        if (l.max !== undefined) add('maxLength', l.text, { limit: node.length, section: l.sections[0]! });
      }
      if (node.charset) add('charset', `${path}: ${CHARSETS[node.charset].text}`, { charset: node.charset });
      if (node.pattern) {
        add('pattern', `${path}: ${PATTERNS[node.pattern].text}`, { pattern: node.pattern });
        if (node.pattern === 'day') add('calendar', `${path}: a UTC day`, { pattern: 'day', assumption: 'day-calendar-valid' });
      }
      break;
    }
    case 'uuid':
      add('type', `${path} is a string`);
      add('uuid', `${path}: ${PATTERNS.uuid.text}`, { pattern: 'uuid', section: '2.2' });
      break;
    case 'integer': {
      add('type', `${path} is a number`);
      add('integer', `${path} is an integer`);
      if (node.range) {
        const l = LIMITS[node.range];
        if (l.min !== undefined) add('min', l.text, { limit: node.range, section: l.sections[0]! });
        if (l.max !== undefined) add('max', l.text, { limit: node.range, section: l.sections[0]! });
      }
      break;
    }
    case 'boolean':
      add('type', `${path} is a boolean`);
      break;
    case 'enum':
      add('type', `${path} is a string`);
      add('enum', `${path}: one of ${node.values.join(', ')}`, { values: node.values });
      break;
    case 'array': {
      add('type', `${path} is an array`);
      if (node.count) {
        const l = LIMITS[node.count];
        if (l.min !== undefined && l.min > 0) add('minItems', l.text, { limit: node.count, section: l.sections[0]! });
        if (l.max !== undefined) add('maxItems', l.text, { limit: node.count, section: l.sections[0]! });
      }
      break;
    }
    case 'object':
      add('type', `${path || '(body)'} is an object`);
      break;
  }
  return out;
}

interface Walked extends Draft {
  node: Node;
  nullable: boolean;
  required: boolean;
}

function walk(node: Node, path: string, section: string, field: { nullable: boolean; required: boolean }, out: Walked[]): void {
  for (const d of nodeRules(node, path, section)) out.push({ ...d, node, ...field });
  if (node.kind === 'array') walk(node.items, itemPath(path), section, { nullable: false, required: true }, out);
  if (node.kind === 'object' && !node.freeForm) {
    for (const [key, f] of Object.entries(node.fields) as [string, Field][]) {
      const p = childPath(path, key);
      if (f.required) out.push({ kind: 'required', path: p, section: f.section, text: `${p} is required`, node: f.node, nullable: f.nullable, required: true });
      if (!f.nullable) out.push({ kind: 'not-null', path: p, section: f.section, text: `${p} is not nullable`, node: f.node, nullable: false, required: f.required });
      walk(f.node, p, f.section, f, out);
    }
  }
}

function constraintsOf(e: Endpoint): Constraint[] {
  const out: Constraint[] = [];
  const push = (scope: Scope, items: Walked[]) => {
    for (const w of items) out.push({ ...w, id: `${e.id}/${scope}/${w.path || '$'}#${w.kind}`, endpoint: e.id, scope, section: w.section || e.section });
  };
  const params: Walked[] = [];
  for (const [name, node] of Object.entries(e.params)) walk(node, name, e.section, { nullable: false, required: true }, params);
  // A path parameter is a path segment: it cannot be absent, null or of another JSON type.
  push('params', params.filter((w) => w.kind !== 'type'));
  const body: Walked[] = [];
  walk(e.body, '', e.section, { nullable: false, required: true }, body);
  push('body', body);
  const response: Walked[] = [];
  walk(envelopeNode(e.data), '', '2.1', { nullable: false, required: true }, response);
  push('response', response);
  return out;
}

/** Every constraint of every endpoint, in catalogue order. */
export const INVENTORY: readonly Constraint[] = Object.freeze(ENDPOINTS.flatMap(constraintsOf));

export const CONSTRAINT_BY_ID: ReadonlyMap<string, Constraint> = new Map(INVENTORY.map((c) => [c.id, c]));

/** The request-side constraints: those a client can break and a server must enforce. */
export const REQUEST_CONSTRAINTS: readonly Constraint[] = INVENTORY.filter((c) => c.scope !== 'response');

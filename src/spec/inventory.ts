/**
 * The constraint inventory: every rule of sections 2, 4 and 8, enumerated from the model. It is
 * what coverage is measured against: each entry needs a violation generator and a boundary-valid
 * generator, and the reports count findings per entry. Each entry names its ground: the spec's
 * words for that rule on that field (rendered by `wording.ts`), or the reading it exists under.
 */
import type { AssumptionName } from './assumptions.ts';
import type { ConstraintKind } from './constraints.ts';
import { ENDPOINTS, type Endpoint, type EndpointId } from './endpoints.ts';
import { CLAUSES, clauseGround, readingGround, type Ground, type SpecClause } from './grounds.ts';
import { CHARSETS, LIMITS, type CharsetName, type LimitName } from './limits.ts';
import { PATTERNS, type PatternName } from './patterns.ts';
import { childPath, itemPath, type Node, type ObjectNode } from './model.ts';
import { bodySentence, dataSentences, paramSentence, tableRows, type FieldWording } from './wording.ts';
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
  readonly assumption?: AssumptionName;
  /**
   * The spec's words this rule rests on: the field's row or sentence (`blob_ids | array of string |
   * yes | at most 2000 items`), 2.2's rule for a uuid. Under a reading (`assumption`), the words it reads.
   */
  readonly clause: SpecClause;
  /** What a finding about this rule rests on: the clause, or the reading when the rule exists only under one. */
  readonly ground: Ground;
  /** One line for reports. */
  readonly text: string;
  /** The node the rule sits on, for generators. */
  readonly node: Node;
  /** Whether the field may be null / absent (for generators of `not-null` and `required`). */
  readonly nullable: boolean;
  readonly required: boolean;
}

type Draft = Omit<Constraint, 'id' | 'endpoint' | 'scope' | 'node' | 'nullable' | 'required' | 'ground'>;

/** Which of a field's words state a rule of this kind: its presence and type, or its constraints column too. */
function clauseFor(kind: ConstraintKind, words: FieldWording): SpecClause {
  switch (kind) {
    case 'required':
    case 'not-null':
    case 'type':
    case 'integer':
      return words.head;
    case 'uuid':
      return CLAUSES.uuidForm;
    case 'calendar':
      return CLAUSES.usageDayIsUtcDay;
    case 'min':
    case 'max':
    case 'minLength':
    case 'maxLength':
    case 'charset':
    case 'pattern':
    case 'enum':
    case 'minItems':
    case 'maxItems':
      return words.full;
    default:
      return kind satisfies never;
  }
}

/** The rules that sit on one node, not counting presence and nullability. */
function nodeRules(node: Node, path: string, section: string, words: FieldWording): Draft[] {
  const out: Draft[] = [];
  const add = (kind: ConstraintKind, text: string, extra: Partial<Draft> = {}) => out.push({ kind, path, section, text, clause: clauseFor(kind, words), ...extra });
  switch (node.kind) {
    case 'string': {
      add('type', `${path} is a string`);
      if (node.length) {
        const l = LIMITS[node.length];
        if (l.min !== undefined && l.min > 0) add('minLength', l.text, { limit: node.length, section: l.sections[0] });
        if (l.max !== undefined) add('maxLength', l.text, { limit: node.length, section: l.sections[0] });
      }
      if (node.charset) add('charset', `${path}: ${CHARSETS[node.charset].text}`, { charset: node.charset });
      if (node.pattern) {
        const p = PATTERNS[node.pattern];
        add('pattern', `${path}: ${p.text}`, { pattern: node.pattern });
        if (p.calendarAssumption) add('calendar', `${path}: a UTC day`, { pattern: node.pattern, assumption: p.calendarAssumption });
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
        if (l.min !== undefined) add('min', l.text, { limit: node.range, section: l.sections[0] });
        if (l.max !== undefined) add('max', l.text, { limit: node.range, section: l.sections[0] });
      }
      break;
    }
    case 'boolean':
      add('type', `${path} is a boolean`);
      break;
    case 'enum':
      add('type', `${path} is a string`);
      // Listed values whose others are not shown (2.6's status, section 7): the rule holds only under that reading.
      add('enum', `${path}: one of ${node.values.join(', ')}`, { values: node.values, ...(node.othersNotShown ? { assumption: node.othersNotShown } : {}) });
      break;
    case 'array': {
      add('type', `${path} is an array`);
      if (node.count) {
        const l = LIMITS[node.count];
        if (l.min !== undefined && l.min > 0) add('minItems', l.text, { limit: node.count, section: l.sections[0] });
        if (l.max !== undefined) add('maxItems', l.text, { limit: node.count, section: l.sections[0] });
      }
      break;
    }
    case 'object':
      add('type', `${path || '(body)'} is an object`);
      break;
    default:
      return node satisfies never;
  }
  return out;
}

interface Walked extends Draft {
  node: Node;
  nullable: boolean;
  required: boolean;
}

/** How the fields of an object are worded in SPEC.md: rows of its table, or sentences. */
type Form = { readonly kind: 'table'; readonly prefix: string } | { readonly kind: 'data' };

function wordsOf(o: ObjectNode, form: Form): ReadonlyMap<string, FieldWording> {
  const rows = form.kind === 'data' ? dataSentences(o) : tableRows(o, form.prefix);
  const out = new Map(rows);
  for (const key of Object.keys(o.fields)) {
    const sentence = bodySentence(o, key);
    if (sentence) out.set(key, sentence);
  }
  return out;
}

/**
 * Walks a node and everything under it. `words` are the spec's words for the node itself; the
 * fields of an object get theirs from its table (or sentences): a nested object stated in the same
 * table is named by a dotted path (2.1's `meta.request_id`), the endpoint's `data` in sentences.
 */
function walk(
  node: Node,
  path: string,
  section: string,
  field: { nullable: boolean; required: boolean },
  words: FieldWording,
  ctx: { readonly data?: ObjectNode; readonly form: Form },
  out: Walked[],
): void {
  for (const d of nodeRules(node, path, section, words)) out.push({ ...d, node, ...field });
  if (node.kind === 'array') walk(node.items, itemPath(path), section, { nullable: false, required: true }, words, ctx, out);
  if (node.kind === 'object' && !node.freeForm) {
    const fieldWords = wordsOf(node, ctx.form);
    for (const [key, f] of Object.entries(node.fields)) {
      const p = childPath(path, key);
      // fieldWords is built from the same node's fields
      const w = fieldWords.get(key)!;
      if (f.required) out.push({ kind: 'required', path: p, section: f.section, text: `${p} is required`, clause: clauseFor('required', w), node: f.node, nullable: f.nullable, required: true });
      if (!f.nullable) out.push({ kind: 'not-null', path: p, section: f.section, text: `${p} is not nullable`, clause: clauseFor('not-null', w), node: f.node, nullable: false, required: f.required });
      const childForm: Form =
        f.node === ctx.data ? { kind: 'data' } : f.node.kind === 'object' && f.node.section === node.section && ctx.form.kind === 'table' ? { kind: 'table', prefix: `${ctx.form.prefix}${key}.` } : { kind: 'table', prefix: '' };
      walk(f.node, p, f.section, f, w, { ...ctx, form: childForm }, out);
    }
  }
}

const same = (c: SpecClause): FieldWording => ({ head: c, full: c });

function constraintsOf(e: Endpoint): Constraint[] {
  const out: Constraint[] = [];
  const push = (scope: Scope, items: Walked[]) => {
    for (const w of items) {
      const ground = w.assumption ? readingGround(w.assumption) : clauseGround(w.clause);
      out.push({ ...w, id: `${e.id}/${scope}/${w.path || '$'}#${w.kind}`, endpoint: e.id, scope, section: w.section || e.section, ground });
    }
  };
  const table: Form = { kind: 'table', prefix: '' };
  const params: Walked[] = [];
  for (const [name, node] of Object.entries(e.params)) walk(node, name, e.section, { nullable: false, required: true }, paramSentence(name, node, e.section), { form: table }, params);
  // A path parameter is a path segment: it cannot be absent, null or of another JSON type.
  push('params', params.filter((w) => w.kind !== 'type'));
  const body: Walked[] = [];
  walk(e.body, '', e.section, { nullable: false, required: true }, same(Object.freeze({ section: e.section, quote: 'Request body:' })), { form: table }, body);
  push('body', body);
  const response: Walked[] = [];
  walk(envelopeNode(e.data), '', '2.1', { nullable: false, required: true }, same(CLAUSES.envelopeFields), { data: e.data, form: table }, response);
  push('response', response);
  return out;
}

/** Every constraint of every endpoint, in catalogue order. */
export const INVENTORY: readonly Constraint[] = Object.freeze(ENDPOINTS.flatMap(constraintsOf));

export const CONSTRAINT_BY_ID: ReadonlyMap<string, Constraint> = new Map(INVENTORY.map((c) => [c.id, c]));

/** The request-side constraints: those a client can break and a server must enforce. */
export const REQUEST_CONSTRAINTS: readonly Constraint[] = INVENTORY.filter((c) => c.scope !== 'response');

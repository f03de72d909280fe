/**
 * The spec's own words for each field, rendered from the model: a table row (`blob_ids | array of
 * string | yes | at most 2000 items`) or a sentence (`` `data.stored` (integer, required, …) ``). A
 * constraint of the inventory quotes them as its ground, so a quote is never typed by hand: field
 * name, type and required column come from the node, bounds from `LIMITS`, alphabets from `CHARSETS`.
 * Where SPEC.md words a field irregularly (the roster's "in the revoke roster:", a prose body), the
 * exception is written here, next to the rule it departs from. `test/spec/grounds.test.ts` checks
 * every rendering against SPEC.md.
 */
import { reportUsage } from './endpoints.ts';
import type { SpecClause } from './grounds.ts';
import { CHARSETS, LIMITS, type CharsetName, type LimitName } from './limits.ts';
import { PATTERNS } from './patterns.ts';
import type { Node, ObjectNode } from './model.ts';
import { KeyEnvelope, OperationResult, PouchOperation, Roster, RosterKeyEnvelope, RosterStatement, Statement, UsageRow } from './resources.ts';

/** A field's words: `head` states its presence and type; `full` adds its constraints column. */
export interface FieldWording {
  readonly head: SpecClause;
  readonly full: SpecClause;
}

/** How the spec refers to each resource of section 2 by name ("array of Pouch operation (2.5)"). */
const TERMS: ReadonlyMap<ObjectNode, string> = new Map<ObjectNode, string>([
  [Statement, 'Statement'],
  [RosterStatement, 'Statement'],
  [KeyEnvelope, 'Key envelope'],
  [RosterKeyEnvelope, 'Key envelope'],
  [PouchOperation, 'Pouch operation'],
  [OperationResult, 'Operation result'],
  [UsageRow, 'Usage row'],
  [Roster, 'Roster'],
]);

/** Irregular: words the spec puts before a constraints column (the roster forms of 2.3 and 2.4, 2.8's default). */
const COLUMN_PREFIX: ReadonlyMap<ObjectNode, (key: string) => string> = new Map<ObjectNode, (key: string) => string>([
  [RosterStatement, () => 'in the revoke roster: '],
  [RosterKeyEnvelope, () => 'in the revoke roster: '],
  [Roster, (key) => (key === 'key_envelopes' ? 'default empty; ' : '')],
]);

const clause = (section: string, quote: string): SpecClause => Object.freeze({ section, quote });

/**
 * A field's type as the Type column writes it. References to a resource carry its section from
 * section 4 ("Statement (2.3)") but not inside section 2 ("array of Statement" in 2.8).
 */
export function typeWords(node: Node, nullable: boolean, from: string): string {
  const base = ((): string => {
    switch (node.kind) {
      case 'string':
      case 'enum':
        return 'string';
      case 'uuid':
        return 'string uuid';
      case 'integer':
        return 'integer';
      case 'boolean':
        return 'boolean';
      case 'array':
        return `array of ${typeWords(node.items, false, from)}`;
      case 'object': {
        const term = TERMS.get(node);
        if (!term) return 'object';
        return from.startsWith('2') ? term : `${term} (${node.section})`;
      }
      default:
        return node satisfies never;
    }
  })();
  return nullable ? `${base} or null` : base;
}

/** A bound in the spec's words: `1 to 50`, `at most 2000`, `exactly 43`. */
function boundWords(name: LimitName): string {
  const { min, max } = LIMITS[name];
  if (min !== undefined && min === max) return `exactly ${min}`;
  if (min !== undefined && max !== undefined) return `${min} to ${max}`;
  if (max !== undefined) return `at most ${max}`;
  return `at least ${min}`;
}

/** The characters of an alphabet as the spec lists them ("A-Z a-z 0-9 _ -"). */
const letters = (c: CharsetName): string => CHARSETS[c].text.replace(/^alphabet /, '');

/**
 * The constraints column of a table row. An alphabet after "at most N characters" is named once
 * per table ("alphabet A-Z …") and then "same alphabet"; after an exact or ranged length it follows
 * "of" ("exactly 43 characters of A-Z …").
 */
function columnWords(node: Node, named: Set<CharsetName>): string {
  switch (node.kind) {
    case 'string': {
      if (node.pattern) return `pattern ${PATTERNS[node.pattern].text}`;
      if (!node.length) return '';
      const bound = boundWords(node.length);
      const length = `${bound} characters`;
      if (!node.charset) return length;
      if (!bound.startsWith('at most')) return `${length} of ${letters(node.charset)}`;
      const first = !named.has(node.charset);
      named.add(node.charset);
      const empty = node.mayBeEmpty ? ' (may be empty)' : '';
      return `${first ? `${length}, alphabet ${letters(node.charset)}` : `${length}, same alphabet`}${empty}`;
    }
    case 'integer':
      return node.range ? boundWords(node.range) : '';
    case 'array':
      return node.count ? `${boundWords(node.count)} items` : '';
    case 'enum':
      return node.values.length === 1 ? `allowed value: ${node.values[0]}` : `one of ${node.values.join(', ')}`;
    case 'uuid':
    case 'boolean':
    case 'object':
      return '';
    default:
      return node satisfies never;
  }
}

/** The rows of an object's table: `key | type | yes | constraints`. `prefix` names nested rows (`meta.request_id`). */
export function tableRows(o: ObjectNode, prefix = ''): ReadonlyMap<string, FieldWording> {
  const named = new Set<CharsetName>();
  const out = new Map<string, FieldWording>();
  for (const [key, f] of Object.entries(o.fields)) {
    const head = `${prefix}${key} | ${typeWords(f.node, f.nullable, f.section)} | ${f.required ? 'yes' : 'no'}`;
    const column = columnWords(f.node, named);
    const full = column ? `${head} | ${COLUMN_PREFIX.get(o)?.(key) ?? ''}${column}` : head;
    out.set(key, { head: clause(f.section, head), full: clause(f.section, full) });
  }
  return out;
}

/**
 * The sentences of section 4 that state a success `data` field: `` `data.stored` (integer,
 * required, -9007199254740991 to 9007199254740991) ``; an array is "Response: envelope with
 * `data.results`, an array of …".
 */
export function dataSentences(o: ObjectNode): ReadonlyMap<string, FieldWording> {
  const out = new Map<string, FieldWording>();
  for (const [key, f] of Object.entries(o.fields)) {
    const type = typeWords(f.node, f.nullable, f.section);
    let head: string;
    let full: string;
    if (f.node.kind === 'array') {
      head = full = `Response: envelope with \`data.${key}\`, an ${type}`;
    } else {
      head = `\`data.${key}\` (${type}, ${f.required ? 'required' : 'optional'}`;
      const column = columnWords(f.node, new Set());
      full = column ? `${head}, ${column})` : `${head})`;
    }
    out.set(key, { head: clause(f.section, head), full: clause(f.section, full) });
  }
  return out;
}

/**
 * Irregular: 4.3 states its body in a sentence, not a table: "Request body: `rows`, required, array
 * of Usage row (2.7), at most 2000 items."
 */
export function bodySentence(o: ObjectNode, key: string): FieldWording | undefined {
  const f = o.fields[key];
  if (!f || o !== reportUsage.body) return undefined;
  const words = `\`${key}\`, required, ${typeWords(f.node, f.nullable, o.section)}${f.node.kind === 'array' && f.node.count ? `, ${boundWords(f.node.count)} items` : ''}`;
  return { head: clause(o.section, words), full: clause(o.section, words) };
}

/** The sentence of a path parameter: "`id` string uuid, required"; "`sourceId` string, required, exactly 32 lowercase hexadecimal characters". */
export function paramSentence(name: string, node: Node, section: string): FieldWording {
  const head = `\`${name}\` ${typeWords(node, false, section)}, required`;
  let column = '';
  if (node.kind === 'string' && node.length) {
    column = `${boundWords(node.length)} ${node.charset ? `${CHARSETS[node.charset].text} ` : ''}characters`;
  }
  return { head: clause(section, head), full: clause(section, column ? `${head}, ${column}` : head) };
}

/**
 * The spec as data. Each resource of section 2 and each body of section 4 is a tree of nodes that
 * name their constraints by reference (a limit, a charset, a pattern) instead of restating them.
 * zod schemas (`zod.ts`), the constraint inventory (`inventory.ts`) and every generator in
 * `src/gen/` are derived from these trees, so there is exactly one place where a rule lives.
 */
import type { CharsetName, LimitName, PatternName } from './limits.ts';

export interface StringNode {
  readonly kind: 'string';
  readonly length?: LimitName;
  readonly charset?: CharsetName;
  readonly pattern?: PatternName;
}
export interface UuidNode {
  readonly kind: 'uuid';
}
export interface IntegerNode {
  readonly kind: 'integer';
  /** Absent: the spec states no bound (generators stay inside the JSON-safe range, assumption `integers-json-safe`). */
  readonly range?: LimitName;
}
export interface BooleanNode {
  readonly kind: 'boolean';
}
export interface EnumNode {
  readonly kind: 'enum';
  readonly values: readonly string[];
}
export interface ArrayNode {
  readonly kind: 'array';
  readonly items: Node;
  readonly count?: LimitName;
}
export interface Field {
  readonly node: Node;
  readonly required: boolean;
  readonly nullable: boolean;
  readonly section: string;
}
export interface ObjectNode {
  readonly kind: 'object';
  /** A stable name for reports ("PouchOperation", "commit body"). */
  readonly name: string;
  readonly section: string;
  readonly fields: Readonly<Record<string, Field>>;
  /** Free-form: any properties at all (4.4 `response`, a `data` whose content is not shown). */
  readonly freeForm?: boolean;
}

export type Node = StringNode | UuidNode | IntegerNode | BooleanNode | EnumNode | ArrayNode | ObjectNode;

// Builders keep the resource files close to the spec's tables.
export const str = (opts: Omit<StringNode, 'kind'> = {}): StringNode => ({ kind: 'string', ...opts });
export const uuid = (): UuidNode => ({ kind: 'uuid' });
export const int = (range?: LimitName): IntegerNode => (range ? { kind: 'integer', range } : { kind: 'integer' });
export const bool = (): BooleanNode => ({ kind: 'boolean' });
export const oneOf = (values: readonly string[]): EnumNode => ({ kind: 'enum', values });
export const arr = (items: Node, count?: LimitName): ArrayNode => (count ? { kind: 'array', items, count } : { kind: 'array', items });

type FieldOpts = { optional?: boolean; nullable?: boolean };

/** Declares an object's fields in table order; `section` applies to every field. */
export function obj(
  name: string,
  section: string,
  fields: Record<string, Node | [Node, FieldOpts]>,
  extra: { freeForm?: boolean } = {},
): ObjectNode {
  const out: Record<string, Field> = {};
  for (const [key, spec] of Object.entries(fields)) {
    const [node, opts] = Array.isArray(spec) ? spec : [spec, {}];
    out[key] = Object.freeze({ node, required: !opts.optional, nullable: !!opts.nullable, section });
  }
  return Object.freeze({ kind: 'object', name, section, fields: Object.freeze(out), ...extra });
}

export const optional = (node: Node): [Node, FieldOpts] => [node, { optional: true }];
export const nullable = (node: Node): [Node, FieldOpts] => [node, { nullable: true }];
export const optionalNullable = (node: Node): [Node, FieldOpts] => [node, { optional: true, nullable: true }];

/** A free-form object: any properties (4.4 `response`, `data` of 4.4). */
export const anyObject = (name: string, section: string): ObjectNode => obj(name, section, {}, { freeForm: true });

/** JSON paths as the inventory writes them: `ops[].envelope`, `roster.statements[]`. */
export function childPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}
export function itemPath(parent: string): string {
  return `${parent}[]`;
}

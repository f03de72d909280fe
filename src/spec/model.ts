/**
 * The spec as data. Each resource of section 2 and each body of section 4 is a tree of nodes that
 * name their constraints by reference (a limit, a charset, a pattern) instead of restating them.
 * zod schemas (`zod.ts`), the constraint inventory (`inventory.ts`) and every generator in
 * `src/gen/` are derived from these trees, so there is exactly one place where a rule lives.
 *
 * The builders keep their types: `obj(…)` returns an `ObjectNode` whose fields are typed one by
 * one, so `Infer<typeof PouchOperation>` is the TypeScript type of a valid pouch operation, read
 * off the same tree the schemas and generators walk (as `z.infer` reads a zod schema).
 */
import type { AssumptionName, ReadingOf } from './assumptions.ts';
import type { CharsetName, LimitName } from './limits.ts';
import type { PatternName } from './patterns.ts';

/**
 * Identity on a live target. A shared target must never see an id a previous run used, so the
 * runner renews these before sending (`src/gen/fresh.ts`): `mint` — the field names a new thing
 * (an operation, an artifact, a revision, a source) and gets a fresh value of its own form;
 * `follow` — the field refers to an id of the same request (a base revision) and is renamed with it.
 */
export type Freshness = 'mint' | 'follow';

/**
 * A path parameter that names something only the profile can list under one reading of the
 * registry (a pouch under `pouch-existence`=`must-exist`): then the runner picks a listed id
 * instead of a generated one. `list` names the kind of thing listed; the profile maps it to its list.
 */
export type ListedUnder = {
  readonly [N in AssumptionName]: { readonly assumption: N; readonly reading: ReadingOf<N>; readonly list: ListedKind };
}[AssumptionName];

/** What a profile lists: pouches, pending cli-auth requests, browser members. */
export type ListedKind = 'pouch' | 'cli-request' | 'browser';

export interface StringNode {
  readonly kind: 'string';
  readonly length?: LimitName;
  readonly charset?: CharsetName;
  readonly pattern?: PatternName;
  /** Minted fresh on a live target; needs a `charset` to mint from (a `sourceId`). */
  readonly fresh?: Freshness;
  /** The spec says in so many words that the empty string is valid (2.5's envelope: "(may be empty)"). */
  readonly mayBeEmpty?: true;
}
export interface UuidNode {
  readonly kind: 'uuid';
  readonly fresh?: Freshness;
  readonly listedUnder?: ListedUnder;
}
export interface IntegerNode {
  readonly kind: 'integer';
  /** Absent: the spec states no bound (generators stay inside the JSON-safe range, assumption `integers-json-safe`). */
  readonly range?: LimitName;
}
export interface BooleanNode {
  readonly kind: 'boolean';
}
export interface EnumNode<V extends string = string> {
  readonly kind: 'enum';
  readonly values: readonly V[];
  /**
   * The values are the only ones listed, and the spec says others are not shown (section 7: "Result
   * statuses other than applied … not shown"): the reading that decides whether a server sends
   * others. Schemas and generators keep to the listed values (its default reading); a document
   * meant for other tools leaves the value open.
   */
  readonly othersNotShown?: AssumptionName;
}
export interface ArrayNode<I extends Node = Node> {
  readonly kind: 'array';
  readonly items: I;
  readonly count?: LimitName;
  /**
   * The items are operations that make sense to a server only as revision chains, under this
   * reading (`op-semantics`): generators rewrite a valid batch so each artifact's ops chain.
   */
  readonly chain?: AssumptionName;
}
export interface Field<N extends Node = Node, R extends boolean = boolean, U extends boolean = boolean> {
  readonly node: N;
  readonly required: R;
  readonly nullable: U;
  readonly section: string;
}
/** An object's fields by name. Any string indexes it (wide code walks fields by `Object.keys`). */
export type Fields = Readonly<Record<string, Field>>;

export interface ObjectNode<F extends Fields = Fields> {
  readonly kind: 'object';
  /** A stable name for reports ("PouchOperation", "commit body"). */
  readonly name: string;
  readonly section: string;
  /** Typed per field for the literal keys; indexable by any string for code that walks the model. */
  readonly fields: F & Fields;
  /** Free-form: any properties at all (4.4 `response`, a `data` whose content is not shown). */
  readonly freeForm?: boolean;
}
/** A free-form object: its value is any JSON object. */
// biome-ignore lint/complexity/noBannedTypes: no declared fields at all is what `{}` says here (the inferred type stays Record<string, unknown>)
export interface FreeFormNode extends ObjectNode<{}> {
  readonly freeForm: true;
}

export type Node = StringNode | UuidNode | IntegerNode | BooleanNode | EnumNode | ArrayNode | ObjectNode;
export type NodeKind = Node['kind'];

/** `{ a: X; b?: Y }` displayed as one object type. */
type Flatten<T> = { [K in keyof T]: T[K] } & {};

type FieldValue<F extends Field> = F['nullable'] extends true ? Infer<F['node']> | null : Infer<F['node']>;
type RequiredKeys<F extends Fields> = { [K in keyof F]: F[K]['required'] extends true ? K : never }[keyof F];
type OptionalKeys<F extends Fields> = Exclude<keyof F, RequiredKeys<F>>;

type InferObject<F extends Fields> = string extends keyof F
  ? Record<string, unknown>
  : Flatten<{ -readonly [K in RequiredKeys<F>]: FieldValue<F[K]> } & { -readonly [K in OptionalKeys<F>]?: FieldValue<F[K]> }>;

/**
 * The TypeScript type of a JSON value valid against node `N`: required, optional (`?`) and nullable
 * (`| null`) fields as the tables state them; uuid and string → `string`, integer → `number`, enum →
 * the union of its values, free-form objects → `Record<string, unknown>`. Unknown fields are accepted
 * at run time (assumption `unknown-fields-ignored`) but are not part of the type. The wide `Node`
 * infers `unknown`: nothing is known of a node whose kind is not known.
 */
export type Infer<N extends Node> = [Node] extends [N]
  ? unknown
  : N extends FreeFormNode
    ? Record<string, unknown>
    : N extends ObjectNode<infer F>
      ? InferObject<F>
      : N extends ArrayNode<infer I>
        ? Infer<I>[]
        : N extends EnumNode<infer V>
          ? V
          : N extends BooleanNode
            ? boolean
            : N extends IntegerNode
              ? number
              : string;

// Builders keep the resource files close to the spec's tables.
export const str = (opts: Omit<StringNode, 'kind'> = {}): StringNode => ({ kind: 'string', ...opts });
export const uuid = (opts: Omit<UuidNode, 'kind'> = {}): UuidNode => ({ kind: 'uuid', ...opts });
export const int = (range?: LimitName): IntegerNode => (range ? { kind: 'integer', range } : { kind: 'integer' });
export const bool = (): BooleanNode => ({ kind: 'boolean' });
export const oneOf = <const V extends string>(values: readonly V[], opts: { readonly othersNotShown?: AssumptionName } = {}): EnumNode<V> => ({
  kind: 'enum',
  values,
  ...opts,
});
export const arr = <I extends Node>(items: I, count?: LimitName, opts: { readonly chain?: AssumptionName } = {}): ArrayNode<I> => ({
  kind: 'array',
  items,
  ...(count ? { count } : {}),
  ...opts,
});

export interface FieldOpts<R extends boolean = boolean, U extends boolean = boolean> {
  readonly required: R;
  readonly nullable: U;
}
/** A field declaration: a bare node (required, not nullable) or a node with its presence rules. */
type FieldSpec = Node | readonly [Node, FieldOpts];
type FieldOf<S extends FieldSpec> = S extends readonly [infer N extends Node, FieldOpts<infer R, infer U>]
  ? Field<N, R, U>
  : S extends Node
    ? Field<S, true, false>
    : never;
/** The typed fields `obj` builds from its declarations. */
export type FieldsOf<S extends Readonly<Record<string, FieldSpec>>> = { readonly [K in keyof S]: FieldOf<S[K]> };

/** A [node, options] pair, told from a bare node: a node is an object, never an array. */
const isFieldPair = (spec: FieldSpec): spec is readonly [Node, FieldOpts] => Array.isArray(spec);

/** Declares an object's fields in table order; `section` applies to every field. */
export function obj<const S extends Readonly<Record<string, FieldSpec>>>(name: string, section: string, fields: S): ObjectNode<FieldsOf<S>> {
  const out: Record<string, Field> = {};
  const specs: [string, FieldSpec][] = Object.entries(fields);
  for (const [key, spec] of specs) {
    const [node, opts]: readonly [Node, FieldOpts] = isFieldPair(spec) ? spec : [spec, { required: true, nullable: false }];
    out[key] = Object.freeze({ node, required: opts.required, nullable: opts.nullable, section });
  }
  // out holds exactly the fields of S, built from them in the loop above
  return Object.freeze({ kind: 'object', name, section, fields: Object.freeze(out) as FieldsOf<S> & Fields });
}

export const optional = <N extends Node>(node: N): readonly [N, FieldOpts<false, false>] => [node, { required: false, nullable: false }];
export const nullable = <N extends Node>(node: N): readonly [N, FieldOpts<true, true>] => [node, { required: true, nullable: true }];
export const optionalNullable = <N extends Node>(node: N): readonly [N, FieldOpts<false, true>] => [node, { required: false, nullable: true }];

/** A free-form object: any properties (4.4 `response`, `data` of 4.4). */
export const anyObject = (name: string, section: string): FreeFormNode =>
  Object.freeze({ kind: 'object', name, section, fields: Object.freeze({}), freeForm: true });

/** JSON paths as the inventory writes them: `ops[].envelope`, `roster.statements[]`. */
export function childPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}
export function itemPath(parent: string): string {
  return `${parent}[]`;
}

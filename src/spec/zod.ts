/**
 * zod schemas derived from the model. Every failure is reported with a `ConstraintKind` as its
 * message, so `issuesOf` can say exactly which constraints a value breaks and where.
 */
import { z } from 'zod';
import type { ConstraintKind } from './constraints.ts';
import { templatePath } from './constraints.ts';
import { CHARSETS, LIMITS, charsetSource, codePointLength, type LimitName } from './limits.ts';
import { PATTERNS } from './patterns.ts';
import { mapTable } from './narrow.ts';
import type { Endpoint, EndpointId, EndpointOf } from './endpoints.ts';
import type { Infer, Node, ObjectNode } from './model.ts';
import { obj, bool } from './model.ts';
import { ResponseMeta } from './resources.ts';

/** Readings of "not shown" that change what a schema accepts (see the assumption registry). */
export interface SchemaOptions {
  /** `day-calendar-valid`: a day must also be a real calendar day. */
  readonly calendarDays?: boolean;
  /** `characters-are-code-points`: how string lengths are counted. */
  readonly lengthUnit?: 'codepoints' | 'utf16';
}

export const DEFAULT_SCHEMA_OPTIONS: Required<SchemaOptions> = { calendarDays: true, lengthUnit: 'codepoints' };

const typeError = (iss: { input?: unknown }): ConstraintKind =>
  iss.input === undefined ? 'required' : iss.input === null ? 'not-null' : 'type';
const enumError = (iss: { input?: unknown }): ConstraintKind => (typeof iss.input === 'string' ? 'enum' : typeError(iss));

const charsetRegex = mapTable(CHARSETS, (_, name) => new RegExp(charsetSource(name)));

/** True when `day` (already matching the pattern) names a real calendar day. */
export function isCalendarDay(day: string): boolean {
  const [y, m, d] = day.split('-').map(Number);
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

function lengthOf(s: string, opts: Required<SchemaOptions>): number {
  return opts.lengthUnit === 'codepoints' ? codePointLength(s) : s.length;
}

function bounds(name: LimitName | undefined): { min?: number; max?: number } {
  return name ? LIMITS[name] : {};
}

/**
 * The zod schema of a node: parses exactly the values `Infer<N>` describes (unknown fields are kept
 * at run time, assumption `unknown-fields-ignored`, but are not part of the type).
 */
export type ZodOf<N extends Node> = z.ZodType<Infer<N>>;

/** The zod schema of one model node; `z.infer` of it is `Infer<N>`. */
export function toZod<N extends Node>(node: N, options: SchemaOptions = {}): ZodOf<N> {
  // The node's kind is only known at run time, so the typed result is asserted once, here; the
  // type tests (test/spec/types.test.ts) and the schema corpus check the two agree.
  return build(node, { ...DEFAULT_SCHEMA_OPTIONS, ...options }) as ZodOf<N>;
}

function build(node: Node, opts: Required<SchemaOptions>): z.ZodType {
  switch (node.kind) {
    case 'string': {
      let s: z.ZodType<string> = z.string({ error: typeError });
      const { min, max } = bounds(node.length);
      if (min !== undefined && min > 0) s = s.refine((v) => lengthOf(v, opts) >= min, { message: 'minLength' });
      if (max !== undefined) s = s.refine((v) => lengthOf(v, opts) <= max, { message: 'maxLength' });
      if (node.charset) {
        const re = charsetRegex[node.charset];
        s = s.refine((v) => re.test(v), { message: 'charset' });
      }
      if (node.pattern) {
        const { regex: re, calendarAssumption } = PATTERNS[node.pattern];
        s = s.refine((v) => re.test(v), { message: 'pattern' });
        if (calendarAssumption && opts.calendarDays) {
          s = s.refine((v) => !re.test(v) || isCalendarDay(v), { message: 'calendar' });
        }
      }
      return s;
    }
    case 'uuid':
      return z.string({ error: typeError }).refine((v) => PATTERNS.uuid.regex.test(v), { message: 'uuid' });
    case 'integer': {
      let n: z.ZodType<number> = z.number({ error: typeError }).refine(Number.isInteger, { message: 'integer', abort: true });
      const { min, max } = bounds(node.range);
      if (min !== undefined) n = n.refine((v) => v >= min, { message: 'min' });
      if (max !== undefined) n = n.refine((v) => v <= max, { message: 'max' });
      return n;
    }
    case 'boolean':
      return z.boolean({ error: typeError });
    case 'enum':
      return z.enum(node.values, { error: enumError });
    case 'array': {
      let a: z.ZodType<unknown[]> = z.array(build(node.items, opts), { error: typeError });
      const { min, max } = bounds(node.count);
      if (min !== undefined && min > 0) a = a.refine((v) => v.length >= min, { message: 'minItems' });
      if (max !== undefined) a = a.refine((v) => v.length <= max, { message: 'maxItems' });
      return a;
    }
    case 'object': {
      // Each object schema carries its spec section and name, for tools that read zod metadata.
      const meta = { title: node.name, description: `SPEC.md section ${node.section}` };
      if (node.freeForm) return z.record(z.string(), z.unknown(), { error: typeError }).meta(meta);
      const shape: Record<string, z.ZodType> = {};
      for (const [key, field] of Object.entries(node.fields)) {
        let f = build(field.node, opts);
        if (field.nullable) f = f.nullable();
        if (!field.required) f = f.optional();
        shape[key] = f;
      }
      // Unknown fields are accepted and kept (assumption `unknown-fields-ignored`).
      return z.looseObject(shape, { error: typeError }).meta(meta);
    }
    default:
      return node satisfies never;
  }
}

/** 2.1: the common response envelope around an endpoint's `data`. */
export function envelopeNode<D extends ObjectNode>(data: D) {
  return obj('envelope', '2.1', { ok: bool(), data, meta: ResponseMeta });
}
export type EnvelopeNode<D extends ObjectNode> = ReturnType<typeof envelopeNode<D>>;
/** A success response of an endpoint: the 2.1 envelope around its `data`. */
export type EndpointResponse<Id extends EndpointId> = Infer<EnvelopeNode<EndpointOf<Id>['data']>>;

export interface SchemaIssue {
  readonly kind: ConstraintKind;
  /** Template path, `ops[].envelope`. */
  readonly path: string;
  /** Concrete path, `['ops', 3, 'envelope']`. */
  readonly at: readonly PropertyKey[];
}

/** Every constraint a value breaks, as (kind, path). Empty when the value is valid. */
export function issuesOf(schema: z.ZodType, value: unknown): SchemaIssue[] {
  const r = schema.safeParse(value);
  if (r.success) return [];
  // every error function of build() answers a ConstraintKind as the issue's message
  return r.error.issues.map((i) => ({ kind: i.message as ConstraintKind, path: templatePath(i.path), at: i.path }));
}

/** Compiled schemas of one endpoint, built once; typed by the endpoint's nodes. */
export interface EndpointSchemas<E extends Endpoint = Endpoint> {
  readonly params: Readonly<Record<string, z.ZodType>>;
  readonly body: ZodOf<E['body']>;
  readonly data: ZodOf<E['data']>;
  readonly envelope: ZodOf<EnvelopeNode<E['data']>>;
}

/** Keyed by endpoint id and options; each entry was built from that endpoint, so it has its types. */
const cache = new Map<string, unknown>();

export function schemasOf<E extends Endpoint>(e: E, options: SchemaOptions = {}): EndpointSchemas<E> {
  const key = `${e.id}|${JSON.stringify({ ...DEFAULT_SCHEMA_OPTIONS, ...options })}`;
  // each entry was built from the endpoint its key names (see the cache's comment)
  const cached = cache.get(key) as EndpointSchemas<E> | undefined;
  if (cached) return cached;
  const s: EndpointSchemas<E> = Object.freeze({
    params: Object.freeze(Object.fromEntries(Object.entries(e.params).map(([k, n]) => [k, toZod(n, options)]))),
    body: toZod<E['body']>(e.body, options),
    data: toZod<E['data']>(e.data, options),
    envelope: toZod<EnvelopeNode<E['data']>>(envelopeNode<E['data']>(e.data), options),
  });
  cache.set(key, s);
  return s;
}

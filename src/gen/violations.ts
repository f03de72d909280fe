/**
 * Violations: for every request constraint of the inventory, generators of a whole request that
 * is valid except for exactly that one constraint at one location. Each case carries a label
 * (constraint id, spec section, concrete JSON path, variant) so a runner can say precisely which
 * rule a target failed to enforce, and `breaksOnlyItsLabel` re-checks a case after shrinking.
 */
import fc from 'fast-check';
import {
  CHARSETS,
  CONSTRAINT_BY_ID,
  REQUEST_CONSTRAINTS,
  must,
  type AssumptionName,
  type Constraint,
  type ConstraintKind,
  type EndpointId,
  type Node,
  type PatternName,
  type SchemaOptions,
  type Scope,
} from '../spec/index.ts';
import { countBounds, integerBounds, lengthBounds, maxCountOf, maxLengthOf, stringOfLength } from './arbitrary.ts';
import { editedRequest, fillerItems, type Edit, type Filler } from './body.ts';
import { affectsCoherence } from './coherence.ts';
import { anyYear, commonYear, formatDay, randomDay } from './days.ts';
import { requestIssues } from './issues.ts';
import { getAt, withAt, type Json, type Params, type RequestSample } from './json.ts';
import { alphabetString } from './strings.ts';
import { applyCase, hyphenate, VARIANT_INDEX, VERSION_INDEX, versionedUuid } from './uuid.ts';

export interface ViolationLabel {
  /** `Constraint.id` of the inventory. */
  readonly constraintId: string;
  readonly endpoint: EndpointId;
  /** `response` only for the response-side cases of `responses.ts`. */
  readonly scope: Scope;
  readonly kind: ConstraintKind;
  readonly section: string;
  /** Concrete location: `$.ops[3].envelope`, or the path parameter's name. */
  readonly path: string;
  /** The inventory's template path (`ops[].envelope`). */
  readonly template: string;
  /** How it is broken: `max+1`, `char:+`, `uuid:version-0`, `missing`, `null`, `type:array`… */
  readonly variant: string;
  /** Set when the constraint holds only under a registry assumption (`day-calendar-valid`). */
  readonly assumption?: AssumptionName;
  /** The spec's `alsoBreaks`: the one other kind of issue the case may raise, at the same place. */
  readonly alsoBreaks?: ConstraintKind;
  readonly description: string;
}

export interface ViolationCase {
  readonly label: ViolationLabel;
  readonly params: Params;
  readonly body: Json;
  /**
   * The minimal pair: the same request with that one constraint met (the location as it was before
   * it was broken; null in place of a required-but-nullable field left out). A refusal of the case
   * shows the constraint enforced only when its twin is accepted.
   */
  readonly twin?: RequestSample;
}

/** A violation's twin: the request before the break; for a required-but-nullable field left out, null in its place (where null is served). */
function twinOf(c: Constraint, s: ViolationSpec, r: { readonly body: Json; readonly at: readonly (string | number)[]; readonly twin: RequestSample }): RequestSample {
  if (c.kind === 'required' && c.nullable && c.scope === 'body' && s.variant === 'missing') return { params: r.twin.params, body: withAt(r.body, r.at, null) };
  // One item too many of a chained array: the pair is the same batch without its last op (a chain's prefix is a chain).
  const items = c.kind === 'maxItems' && affectsCoherence(c.endpoint, c.path) ? getAt(r.body, r.at) : undefined;
  if (Array.isArray(items)) return { params: r.twin.params, body: withAt(r.body, r.at, items.slice(0, -1)) };
  return r.twin;
}

/** One way to break a constraint. */
export interface ViolationSpec {
  readonly variant: string;
  /** What the bad value is, for the label's description. */
  readonly what: string;
  readonly edit: fc.Arbitrary<Edit>;
  /** A second kind the value breaks at the same place, where one clause of the spec states both (see `trailingNewline`). */
  readonly alsoBreaks?: ConstraintKind;
}

const set = (a: fc.Arbitrary<Json>): fc.Arbitrary<Edit> => a.map((v) => ({ set: v }));
const constant = (v: Json): fc.Arbitrary<Edit> => fc.constant({ set: v });

/** Wrong JSON types for a node: never null (that is `not-null`), never the node's own type. */
function typeSpecs(node: Node, root: boolean): ViolationSpec[] {
  const t = (variant: string, what: string, v: Json): ViolationSpec => ({ variant, what, edit: constant(v) });
  const kind = root ? 'object' : node.kind;
  switch (kind) {
    case 'string':
    case 'uuid':
    case 'enum':
      return [t('type:number', 'a number', 42), t('type:boolean', 'a boolean', true), t('type:array', 'an array', []), t('type:object', 'an object', {})];
    case 'integer': {
      const { lo, hi } = node.kind === 'integer' ? integerBounds(node) : { lo: 0, hi: 0 };
      const n = Math.min(Math.max(1, lo), hi);
      return [
        { variant: 'number-as-string', what: 'a number written as a string', edit: constant(String(n)) },
        t('type:boolean', 'a boolean', true),
        t('type:array', 'an array', []),
        t('type:object', 'an object', {}),
      ];
    }
    case 'boolean':
      return [t('type:string', 'a string', 'true'), t('type:number', 'a number', 1)];
    case 'array':
      return [t('type:object', 'an object', {}), t('type:string', 'a string', 'x')];
    case 'object':
      return [t('type:array', 'an array', []), t('type:string', 'a string', 'x'), t('type:number', 'a number', 1)];
    default:
      return kind satisfies never;
  }
}

function stringNode(c: Constraint): Extract<Node, { kind: 'string' }> {
  if (c.node.kind !== 'string') throw new Error(`${c.id}: not a string node`);
  return c.node;
}

/** Characters to try against an alphabet; each becomes a variant when the alphabet excludes it. */
const FORBIDDEN: readonly [string, string][] = [
  ['+', 'char:+'],
  ['/', 'char:/'],
  ['=', 'char:='],
  [' ', 'char:space'],
  ['\u00e9', 'char:non-ascii'],
  ['\u{1F600}', 'char:astral'],
  ['A', 'char:upper'],
  ['_', 'char:_'],
  ['g', 'char:g'],
  ['.', 'char:.'],
  ['-', 'char:-'],
  // What a `^…$` pattern that is not anchored to the whole string (or uses `\s`-lenient trimming) lets through.
  ['\n', 'char:newline'],
  // Between `Z` and `a`: what a class written `[A-z]` lets through besides `_`.
  ['`', 'char:backtick'],
  ['^', 'char:caret'],
  ['\\', 'char:backslash'],
];

function charsetSpecs(c: Constraint): ViolationSpec[] {
  const node = stringNode(c);
  const chars = CHARSETS[must(c.charset, `${c.id}: a charset constraint names its charset`)].chars;
  const { lo, hi } = lengthBounds(node);
  const from = Math.max(lo, 1);
  const to = Math.min(hi ?? from + 16, from + 16);
  const inside = FORBIDDEN.filter(([ch]) => !chars.includes(ch)).map(([ch, variant]) => ({
    variant,
    what: `a string holding ${JSON.stringify(ch)}`,
    edit: set(
      fc
        .record({ len: fc.integer({ min: from, max: to }), pos: fc.nat() })
        .chain(({ len, pos }) =>
          alphabetString(chars, len).map((s) => {
            const i = pos % len;
            return s.slice(0, i) + ch + s.slice(i + 1);
          }),
        ),
    ),
  }));
  return [...inside, ...trailingNewline(chars, lo, hi, from, to)];
}

/**
 * The newline last: what a `$` that matches before a final newline (Python's re, PCRE) lets through.
 * The length stays within the bounds where it can; a field of one exact length ("exactly 32 lowercase
 * hexadecimal characters") is one clause, and only the full length then a newline gets past `^…{32}$`.
 */
function trailingNewline(chars: string, lo: number, hi: number | undefined, from: number, to: number): ViolationSpec[] {
  const variant = 'char:trailing-newline';
  if (hi !== undefined && lo === hi) {
    return [{ variant, alsoBreaks: 'maxLength', what: `a string of the alphabet, its exact length (${lo}), followed by a newline`, edit: set(alphabetString(chars, lo).map((s) => `${s}\n`)) }];
  }
  const last = Math.max(from, 2);
  if (last > to) return [];
  return [{ variant, what: 'a string of the alphabet followed by a newline', edit: set(fc.integer({ min: last, max: to }).chain((len) => alphabetString(chars, len - 1).map((s) => `${s}\n`))) }];
}

function dayPatternSpecs(): ViolationSpec[] {
  const d = (variant: string, what: string, f: (day: string) => string): ViolationSpec => ({ variant, what, edit: set(randomDay.map(f)) });
  return [
    d('day:year-19', 'a year not beginning 20', (s) => '19' + s.slice(2)),
    d('day:year-21', 'a year beginning 21', (s) => '21' + s.slice(2)),
    {
      variant: 'day:one-digit-month',
      what: 'a month of one digit',
      edit: set(fc.tuple(anyYear, fc.integer({ min: 1, max: 9 }), fc.integer({ min: 10, max: 28 })).map(([y, m, dd]) => `${y}-${m}-${dd}`)),
    },
    d('day:slashes', 'slashes instead of hyphens', (s) => s.replaceAll('-', '/')),
    d('day:datetime', 'a date-time instead of a day', (s) => `${s}T00:00:00Z`),
    d('day:compact', 'no hyphens', (s) => s.replaceAll('-', '')),
    d('day:trailing-space', 'a trailing space', (s) => `${s} `),
    d('day:trailing-newline', 'a trailing newline (what a `$` matching before a final newline lets through)', (s) => `${s}\n`),
    d('day:non-ascii-digit', 'an Arabic-Indic digit', (s) => s.slice(0, -1) + '\u0661'),
    { variant: 'day:empty', what: 'the empty string', edit: constant('') },
  ];
}

function calendarSpecs(): ViolationSpec[] {
  const y = (variant: string, what: string, f: (year: number) => string, years = anyYear): ViolationSpec => ({ variant, what, edit: set(years.map(f)) });
  return [
    y('day:feb-30', 'February 30', (yr) => formatDay(yr, 2, 30)),
    y('day:feb-29-common-year', 'February 29 of a common year', (yr) => formatDay(yr, 2, 29), commonYear),
    y('day:apr-31', 'April 31', (yr) => formatDay(yr, 4, 31)),
    y('day:month-13', 'month 13', (yr) => formatDay(yr, 13, 1)),
    y('day:month-00', 'month 00', (yr) => formatDay(yr, 0, 1)),
    y('day:day-00', 'day 00', (yr) => formatDay(yr, 1, 0)),
    y('day:day-32', 'day 32', (yr) => formatDay(yr, 1, 32)),
  ];
}

function uuidSpecs(): ViolationSpec[] {
  const digit = (index: number, d: string) => (u: string) => {
    const hex = u.replaceAll('-', '').split('');
    hex[index] = d;
    return hyphenate(hex.join(''));
  };
  const u = (variant: string, what: string, f: (u: string) => string): ViolationSpec => ({
    variant,
    what,
    edit: set(fc.tuple(versionedUuid, fc.constantFrom('lower', 'upper', 'mixed' as const)).map(([x, form]) => f(applyCase(x, form)))),
  });
  return [
    ...['0', '9', 'f'].map((d) => u(`uuid:version-${d}`, `version digit ${d}`, digit(VERSION_INDEX, d))),
    ...[...'01234567cdef'].map((d) => u(`uuid:variant-${d}`, `variant digit ${d}`, digit(VARIANT_INDEX, d))),
    u('uuid:no-hyphens', 'no hyphens', (x) => x.replaceAll('-', '')),
    u('uuid:braces', 'braces around it', (x) => `{${x}}`),
    u('uuid:urn', 'a urn:uuid: prefix', (x) => `urn:uuid:${x}`),
    u('uuid:short', 'one digit short', (x) => x.slice(0, -1)),
    u('uuid:long', 'one digit too many', (x) => `${x}0`),
    u('uuid:non-hex', 'a non-hex digit', (x) => `${x.slice(0, -1)}g`),
    u('uuid:whitespace', 'surrounding whitespace', (x) => ` ${x}`),
    u('uuid:trailing-newline', 'a trailing newline (what a `$` matching before a final newline lets through)', (x) => `${x}\n`),
    { variant: 'uuid:empty', what: 'the empty string', edit: constant('') },
  ];
}

/** Ways to break each structured format. */
const PATTERN_VIOLATIONS: { readonly [P in PatternName]: () => ViolationSpec[] } = { uuid: uuidSpecs, day: dayPatternSpecs };

function enumSpecs(c: Constraint): ViolationSpec[] {
  const values = c.values ?? [];
  const out: ViolationSpec[] = [];
  const unknown = must(['frobnicate', 'unknown', 'x'].find((v) => !values.includes(v)), `${c.id}: no enum of the spec holds all of frobnicate, unknown and x`);
  out.push({ variant: 'enum:unknown', what: `"${unknown}"`, edit: constant(unknown) });
  // The drawn value itself in upper case ("CREATE" for a create): another value in upper case may be refused for what it means.
  if (values.some((v) => !values.includes(v.toUpperCase()))) out.push({ variant: 'enum:case', what: 'its own value in upper case', edit: fc.constant({ upper: true } as const) });
  if (!values.includes('')) out.push({ variant: 'enum:empty', what: 'the empty string', edit: constant('') });
  out.push({ variant: 'enum:padded', what: 'an allowed value with a space', edit: set(fc.constantFrom(...values).map((v) => ` ${v}`)) });
  return out;
}

function itemsEdit(c: Constraint, n: number, filler?: Filler): fc.Arbitrary<Edit> {
  return set(fillerItems(c, n, filler));
}

/** The field left out, and for a body field also sent under its name in upper case. */
function requiredSpecs(c: Constraint): ViolationSpec[] {
  const missing: ViolationSpec = { variant: 'missing', what: 'the field left out', edit: fc.constant({ remove: true } as const) };
  const name = c.path.slice(c.path.lastIndexOf('.') + 1).replace(/\[\]$/, '');
  // Its value under the same name in upper case: the field is still missing, to all but a binder matching names without case (Go's encoding/json).
  if (c.scope !== 'body' || name === '' || name.toUpperCase() === name) return [missing];
  return [missing, { variant: 'missing:case-twin', what: `the field sent as ${name.toUpperCase()} instead`, edit: fc.constant({ rename: name.toUpperCase() }) }];
}

/** One below an integer's minimum, and -1 when that is not already negative. */
function minSpecs(c: Constraint): ViolationSpec[] {
  const node = c.node;
  const { lo } = node.kind === 'integer' ? integerBounds(node) : { lo: 0 };
  const out: ViolationSpec[] = [{ variant: 'min-1', what: String(lo - 1), edit: constant(lo - 1) }];
  if (lo - 1 > -1) out.push({ variant: 'negative', what: '-1', edit: constant(-1) });
  return out;
}

/** Every way this generator knows to break one constraint. */
export function violationSpecs(c: Constraint): ViolationSpec[] {
  const node = c.node;
  switch (c.kind) {
    case 'required':
      return requiredSpecs(c);
    case 'not-null':
      return [{ variant: 'null', what: 'null', edit: constant(null) }];
    case 'type':
      return typeSpecs(node, c.path === '');
    case 'integer':
      return [
        { variant: '1.5', what: '1.5', edit: constant(1.5) },
        { variant: 'large-fraction', what: '2^52 - 0.5', edit: constant(2 ** 52 - 0.5) },
      ];
    case 'min':
      return minSpecs(c);
    case 'max': {
      const { hi } = node.kind === 'integer' ? integerBounds(node) : { hi: 0 };
      // MAX_SAFE + 1 = 2^53 is exact in a double and serialises as its exact digits.
      return [{ variant: 'max+1', what: String(hi + 1), edit: constant(hi + 1) }];
    }
    case 'minLength': {
      const n = stringNode(c);
      const { lo } = lengthBounds(n);
      return [{ variant: 'min-1', what: `${lo - 1} characters`, edit: set(stringOfLength(n, lo - 1, 'ascii')) }];
    }
    case 'maxLength': {
      const n = stringNode(c);
      const hi = maxLengthOf(n);
      return [{ variant: 'max+1', what: `${hi + 1} characters`, edit: set(stringOfLength(n, hi + 1, 'ascii')) }];
    }
    case 'minItems': {
      const lo = node.kind === 'array' ? countBounds(node).lo : 0;
      return [{ variant: 'min-1', what: `${lo - 1} items`, edit: itemsEdit(c, lo - 1) }];
    }
    case 'maxItems': {
      const hi = node.kind === 'array' ? maxCountOf(node) : 0;
      const out: ViolationSpec[] = [{ variant: 'max+1', what: `${hi + 1} items`, edit: itemsEdit(c, hi + 1) }];
      // Chained ops of every type meet a server's own state rules (3: not shown), whose refusal hides the count's.
      if (affectsCoherence(c.endpoint, c.path)) out.push({ variant: 'max+1:creates', what: `${hi + 1} creates of new artifacts`, edit: itemsEdit(c, hi + 1, 'creates') });
      return out;
    }
    case 'charset':
      return charsetSpecs(c);
    case 'pattern':
      return PATTERN_VIOLATIONS[must(c.pattern, `${c.id}: a pattern constraint names its pattern`)]();
    case 'calendar':
      return calendarSpecs();
    case 'uuid':
      return uuidSpecs();
    case 'enum':
      return enumSpecs(c);
    default:
      return c.kind satisfies never;
  }
}

export function labelOf(c: Constraint, spec: ViolationSpec, path: string): ViolationLabel {
  return {
    constraintId: c.id,
    endpoint: c.endpoint,
    scope: c.scope,
    kind: c.kind,
    section: c.section,
    path,
    template: c.path,
    variant: spec.variant,
    ...(c.assumption ? { assumption: c.assumption } : {}),
    ...(spec.alsoBreaks ? { alsoBreaks: spec.alsoBreaks } : {}),
    description: `${path}: ${spec.what} breaks "${c.text}" (section ${c.section})`,
  };
}

function requestConstraint(c: Constraint | string): Constraint {
  const k = typeof c === 'string' ? CONSTRAINT_BY_ID.get(c) : c;
  if (!k) throw new Error(`unknown constraint ${String(c)}`);
  if (k.scope === 'response') throw new Error(`${k.id} is a response constraint; use responseViolationsFor`);
  return k;
}

/** Violations of one request constraint: all its variants, or the one named. */
export function violationsFor(constraint: Constraint | string, variant?: string): fc.Arbitrary<ViolationCase> {
  const c = requestConstraint(constraint);
  const specs = violationSpecs(c).filter((s) => variant === undefined || s.variant === variant);
  if (specs.length === 0) throw new Error(`no violation variant ${variant ?? ''} for ${c.id}`);
  return fc.oneof(
    ...specs.map((s) =>
      editedRequest(c, s.edit, { recohere: 'array-only' }).map((r): ViolationCase => ({ label: labelOf(c, s, r.path), params: r.params, body: r.body, twin: twinOf(c, s, r) })),
    ),
  );
}

/** Violations of every request constraint (of one endpoint), each constraint equally likely. */
export function allViolations(endpoint?: EndpointId): fc.Arbitrary<ViolationCase> {
  const cs = REQUEST_CONSTRAINTS.filter((c) => endpoint === undefined || c.endpoint === endpoint);
  return fc.oneof(...cs.map((c) => violationsFor(c)));
}

/**
 * True iff the request breaks its label's constraint and nothing else: at least one issue, and
 * every issue is the label's kind at the label's template path in the label's scope. (One break
 * may be reported once or, for some kinds, more than once at the same place; never elsewhere.)
 */
export function breaksOnlyItsLabel(c: ViolationCase, options: SchemaOptions = {}): boolean {
  const issues = requestIssues(c.label.endpoint, { params: c.params, body: c.body }, options);
  return issues.length > 0 && issues.every((i) => i.scope === c.label.scope && (i.kind === c.label.kind || i.kind === c.label.alsoBreaks) && i.path === c.label.template);
}


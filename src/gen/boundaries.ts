/**
 * Boundary-valid requests: for each inventory constraint with a bound, a whole valid request with
 * ONE field exactly at that bound (length, count or integer at min and at max); for every other
 * constraint a valid representative of the edge it guards (each UUID form, each enum value, a
 * leap day, the whole alphabet, present-but-null…). Every constraint of the inventory therefore
 * has a generator of requests that sit on its edge and must be accepted.
 */
import fc from 'fast-check';
import {
  CHARSETS,
  LIMITS,
  MAX_SAFE,
  PATTERNS,
  REQUEST_CONSTRAINTS,
  UUID_MAX,
  UUID_NIL,
  must,
  type AssumptionName,
  type Constraint,
  type EndpointId,
  type Node,
  type PatternName,
} from '../spec/index.ts';
import { arbitraryOf, countBounds, edgeInteger, integerBounds, lengthBounds, maxCountOf, maxLengthOf, stringOfLength } from './arbitrary.ts';
import { editedRequest, fillerItems, type Edit } from './body.ts';
import { FIRST_DAY, LAST_DAY, daysInMonth, leapDay, formatDay, anyYear, currentUtcDay } from './days.ts';
import { fromJsonPath, getAt, withAt, type Json, type Params } from './json.ts';
import { applyCase, versioned, versionedUuid, VARIANT_AT, VARIANT_DIGITS, VERSION_AT, VERSION_DIGITS } from './uuid.ts';

export type Bound = 'min' | 'max' | 'edge';

export interface BoundaryCase {
  readonly constraintId: string;
  readonly constraint: Constraint;
  /** `min`/`max`: the field is exactly at that bound. `edge`: a valid representative of the rule's edge. */
  readonly bound: Bound;
  /** What sits at the location: `length=699051`, `count=0`, `value=1`, `uuid:nil`, `null`, `absent`… */
  readonly variant: string;
  /** The case is valid only under this reading of the spec (e.g. `characters-are-code-points`). */
  readonly assumption?: AssumptionName;
  /** Concrete location: `$.ops[3].envelope` or a parameter name. */
  readonly path: string;
  readonly params: Params;
  readonly body: Json;
  /**
   * Whether the location holds exactly what `variant` names. False only when the endpoint's
   * coherence rewrite owns the field (a commit's `base_revision_id`, the first op's `type`).
   */
  readonly exact: boolean;
}

/** One boundary variant of a constraint: a name and the value (or removal) to put at the location. */
export interface BoundarySpec {
  readonly bound: Bound;
  readonly variant: string;
  readonly assumption?: AssumptionName;
  readonly edit: fc.Arbitrary<Edit>;
  /** Checks the location after generation (for `exact`). */
  readonly holds: (v: Json | undefined) => boolean;
}

const CP: AssumptionName = 'characters-are-code-points';
const set = (a: fc.Arbitrary<Json>): fc.Arbitrary<Edit> => a.map((v) => ({ set: v }));
const cpLen = (v: Json | undefined) => (typeof v === 'string' ? [...v].length : -1);

function lengthSpecs(node: Extract<Node, { kind: 'string' }>, kind: 'minLength' | 'maxLength'): BoundarySpec[] {
  const { lo } = lengthBounds(node);
  const at = (n: number) => (v: Json | undefined) => cpLen(v) === n;
  if (kind === 'minLength') {
    return [{ bound: 'min', variant: `length=${lo}`, edit: set(stringOfLength(node, lo, 'bmp')), holds: at(lo) }];
  }
  const max = maxLengthOf(node);
  const out: BoundarySpec[] = [{ bound: 'max', variant: `length=${max}`, edit: set(stringOfLength(node, max, 'ascii')), holds: at(max) }];
  if (!node.charset) {
    // Non-ASCII text at the maximum is too long if "characters" are bytes (or, astral, UTF-16 units).
    out.push({ bound: 'max', variant: `length=${max} bmp`, assumption: CP, edit: set(stringOfLength(node, max, 'bmp')), holds: at(max) });
    out.push({ bound: 'max', variant: `length=${max} astral`, assumption: CP, edit: set(stringOfLength(node, max, 'astral')), holds: at(max) });
  }
  // "May be empty": a limit with only a maximum allows the empty string.
  if (lo === 0) out.push({ bound: 'min', variant: 'length=0', edit: set(fc.constant('')), holds: at(0) });
  return out;
}

function countSpecs(c: Constraint, node: Extract<Node, { kind: 'array' }>, kind: 'minItems' | 'maxItems'): BoundarySpec[] {
  const { lo } = countBounds(node);
  const items = (n: number): fc.Arbitrary<Edit> => set(fillerItems(c, n));
  const at = (n: number) => (v: Json | undefined) => Array.isArray(v) && v.length === n;
  if (kind === 'minItems') return [{ bound: 'min', variant: `count=${lo}`, edit: items(lo), holds: at(lo) }];
  const hi = maxCountOf(node);
  const out: BoundarySpec[] = [{ bound: 'max', variant: `count=${hi}`, edit: items(hi), holds: at(hi) }];
  if (lo === 0) out.push({ bound: 'min', variant: 'count=0', edit: items(0), holds: at(0) });
  return out;
}

function integerSpecs(node: Extract<Node, { kind: 'integer' }>, kind: 'min' | 'max'): BoundarySpec[] {
  const l = LIMITS[must(node.range, 'min and max constraints are listed only for an integer with a stated range')];
  const is = (n: number) => (v: Json | undefined) => v === n;
  if (kind === 'min') {
    const min = must(l.min, 'a min constraint is listed only for a range that states a minimum');
    return [{ bound: 'min', variant: `value=${min}`, edit: set(fc.constant(min)), holds: is(min) }];
  }
  const out: BoundarySpec[] = [{ bound: 'max', variant: `value=${l.max}`, edit: set(fc.constant(l.max)), holds: is(l.max) }];
  if (l.min === undefined) {
    // Bounded only above (2.7 usage counters): the JSON-safe bottom, valid as written.
    out.push({ bound: 'min', variant: `value=${-MAX_SAFE}`, assumption: 'usage-counters-negative', edit: set(fc.constant(-MAX_SAFE)), holds: is(-MAX_SAFE) });
    out.push({ bound: 'edge', variant: 'value=0', edit: set(fc.constant(0)), holds: is(0) });
  }
  return out;
}

function uuidSpecs(): BoundarySpec[] {
  const is = (s: string) => (v: Json | undefined) => v === s;
  const out: BoundarySpec[] = [
    { bound: 'edge', variant: 'uuid:nil', edit: set(fc.constant(UUID_NIL)), holds: is(UUID_NIL) },
    { bound: 'edge', variant: 'uuid:all-f', edit: set(fc.constant(UUID_MAX)), holds: is(UUID_MAX) },
    { bound: 'edge', variant: 'uuid:all-F', edit: set(fc.constant(UUID_MAX.toUpperCase())), holds: is(UUID_MAX.toUpperCase()) },
    { bound: 'edge', variant: 'uuid:upper', edit: set(versionedUuid.map((u) => u.toUpperCase())), holds: (v) => typeof v === 'string' && v === v.toUpperCase() },
    { bound: 'edge', variant: 'uuid:mixed', edit: set(versionedUuid.map((u) => applyCase(u, 'mixed'))), holds: (v) => typeof v === 'string' && /[A-F]/.test(v) },
  ];
  const hex = fc.array(fc.constantFrom(...'0123456789abcdef'), { minLength: 32, maxLength: 32 }).map((a) => a.join(''));
  for (const version of VERSION_DIGITS) {
    out.push({ bound: 'edge', variant: `uuid:version-${version}`, edit: set(fc.tuple(hex, fc.constantFrom(...VARIANT_DIGITS)).map(([h, vr]) => versioned(h, version, vr))), holds: (v) => typeof v === 'string' && v[VERSION_AT] === version });
  }
  for (const variant of [...VARIANT_DIGITS, ...VARIANT_DIGITS.toUpperCase()].filter((d, i, a) => a.indexOf(d) === i)) {
    out.push({ bound: 'edge', variant: `uuid:variant-${variant}`, edit: set(fc.tuple(hex, fc.constantFrom(...VERSION_DIGITS)).map(([h, vs]) => versioned(h, vs, variant))), holds: (v) => typeof v === 'string' && v[VARIANT_AT] === variant });
  }
  return out;
}

/** The one variant whose value is the clock's: the current UTC day. */
const TODAY_VARIANT = 'day:today';

/**
 * The case as sent now: a value read off the clock is taken again. The coverage enumeration is drawn
 * once per process, so a case drawn before midnight UTC would otherwise send yesterday as today, which
 * `usage-day-window=not-future` accepts whatever the check (a CI run that crossed midnight missed the
 * `day >= today` fault so). Every other case is returned as it is.
 */
export function atSendTime(c: BoundaryCase, now: number = Date.now()): BoundaryCase {
  if (c.variant !== TODAY_VARIANT) return c;
  const day = currentUtcDay(now);
  if (c.constraint.scope === 'params') return { ...c, params: { ...c.params, [c.constraint.path]: day } };
  return { ...c, body: withAt(c.body, fromJsonPath(c.path), day) };
}

function dayPatternSpecs(): BoundarySpec[] {
  const is = (s: string) => (v: Json | undefined) => v === s;
  return [
    { bound: 'edge', variant: `day:${FIRST_DAY}`, edit: set(fc.constant(FIRST_DAY)), holds: is(FIRST_DAY) },
    { bound: 'edge', variant: `day:${LAST_DAY}`, edit: set(fc.constant(LAST_DAY)), holds: is(LAST_DAY) },
    // Taken when the case is generated, and again when it is sent (`atSendTime`); checked as a day.
    { bound: 'edge', variant: TODAY_VARIANT, edit: set(fc.constant(null).map(() => currentUtcDay())), holds: (v) => typeof v === 'string' && PATTERNS.day.regex.test(v) },
  ];
}

/** The valid edges of each structured format. */
const PATTERN_BOUNDARIES: { readonly [P in PatternName]: () => BoundarySpec[] } = { uuid: uuidSpecs, day: dayPatternSpecs };

/** Real days a calendar check could wrongly refuse (`calendar` exists only under the pattern's calendar reading). */
function calendarSpecs(c: Constraint): BoundarySpec[] {
  return [
    { bound: 'edge', variant: 'day:leap-feb-29', ...(c.assumption ? { assumption: c.assumption } : {}), edit: set(leapDay), holds: (v) => typeof v === 'string' && v.endsWith('-02-29') },
    {
      bound: 'edge',
      variant: 'day:month-end',
      edit: set(fc.tuple(anyYear, fc.integer({ min: 1, max: 12 })).map(([y, m]) => formatDay(y, m, daysInMonth(y, m)))),
      holds: (v) => typeof v === 'string',
    },
  ];
}

function charsetSpecs(c: Constraint, node: Extract<Node, { kind: 'string' }>): BoundarySpec[] {
  const chars = CHARSETS[must(c.charset, `${c.id}: a charset constraint names its charset`)].chars;
  const { lo, hi } = lengthBounds(node);
  const n = Math.min(Math.max(chars.length, lo), hi ?? chars.length);
  // A window of the alphabet, rotated: over samples every character, `-` and `_` included, is used.
  const window = fc.nat(chars.length - 1).map((start) => {
    let s = '';
    for (let i = 0; s.length < n; i++) s += chars[(start + i) % chars.length];
    return s;
  });
  return [{ bound: 'edge', variant: 'charset:alphabet', edit: set(window), holds: (v) => typeof v === 'string' && v.length === n }];
}

/** The valid value of the node itself, present (and, for a nullable field, also null; absent when optional). */
function presenceSpecs(c: Constraint): BoundarySpec[] {
  const value = arbitraryOf(c.node, {}, c.path);
  const out: BoundarySpec[] = [{ bound: 'edge', variant: 'present', edit: set(value), holds: (v) => v !== undefined && v !== null }];
  if (c.nullable) out.push({ bound: 'edge', variant: 'null', edit: set(fc.constant(null)), holds: (v) => v === null });
  if (!c.required) out.push({ bound: 'edge', variant: 'absent', edit: fc.constant({ remove: true } as const), holds: (v) => v === undefined });
  return out;
}

/** Every boundary variant of one constraint. */
export function boundarySpecs(c: Constraint): BoundarySpec[] {
  const node = c.node;
  switch (c.kind) {
    case 'minLength':
    case 'maxLength':
      return node.kind === 'string' ? lengthSpecs(node, c.kind) : [];
    case 'minItems':
    case 'maxItems':
      return node.kind === 'array' ? countSpecs(c, node, c.kind) : [];
    case 'min':
    case 'max':
      return node.kind === 'integer' ? integerSpecs(node, c.kind) : [];
    case 'integer': {
      if (node.kind !== 'integer') return [];
      const { lo, hi } = integerBounds(node);
      return [{ bound: 'edge', variant: 'integer', edit: set(edgeInteger(lo, hi)), holds: (v) => Number.isSafeInteger(v) }];
    }
    case 'uuid':
      return uuidSpecs();
    case 'pattern':
      return PATTERN_BOUNDARIES[must(c.pattern, `${c.id}: a pattern constraint names its pattern`)]();
    case 'calendar':
      return calendarSpecs(c);
    case 'charset':
      return node.kind === 'string' ? charsetSpecs(c, node) : [];
    case 'enum':
      return (c.values ?? []).map((value) => ({ bound: 'edge', variant: `enum:${value}`, edit: set(fc.constant(value)), holds: (v: Json | undefined) => v === value }));
    case 'type':
      if (c.path === '') return [{ bound: 'edge', variant: 'body', edit: fc.constant({ keep: true } as const), holds: (v) => v !== undefined }];
      return presenceSpecs(c);
    case 'required':
    case 'not-null':
      return presenceSpecs(c).filter((s) => s.variant === 'present' || (c.kind === 'not-null' && s.variant === 'absent'));
    default:
      return c.kind satisfies never;
  }
}

/** Boundary cases of one constraint (all its variants, or the named one). */
export function boundariesFor(c: Constraint, variant?: string): fc.Arbitrary<BoundaryCase> {
  const specs = boundarySpecs(c).filter((s) => variant === undefined || s.variant === variant);
  if (specs.length === 0) throw new Error(`no boundary variant ${variant ?? ''} for ${c.id}`);
  return fc.oneof(
    ...specs.map((s) =>
      editedRequest(c, s.edit, { recohere: 'always' }).map(
        (r): BoundaryCase => ({
          constraintId: c.id,
          constraint: c,
          bound: s.bound,
          variant: s.variant,
          ...(s.assumption ? { assumption: s.assumption } : {}),
          path: r.path,
          params: r.params,
          body: r.body,
          exact: s.holds(c.scope === 'params' ? r.params[c.path] : getAt(r.body, r.at)),
        }),
      ),
    ),
  );
}

/**
 * The constraints with a numeric bound (length, count, integer range) of one endpoint or all:
 * the ones `boundaries.limits-accepted` drives to min and max.
 */
export function boundedConstraints(endpoint?: EndpointId): Constraint[] {
  const bounded = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'min', 'max']);
  return REQUEST_CONSTRAINTS.filter((c) => bounded.has(c.kind) && (endpoint === undefined || c.endpoint === endpoint));
}

/**
 * Min/max boundary cases (reading-independent ones unless `withAssumptions`) of an endpoint;
 * undefined for an endpoint without bounded fields (4.1, 4.4, 4.6).
 */
export function limitBoundaries(endpoint: EndpointId, opts: { withAssumptions?: boolean } = {}): fc.Arbitrary<BoundaryCase> | undefined {
  const arbs: fc.Arbitrary<BoundaryCase>[] = [];
  for (const c of boundedConstraints(endpoint)) {
    for (const s of boundarySpecs(c)) {
      if (s.bound === 'edge' || (s.assumption && !opts.withAssumptions)) continue;
      arbs.push(boundariesFor(c, s.variant));
    }
  }
  return arbs.length === 0 ? undefined : fc.oneof(...arbs);
}


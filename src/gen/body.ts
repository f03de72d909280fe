/**
 * Whole requests of one endpoint, and the one operation boundaries and violations are built
 * from: take a valid request and change exactly one location, named by an inventory template path.
 */
import fc from 'fast-check';
import { ENDPOINT_BY_ID, type Constraint, type EndpointId } from '../spec/index.ts';
import { arbitraryOf, type ArbitraryOptions } from './arbitrary.ts';
import { affectsCoherence, chainOps, coherent } from './coherence.ts';
import { arrayDepth, concretePath, getAt, isObject, objectValue, toJsonPath, withAt, type Json, type JsonObject, type Params, type RequestSample } from './json.ts';

export function bodyArbitrary(endpoint: EndpointId, opts: ArbitraryOptions = {}): fc.Arbitrary<JsonObject> {
  return arbitraryOf(ENDPOINT_BY_ID[endpoint].body, opts).map((b) => objectValue(coherent(endpoint, b), `the ${endpoint} body`));
}

export function paramsArbitrary(endpoint: EndpointId, opts: ArbitraryOptions = {}): fc.Arbitrary<Params> {
  const shape: Record<string, fc.Arbitrary<string>> = {};
  for (const [name, node] of Object.entries(ENDPOINT_BY_ID[endpoint].params)) {
    // path parameters are uuid or string nodes, whose arbitraries draw strings
    shape[name] = arbitraryOf(node, { ...opts, require: undefined }, name) as fc.Arbitrary<string>;
  }
  return fc.record(shape);
}

/** What to do at the chosen location; `rename` moves a member to another name in the same object (its value kept). */
/** How one location is edited: a value set, the member removed or renamed, left as drawn, or its own string upper-cased. */
export type Edit = { readonly set: Json } | { readonly remove: true } | { readonly keep: true } | { readonly rename: string } | { readonly upper: true };

/** `v` upper-cased when it is a string (the `upper` edit), as it was otherwise. */
export const upperCased = (v: Json | undefined): Json => (typeof v === 'string' ? v.toUpperCase() : (v ?? null));

export interface EditedRequest {
  readonly params: Params;
  readonly body: Json;
  /** Concrete location: `$.ops[3].envelope`, or the parameter name. */
  readonly path: string;
  /** The concrete path as segments (body scope), `[name]` for a parameter. */
  readonly at: readonly (string | number)[];
  /**
   * The same request with the location as it was before the edit (valid): a violation's minimal
   * pair. Where the edit replaced a whole ops array (and coherence rewrote the batch), the request
   * before the edit.
   */
  readonly twin: RequestSample;
}

/**
 * A valid request of `c.endpoint` with one location of `c.path` edited. Arrays on the path are
 * non-empty and optional containers present (`require`); the array items are chosen by shrinkable
 * picks. `recohere`: re-run the endpoint's coherence rewrite after the edit — always (boundaries:
 * the result must stay acceptable), or only when a whole ops array was replaced (violations: the
 * break itself must survive).
 */
export function editedRequest(
  c: Constraint,
  edit: fc.Arbitrary<Edit>,
  opts: { recohere: 'always' | 'array-only'; body?: ArbitraryOptions },
): fc.Arbitrary<EditedRequest> {
  const e = c.endpoint;
  if (c.scope === 'params') {
    return fc.record({ params: paramsArbitrary(e), body: bodyArbitrary(e, opts.body), edit }).map(({ params, body, edit }) => {
      const next = { ...params };
      if ('set' in edit) next[c.path] = String(edit.set);
      else if ('upper' in edit) next[c.path] = String(upperCased(params[c.path]));
      else if ('remove' in edit || 'rename' in edit) delete next[c.path];
      return { params: next, body, path: c.path, at: [c.path], twin: { params, body } };
    });
  }
  const depth = arrayDepth(c.path);
  return fc
    .record({
      params: paramsArbitrary(e),
      body: bodyArbitrary(e, { ...opts.body, require: c.path }),
      picks: fc.array(fc.nat(), { minLength: depth, maxLength: depth }),
      edit,
    })
    .map(({ params, body, picks, edit }) => {
      const at = concretePath(body, c.path, picks);
      if (!at) throw new Error(`generator bug: ${c.path} not present in a body generated to contain it`);
      let next: Json = body;
      if ('set' in edit) next = withAt(body, at, edit.set);
      else if ('upper' in edit) next = withAt(body, at, upperCased(getAt(body, at)));
      else if ('remove' in edit) next = withAt(body, at, undefined);
      else if ('rename' in edit) next = withAt(withAt(body, at, undefined), [...at.slice(0, -1), edit.rename], getAt(body, at) ?? null);
      const recohered = opts.recohere === 'always' || ('set' in edit && Array.isArray(edit.set) && affectsCoherence(e, c.path));
      if (recohered) next = coherent(e, next);
      // A renamed member's twin is the request before the rename: the field back, the other name gone.
      const twin = recohered || 'rename' in edit ? body : withAt(next, at, getAt(body, at));
      return { params, body: next, path: toJsonPath(at), at, twin: { params, body: twin } };
    });
}

/**
 * How filler ops are typed: `chained` keeps the drawn types on chains of revisions; `creates` makes
 * every op a create of its own new artifact on a null base, which every reading of the state rules
 * (3: not shown) must apply, so only the count decides a refusal.
 */
export type Filler = 'chained' | 'creates';

const asCreate = (x: Json): Json => (isObject(x) ? { ...x, type: 'create', base_revision_id: null } : x);

/**
 * `n` of the leanest valid items of the array at `c.path` (ops are chained), for count bounds and
 * count violations. Long filler does not shrink: which of 2001 identical-looking items holds what
 * is noise, and shrinking it would cost tens of thousands of steps.
 */
export function fillerItems(c: Constraint, n: number, filler: Filler = 'chained'): fc.Arbitrary<Json[]> {
  if (c.node.kind !== 'array') throw new Error(`${c.id}: not an array`);
  const chained = affectsCoherence(c.endpoint, c.path);
  const arb = fc
    .array(arbitraryOf(c.node.items, { mode: 'lean' }, `${c.path}[]`), { minLength: n, maxLength: n })
    .map((xs) => (chained ? chainOps(filler === 'creates' ? xs.map(asCreate) : xs) : xs));
  return n > 8 ? fc.noShrink(arb) : arb;
}

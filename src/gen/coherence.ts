/**
 * Makes a schema-valid body also make sense to a server (assumption `op-semantics`=base-only) where
 * the model marks an array as chained (`chain` on a commit's `ops`):
 * in a commit batch the first op on an artifact is a `create` with a null base, every later op on
 * it names the previous op's revision as its base, and no revision or new artifact id repeats
 * (case-insensitively, assumption `revision-id-unique`). Deterministic in its input, so fast-check
 * can still shrink the body it came from.
 *
 * The chains also keep the state rules a server may add where section 3 shows none: a restore goes
 * to a deleted artifact, every other type to a live one. A valid body is then valid under every
 * such rule, and a boundary or a violation is judged on its own constraint, not on a state rule no
 * reading names (an independent server refusing an update after a delete left four properties
 * without a verdict). The commit laws send the sequences the state rules differ on, and judge them
 * under `op-semantics`.
 */
import { deletes, ENDPOINT_BY_ID, keepsLiveState, mapTable, type EndpointId, type Node } from '../spec/index.ts';
import { getAt, isObject, withAt, type Json, type JsonObject } from './json.ts';
import { applyCase, caseForm, isNilOrMax, versioned } from './uuid.ts';

/** A UUID that differs from `u` but keeps its case form and (when it has them) version and variant. */
function bump(u: string, n: number): string {
  if (isNilOrMax(u)) {
    return applyCase(versioned(n.toString(16).padStart(32, '0'), '4', '8'), caseForm(u));
  }
  const last = u.slice(-12);
  const next = ((parseInt(last, 16) + n) % 2 ** 48).toString(16).padStart(12, '0');
  return applyCase(u.slice(0, -12) + next, caseForm(u));
}

function unique(u: Json | undefined, seen: Set<string>): Json | undefined {
  if (typeof u !== 'string') return u;
  let v = u;
  for (let n = 1; seen.has(v.toLowerCase()); n++) v = bump(u, n);
  seen.add(v.toLowerCase());
  return v;
}

/** Deterministic choice among `n` open artifacts, from the op's own revision id (NaN, no index, when there are none). */
function choose(op: JsonObject, n: number): number {
  const s = typeof op.revision_id === 'string' ? op.revision_id : '';
  let h = 0;
  for (const ch of s) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h % n;
}

interface Chain {
  readonly artifact: Json | undefined;
  head: Json | undefined;
  deleted: boolean;
}

/** Rewrites a batch of ops into chains of revisions (see the module comment). */
export function chainOps(ops: readonly Json[]): Json[] {
  const seen = new Set<string>();
  const chains: Chain[] = [];
  return ops.map((raw, i) => {
    if (!isObject(raw)) return raw;
    const op: JsonObject = { ...raw };
    const rev = unique(op.revision_id, seen);
    if (rev !== undefined) op.revision_id = rev;
    // An op whose type no open chain's state takes starts a chain of its own, as a create.
    const fits = op.type === 'create' || i === 0 ? [] : chains.filter((c) => keepsLiveState(op.type, c.deleted));
    const c = fits[choose(op, fits.length)];
    if (c === undefined) {
      if ('type' in op) op.type = 'create';
      if ('base_revision_id' in op) op.base_revision_id = null;
      const art = unique(op.artifact_id, seen);
      if (art !== undefined) op.artifact_id = art;
      chains.push({ artifact: op.artifact_id, head: op.revision_id, deleted: false });
    } else {
      if (c.artifact !== undefined) op.artifact_id = c.artifact;
      if (c.head !== undefined) op.base_revision_id = c.head;
      c.head = op.revision_id;
      c.deleted = deletes(op.type);
    }
    return op;
  });
}

/** Where an endpoint's body holds arrays whose items must chain (the model's `chain`), as field paths. */
function chainedPaths(node: Node, at: readonly string[] = []): (readonly string[])[] {
  if (node.kind === 'array') return node.chain ? [at] : [];
  if (node.kind !== 'object') return [];
  // Arrays nested in arrays are not chained by this rewrite; none are in the model.
  return Object.entries(node.fields).flatMap(([key, f]) => chainedPaths(f.node, [...at, key]));
}

const CHAINED: { readonly [Id in EndpointId]: readonly (readonly string[])[] } = mapTable(ENDPOINT_BY_ID, (e) => chainedPaths(e.body));

/** The endpoint's coherence rewrite of a valid body; identity for endpoints that need none. */
export function coherent(endpoint: EndpointId, body: Json): Json {
  let out = body;
  for (const path of CHAINED[endpoint]) {
    const items = getAt(out, path);
    if (Array.isArray(items)) out = withAt(out, path, chainOps(items));
  }
  return out;
}

/** Whether re-running `coherent` is needed after replacing the value at this template path. */
export function affectsCoherence(endpoint: EndpointId, template: string): boolean {
  return CHAINED[endpoint].some((p) => p.join('.') === template);
}

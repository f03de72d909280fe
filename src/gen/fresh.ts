/**
 * Fresh identities at execution time. fast-check's biased generators repeat values (nil, all-f,
 * the same shrunk UUID), which a live target would see as replays or collisions, so the runner
 * replaces every identity-bearing id with one from the system CSPRNG just before sending. Which
 * ids those are is the model's word (`fresh` on a node), so a new endpoint's ids are renewed too.
 *
 * The replacement keeps the original's form: letter case (upper stays upper, mixed stays mixed),
 * and version and variant digits, so edge forms are still exercised. nil and all-f cannot stay
 * themselves and fresh; they become a random v4 id in their case form. Values that are not valid
 * (the broken field of a violation) are left exactly as they are.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { CHARSETS, ENDPOINT_BY_ID, PATTERNS, issuesOf, toZod, type EndpointId, type Freshness, type Node, type StringNode } from '../spec/index.ts';
import { isObject, type Json, type JsonObject, type Params, type RequestSample } from './json.ts';
import { applyCase, caseForm, isNilOrMax, VARIANT_INDEX, VERSION_INDEX, hyphenate } from './uuid.ts';

const isUuid = (v: unknown): v is string => typeof v === 'string' && PATTERNS.uuid.regex.test(v);

/** A fresh lower-case UUID with the version and variant digits of `like` (v4 for nil/all-f). */
function freshLower(like: string): string {
  const fresh = randomUUID();
  if (isNilOrMax(like)) return fresh;
  const hex = fresh.replaceAll('-', '').split('');
  const old = like.toLowerCase().replaceAll('-', '');
  hex[VERSION_INDEX] = old[VERSION_INDEX];
  hex[VARIANT_INDEX] = old[VARIANT_INDEX];
  return hyphenate(hex.join(''));
}

/** A fresh UUID in the same form as `like`. */
export function freshUuid(like: string = randomUUID()): string {
  return applyCase(freshLower(like), caseForm(like));
}

/** Renames ids consistently: one fresh id per original (case-insensitively), each use in its own case form. */
class Renamer {
  private readonly map = new Map<string, string>();
  fresh(v: Json | undefined): Json | undefined {
    if (!isUuid(v)) return v;
    const key = v.toLowerCase();
    let lower = this.map.get(key);
    if (!lower) this.map.set(key, (lower = freshLower(v)));
    return applyCase(lower, caseForm(v));
  }
  /** The renamed id if `v` was renamed, else `v` unchanged. */
  follow(v: Json | undefined): Json | undefined {
    if (!isUuid(v)) return v;
    const lower = this.map.get(v.toLowerCase());
    return lower ? applyCase(lower, caseForm(v)) : v;
  }
}

/** `f` computed once per model node (nodes are frozen singletons). */
function perNode<T>(f: (node: Node) => T): (node: Node) => T {
  const memo = new WeakMap<Node, T>();
  return (node) => {
    if (!memo.has(node)) memo.set(node, f(node));
    // set on the line above when missing; T itself may admit undefined, so has() is the test
    return memo.get(node)!;
  };
}

/** Whether any node under `node` is renewed (so untouched subtrees are shared, not copied). */
const hasFresh = perNode(freshnessIn);
function freshnessIn(node: Node): boolean {
  switch (node.kind) {
    case 'string':
    case 'uuid':
      return node.fresh !== undefined;
    case 'array':
      return hasFresh(node.items);
    case 'object':
      return Object.values(node.fields).some((f) => hasFresh(f.node));
    case 'integer':
    case 'boolean':
    case 'enum':
      return false;
    default:
      return node satisfies never;
  }
}

/** A random string of `like`'s length from the node's charset, or `like` itself when it is not a valid value. */
function mintString(node: StringNode, like: Json | undefined): Json | undefined {
  if (typeof like !== 'string' || !node.charset || issuesOf(schemaOf(node), like).length > 0) return like;
  const chars = CHARSETS[node.charset].chars;
  let out = '';
  for (let i = 0; i < like.length; i++) out += chars[randomInt(chars.length)];
  return out;
}

const schemaOf = perNode((node) => toZod(node));

/**
 * One pass over a value with its model node: `mint` renews every minting field, `follow` renames
 * every reference to an id minted in the same request. Minting runs first over the whole request,
 * so a base naming a later op's revision maps too.
 */
function renew(node: Node, value: Json | undefined, pass: Freshness, r: Renamer): Json | undefined {
  if (value === undefined || !hasFresh(node)) return value;
  switch (node.kind) {
    case 'uuid':
      if (node.fresh !== pass) return value;
      return pass === 'mint' ? r.fresh(value) : r.follow(value);
    case 'string':
      return node.fresh === pass && pass === 'mint' ? mintString(node, value) : value;
    case 'array':
      return Array.isArray(value) ? value.map((v) => renew(node.items, v, pass, r) ?? v) : value;
    case 'object': {
      if (!isObject(value)) return value;
      const out: JsonObject = { ...value };
      for (const [key, field] of Object.entries(node.fields)) {
        if (!(key in value)) continue;
        const v = renew(field.node, value[key], pass, r);
        if (v !== undefined) out[key] = v;
      }
      return out;
    }
    case 'integer':
    case 'boolean':
    case 'enum':
      return value;
    default:
      return node satisfies never;
  }
}

/** Returns a copy of the request whose identity-bearing ids are fresh (see the module comment). */
export function freshen<T extends RequestSample>(endpoint: EndpointId, req: T): T {
  const e = ENDPOINT_BY_ID[endpoint];
  const r = new Renamer();
  const params: Params = { ...req.params };
  for (const [name, node] of Object.entries(e.params)) {
    const v = renew(node, params[name], 'mint', r);
    if (typeof v === 'string') params[name] = v;
  }
  let body = req.body;
  for (const pass of ['mint', 'follow'] as const) body = renew(e.body, body, pass, r) ?? body;
  return { ...req, params, body };
}

/**
 * A valid request with one member the spec does not list, at the top of its body or inside one of its
 * objects (an op, a usage row, a statement, a key envelope). Section 2 lists each object's fields and
 * section 9 leaves later versions open, so what a server does with another member is the reading
 * `unknown-fields-ignored`: a refusal is that reading's (the controls put it there), never a violation.
 * Without such requests a server that ignores an unlisted member in one body and refuses it in another
 * (the probe asks one usage report) is never seen, and neither is one that fails on it.
 */
import fc from 'fast-check';
import { ENDPOINT_BY_ID, type EndpointId, type Node, type ObjectNode } from '../spec/index.ts';
import { isObject, objectValue, withAt, type Json, type JsonObject } from './json.ts';
import type { ValidRequest } from './valid.ts';

/** Member names a later version might add; one no object of the model lists is taken. */
const NAMES = ['comment', 'future_field', 'x_client'] as const;
/** Values of every JSON kind: a server that ignores the member ignores any of them. */
const VALUES: readonly Json[] = ['x', 1, true, null, {}, []];

export interface ListedObject {
  /** Where the object sits in the body (`[]` for the body itself, `['ops', 2]`). */
  readonly at: readonly (string | number)[];
  readonly node: ObjectNode;
}

/** Every object of `value` whose fields the model lists (free-form ones take any member): the body first. */
export function listedObjects(node: Node, value: Json | undefined, at: readonly (string | number)[] = []): ListedObject[] {
  if (node.kind === 'array') return Array.isArray(value) ? value.flatMap((item, i) => listedObjects(node.items, item, [...at, i])) : [];
  if (node.kind !== 'object' || node.freeForm || !isObject(value)) return [];
  const inner = Object.entries(node.fields).flatMap(([key, f]) => listedObjects(f.node, value[key], [...at, key]));
  return [{ at, node }, ...inner];
}

/** The first of NAMES the object does not list. */
function unlistedName(node: ObjectNode): string {
  const name = NAMES.find((n) => !(n in node.fields));
  if (name === undefined) throw new Error(`${node.name} lists every name of NAMES: add one it does not`);
  return name;
}

/** The body with `value` under an unlisted name in one of its listed objects (`place` 0: the body itself), counted round. */
export function withUnlistedMember(endpoint: EndpointId, body: JsonObject, place: number, value: Json): JsonObject {
  const objects = listedObjects(ENDPOINT_BY_ID[endpoint].body, body);
  const target = objects[place % objects.length];
  if (target === undefined) throw new Error(`a ${endpoint} body holds no object with listed fields`);
  return objectValue(withAt(body, [...target.at, unlistedName(target.node)], value), 'a body with an unlisted member');
}

/** `request` with one unlisted member: at the body's top at least half the time, else in one of its objects. */
export function withUnlisted(endpoint: EndpointId, request: fc.Arbitrary<ValidRequest>): fc.Arbitrary<ValidRequest> {
  return fc
    .tuple(request, fc.oneof(fc.constant(0), fc.nat()), fc.constantFrom(...VALUES))
    .map(([r, place, value]) => ({ params: r.params, body: withUnlistedMember(endpoint, r.body, place, value) }));
}

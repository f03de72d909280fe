/**
 * Fresh identities at execution time. fast-check's biased generators repeat values (nil, all-f,
 * the same shrunk UUID), which a live target would see as replays or collisions, so the runner
 * replaces every identity-bearing id with one from the system CSPRNG just before sending.
 *
 * The replacement keeps the original's form: letter case (upper stays upper, mixed stays mixed),
 * and version and variant digits, so edge forms are still exercised. nil and all-f cannot stay
 * themselves and fresh; they become a random v4 id in their case form. Values that are not valid
 * (the broken field of a violation) are left exactly as they are.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ENDPOINT_BY_ID, PATTERNS, issuesOf, schemasOf, type EndpointId } from '../spec/index.ts';
import { isObject, type Json, type JsonObject, type Params, type RequestSample } from './json.ts';
import { applyCase, caseForm, isNilOrMax, VARIANT_INDEX, VERSION_INDEX, hyphenate } from './uuid.ts';

const isUuid = (v: unknown): v is string => typeof v === 'string' && PATTERNS.uuid.regex.test(v);

/** A fresh lower-case UUID with the version and variant digits of `like` (v4 for nil/all-f). */
function freshLower(like: string): string {
  const fresh = randomUUID();
  if (isNilOrMax(like)) return fresh;
  const hex = fresh.replaceAll('-', '').split('');
  const old = like.toLowerCase().replaceAll('-', '');
  hex[VERSION_INDEX] = old[VERSION_INDEX]!;
  hex[VARIANT_INDEX] = old[VARIANT_INDEX]!;
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

function put(o: JsonObject, key: string, v: Json | undefined): void {
  if (v !== undefined) o[key] = v;
}

function freshCommit(body: Json): Json {
  if (!isObject(body)) return body;
  const out: JsonObject = { ...body };
  const r = new Renamer();
  put(out, 'operation_id', r.fresh(body.operation_id));
  if (Array.isArray(body.ops)) {
    // First every op's own ids, then the references, so a base naming a later op's revision maps too.
    const ops = body.ops.map((op) => {
      if (!isObject(op)) return op;
      const o: JsonObject = { ...op };
      if ('artifact_id' in op) put(o, 'artifact_id', r.fresh(op.artifact_id));
      if ('revision_id' in op) put(o, 'revision_id', r.fresh(op.revision_id));
      return o;
    });
    out.ops = ops.map((o) => {
      if (!isObject(o)) return o;
      for (const ref of ['base_revision_id', 'merge_parent_id'] as const) if (ref in o) put(o, ref, r.follow(o[ref]));
      return o;
    });
  }
  return out;
}

function validParam(endpoint: EndpointId, name: string, value: string | undefined): boolean {
  const schema = schemasOf(ENDPOINT_BY_ID[endpoint]).params[name];
  return value !== undefined && schema !== undefined && issuesOf(schema, value).length === 0;
}

/** Returns a copy of the request whose identity-bearing ids are fresh (see the module comment). */
export function freshen<T extends RequestSample>(endpoint: EndpointId, req: T): T {
  const params: Params = { ...req.params };
  let body = req.body;
  switch (endpoint) {
    case 'commitOperations':
      body = freshCommit(body);
      break;
    case 'reportUsage':
      if (validParam(endpoint, 'sourceId', params.sourceId)) params.sourceId = randomBytes(params.sourceId!.length / 2).toString('hex');
      break;
    case 'approveDevice':
    case 'revokeBrowser':
      if (validParam(endpoint, 'id', params.id)) params.id = freshUuid(params.id);
      break;
    case 'registerPasskey':
    case 'changeUnlock':
      break;
  }
  return { ...req, params, body };
}

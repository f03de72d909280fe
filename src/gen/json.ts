/**
 * JSON values and the path arithmetic generators need: template paths from the inventory
 * (`ops[].envelope`) resolved to one concrete location (`['ops', 3, 'envelope']`) in a value.
 */

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export type Params = Record<string, string>;

/** JSON text parsed: whatever JSON.parse answers is a JSON value, so it is typed as one rather than as `any`. Throws as JSON.parse does. */
export function parseJsonValue(text: string): Json {
  return JSON.parse(text);
}

/** A whole request: path parameters and body. */
export interface RequestSample {
  readonly params: Params;
  readonly body: Json;
}

export type PathSegment = string | '[]';

/** `ops[].blob_ids[]` → `['ops', '[]', 'blob_ids', '[]']`; the root `''` → `[]`. */
export function parseTemplate(template: string): PathSegment[] {
  if (template === '' || template === '$') return [];
  const out: PathSegment[] = [];
  for (const part of template.split('.')) {
    const m = /^([^[]*)((?:\[\])*)$/.exec(part);
    if (!m) throw new Error(`not a template path: ${template}`);
    if (m[1]) out.push(m[1]);
    for (let i = 0; i < m[2].length / 2; i++) out.push('[]');
  }
  return out;
}

/** How many array levels a template path crosses. */
export function arrayDepth(template: string): number {
  return parseTemplate(template).filter((s) => s === '[]').length;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A value drawn from an object node (every body and envelope node is one); throws, naming `what`, if the model ever says otherwise. */
export function objectValue(v: Json, what: string): JsonObject {
  if (!isObject(v)) throw new Error(`pouchproof: ${what} drew a value that is not a JSON object`);
  return v;
}

/**
 * Resolves a template path against a value, choosing the item of each array level by
 * `picks[i] % length`. Undefined when a container on the way is missing or an array is empty.
 */
export function concretePath(value: Json, template: string, picks: readonly number[]): (string | number)[] | undefined {
  const out: (string | number)[] = [];
  let cur: Json | undefined = value;
  let level = 0;
  for (const seg of parseTemplate(template)) {
    if (seg === '[]') {
      if (!Array.isArray(cur) || cur.length === 0) return undefined;
      const i: number = (picks[level++] ?? 0) % cur.length;
      out.push(i);
      cur = cur[i];
    } else {
      if (!isObject(cur)) return undefined;
      out.push(seg);
      cur = cur[seg];
    }
  }
  return out;
}

export function getAt(value: Json, path: readonly (string | number)[]): Json | undefined {
  let cur: Json | undefined = value;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    // cur is an array or an object here; either is indexed by the path segment
    cur = (cur as Record<string | number, Json>)[seg];
  }
  return cur;
}

/**
 * A copy of `value` with the location `path` replaced (or deleted when `next` is undefined).
 * Only the containers on the path are copied, so large untouched siblings are shared.
 */
export function withAt(value: Json, path: readonly (string | number)[], next: Json | undefined): Json {
  if (path.length === 0) {
    if (next === undefined) throw new Error('cannot delete the root');
    return next;
  }
  const [head, ...rest] = path;
  if (Array.isArray(value) && typeof head === 'number') {
    const copy = value.slice();
    if (rest.length === 0 && next === undefined) copy.splice(head, 1);
    // head indexes an existing item (the path was resolved before it is rewritten)
    else copy[head] = withAt(copy[head]!, rest, next);
    return copy;
  }
  if (isObject(value) && typeof head === 'string') {
    const copy: JsonObject = { ...value };
    if (rest.length === 0 && next === undefined) delete copy[head];
    // head names an existing member (the path was resolved before it is rewritten)
    else copy[head] = withAt(copy[head]!, rest, next);
    return copy;
  }
  throw new Error(`no container at ${String(head)}`);
}

/** `['ops', 3, 'envelope']` → `$.ops[3].envelope`. */
export function toJsonPath(path: readonly (string | number)[]): string {
  let out = '$';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : `.${seg}`;
  return out;
}

/** `$.ops[3].envelope` → `['ops', 3, 'envelope']`: toJsonPath's inverse (the model's keys are plain identifiers). */
export function fromJsonPath(path: string): (string | number)[] {
  return [...path.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g)].map((m) => (m[1] !== undefined ? m[1] : Number(m[2])));
}

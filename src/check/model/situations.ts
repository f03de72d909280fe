/**
 * The situations a request's body holds that some reading covers (assumptions.ts, `Situation`):
 * an empty list where no minimum is stated, a string over its limit in UTF-16 units or bytes but
 * within it in code points, a negative usage counter, a member the spec does not list, a usage day
 * to come, a batch that builds on itself. Found by walking the body against the model, each with
 * its template path, so a judge can build the same request without it.
 */
import { ENDPOINT_BY_ID, LIMITS, codePointLength, coveredBy, readingsCovering, type AssumptionName, type AssumptionSet, type EndpointId, type Node, type Situation, utcDayOf } from '../../spec/index.ts';

/** A situation of a body, where it sits (template path: `ops[].blob_ids`, `rows[].day`). */
export interface SituationAt {
  readonly situation: Situation;
  readonly path: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every situation of the body, once per situation and path. */
export function situationsIn(endpoint: EndpointId, body: unknown, today: string = utcDayOf(Date.now())): SituationAt[] {
  const found: SituationAt[] = [];
  const seen = new Set<string>();
  const add = (situation: Situation, path: string) => {
    const k = `${situation} ${path}`;
    if (!seen.has(k)) {
      seen.add(k);
      found.push({ situation, path });
    }
  };
  walk(ENDPOINT_BY_ID[endpoint].body, body, '', add, today);
  return found;
}

function walk(node: Node, value: unknown, path: string, add: (s: Situation, path: string) => void, today: string): void {
  switch (node.kind) {
    case 'string': {
      if (typeof value !== 'string') return;
      if (node.pattern === 'day' && value > today) add('future-usage-day', path);
      if (!node.length) return;
      const max = LIMITS[node.length].max;
      if (max === undefined || codePointLength(value) > max) return;
      if (value.length > max) add('text-over-limit-in-utf16', path);
      else if (Buffer.byteLength(value, 'utf8') > max) add('text-over-limit-in-bytes', path);
      return;
    }
    case 'integer':
      if (typeof value === 'number' && node.range === 'usageCounter' && LIMITS[node.range].min === undefined && value < 0) add('negative-usage-counter', path);
      return;
    case 'array':
      if (!Array.isArray(value)) return;
      if (value.length === 0 && (!node.count || LIMITS[node.count].min === undefined)) add('empty-list', path);
      if (node.chain && buildsOnEarlier(value)) add('chained-batch', path);
      for (const item of value) walk(node.items, item, `${path}[]`, add, today);
      return;
    case 'object': {
      if (node.freeForm || !isRecord(value)) return;
      for (const [key, v] of Object.entries(value)) {
        const f = node.fields[key];
        const at = path ? `${path}.${key}` : key;
        if (!f) add('unlisted-member', at);
        else if (v !== null) walk(f.node, v, at, add, today);
      }
      return;
    }
    case 'uuid':
    case 'boolean':
    case 'enum':
      return;
    default:
      return node satisfies never;
  }
}

/** Whether an op of a batch names, as its base or merge parent, the revision an earlier op of the same batch creates. */
function buildsOnEarlier(items: readonly unknown[]): boolean {
  const created = new Set<string>();
  for (const it of items) {
    if (!isRecord(it)) continue;
    for (const ref of [it['base_revision_id'], it['merge_parent_id']]) if (typeof ref === 'string' && created.has(ref.toLowerCase())) return true;
    if (typeof it['revision_id'] === 'string') created.add(it['revision_id'].toLowerCase());
  }
  return false;
}

/** The assumption whose alternatives cover `s` (the registry keeps each situation under one question). */
export function assumptionOfSituation(s: Situation): AssumptionName {
  const r = readingsCovering(s)[0];
  if (!r) throw new Error(`pouchproof defect: no reading of the registry covers ${s}`);
  return r.assumption;
}

/** Whether the run's readings expect a request in situation `s` to be refused (then a refusal is no finding). */
export function refusalExpected(s: Situation, readings: AssumptionSet): boolean {
  return coveredBy(s, readings) !== undefined;
}

/** The readings a body's situations rest on (names only): what a refusal of it may be put down to. */
export function readingsOf(endpoint: EndpointId, body: unknown): AssumptionName[] {
  return [...new Set(situationsIn(endpoint, body).map((s) => assumptionOfSituation(s.situation)))];
}

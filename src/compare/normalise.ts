/**
 * A case's answers with everything that legitimately differs between two targets taken out, so
 * what remains can be compared line by line (Diffy's approach, with the spec's model deciding what
 * "legitimately" means):
 *
 * - `meta` (request ids, cursors) is dropped;
 * - an identifier the case sent and the target echoes becomes `<id#k>`, k the order in which the
 *   case first sent it: the k-th identifier drawn on one target maps to the k-th on the other;
 * - an identifier nobody sent (a device id the server made) becomes `<new-id>`;
 * - a sequence number (`seq`, `high_water`, `head_seq`) becomes its offset from the first one of
 *   the same name in the case: targets that start counting elsewhere agree;
 * - a refusal is compared as "refused" with the HTTP status class and whether its body is an
 *   envelope with ok false: status codes and error bodies are "not shown" (section 7).
 *
 * A summary is a list of facts `path = value`, in the order the case made its requests.
 */
import type { Exchange } from '../target/client.ts';
import { isRecord } from '../spec/index.ts';

export interface Fact {
  /** `#2 reportUsage data.stored`: the exchange's place in the case, its endpoint, the field. */
  readonly path: string;
  readonly value: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX32 = /^[0-9a-f]{32}$/;
const ID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}/gi;
/** Counters whose origin is the target's own business: compared by their offsets within a case. */
const SEQUENCES = new Set(['seq', 'high_water', 'head_seq']);
/** Bounds on what one exchange contributes, so a huge answer cannot blow up a comparison. */
const MAX_FACTS_PER_EXCHANGE = 200;
const MAX_DEPTH = 8;

/** The identifiers a case sent, in order of first appearance (path and body). */
function sentIds(exchanges: readonly Exchange[]): Map<string, number> {
  const ids = new Map<string, number>();
  for (const ex of exchanges) {
    const text = `${ex.request.url} ${Buffer.from(ex.request.body).toString('utf8')}`;
    for (const m of text.matchAll(ID_IN_TEXT)) {
      const id = m[0].toLowerCase();
      if (!ids.has(id)) ids.set(id, ids.size);
    }
  }
  return ids;
}

interface Walk {
  readonly ids: Map<string, number>;
  readonly seqBase: Map<string, number>;
  readonly out: Fact[];
  readonly prefix: string;
}

function scalar(w: Walk, key: string, v: unknown): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return String(v);
    case 'number': {
      if (SEQUENCES.has(key) && Number.isInteger(v)) {
        const base = w.seqBase.get(key);
        if (base === undefined) {
          w.seqBase.set(key, v);
          return `${key}+0`;
        }
        const d = v - base;
        return `${key}${d < 0 ? '' : '+'}${d}`;
      }
      return Number.isInteger(v) ? String(v) : 'number';
    }
    case 'string': {
      if (UUID.test(v) || HEX32.test(v)) {
        const k = w.ids.get(v.toLowerCase());
        return k === undefined ? '<new-id>' : `<id#${k}>`;
      }
      return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v);
    }
    default:
      return typeof v;
  }
}

function walk(w: Walk, path: string, key: string, v: unknown, depth: number): void {
  if (w.out.length >= MAX_FACTS_PER_EXCHANGE) return;
  if (Array.isArray(v)) {
    w.out.push({ path: `${w.prefix} ${path}.length`, value: String(v.length) });
    if (depth < MAX_DEPTH) for (const [i, x] of v.entries()) walk(w, `${path}[${i}]`, key, x, depth + 1);
    return;
  }
  // Arrays were taken above: every other object is a record here.
  if (isRecord(v)) {
    const keys = Object.keys(v).sort();
    w.out.push({ path: `${w.prefix} ${path}`, value: `{${keys.join(',')}}` });
    if (depth < MAX_DEPTH) for (const k of keys) walk(w, `${path}.${k}`, k, v[k], depth + 1);
    return;
  }
  w.out.push({ path: `${w.prefix} ${path}`, value: scalar(w, key, v) });
}

/** How a target answered one request, in the comparable terms. */
function answerFacts(ex: Exchange, prefix: string, w: Omit<Walk, 'out' | 'prefix'>): Fact[] {
  const out: Fact[] = [];
  const r = ex.response;
  if (!r) return [{ path: `${prefix} answer`, value: `no response (${ex.verdict})` }];
  const cls = `${Math.floor(r.status / 100)}xx`;
  if (r.status >= 400 && r.status < 500) {
    const envelope = isRecord(r.json) && r.json.ok === false;
    return [{ path: `${prefix} answer`, value: `refused ${cls}${envelope ? ', ok false' : ''}` }];
  }
  out.push({ path: `${prefix} answer`, value: `${cls} ${ex.verdict}` });
  const json = r.json;
  if (isRecord(json)) {
    out.push({ path: `${prefix} ok`, value: String(json.ok) });
    walk({ ...w, out, prefix }, 'data', 'data', json.data, 0);
  }
  return out.slice(0, MAX_FACTS_PER_EXCHANGE);
}

/** The facts of one case. */
export function caseFacts(exchanges: readonly Exchange[]): Fact[] {
  const ids = sentIds(exchanges);
  const seqBase = new Map<string, number>();
  const out: Fact[] = [{ path: 'requests', value: String(exchanges.length) }];
  exchanges.forEach((ex, i) => {
    const prefix = `#${i + 1} ${ex.endpoint}`;
    out.push(...answerFacts(ex, prefix, { ids, seqBase }));
  });
  return out;
}

export interface FactDiff {
  readonly path: string;
  /** The value on each side (`(absent)` when one side has no such fact). */
  readonly values: readonly [string, string];
}

export const ABSENT = '(absent)';

/** The facts that differ between two summaries of the same case. */
export function diffFacts(a: readonly Fact[], b: readonly Fact[]): FactDiff[] {
  const ma = new Map(a.map((f) => [f.path, f.value]));
  const mb = new Map(b.map((f) => [f.path, f.value]));
  const paths = [...new Set([...ma.keys(), ...mb.keys()])];
  const out: FactDiff[] = [];
  for (const p of paths) {
    const va = ma.get(p) ?? ABSENT;
    const vb = mb.get(p) ?? ABSENT;
    if (va !== vb) out.push({ path: p, values: [va, vb] });
  }
  return out;
}

/** A fact's path without the exchange's place in the case: `reportUsage data.stored`, where noise is learned. */
export function fieldOf(path: string): string {
  return path.replace(/^#\d+ /, '').replace(/\[\d+\]/g, '[]');
}

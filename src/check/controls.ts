/**
 * Controls before blame. When a request the spec allows is refused, a finding must say why, on
 * ground the spec or the registry gives. So before judging, the judge sends controls that differ
 * from the refused request in one suspected part only:
 *
 * - the plain request of the endpoint (plain.ts): refused too, and the refusal is about the
 *   environment (the reading a plain request rests on: pouches, listed ids, caller kinds…);
 * - the refused request with one field (a template path: `ops[].envelope`, `rows[].day`, a path
 *   parameter) swapped back to its plain value: the first such control that is accepted pins the
 *   refusal on that field. A field whose value rests on a registry reading (an empty list, a future
 *   day, an astral string at a limit, an unlisted member) is an `assumption` finding naming the
 *   reading; any other field's value is within every constraint the spec states for it, so the
 *   refusal is a violation citing that field's clause.
 * - no single field explains it: an assumption when the body rests on some reading, else a
 *   violation of what the endpoint is for.
 */
import { ENDPOINT_BY_ID, REQUEST_CONSTRAINTS, type Constraint, type EndpointId, type Node, type SpecClause } from '../spec/index.ts';
import { isObject, parseTemplate, type Json, type JsonObject, type PathSegment, type RequestSample } from '../gen/index.ts';
import type { Exchange } from '../target/client.ts';
import { assumptionMismatch, constraintViolation, describeResponse, expectAccepted, readingsAt, refusalExpected, unexpected, violation, type ReadingAt } from './judge.ts';
import { FIELD_WITHIN_CONSTRAINTS, SERVES, type SpecJudgement } from './judgements.ts';
import { plainRequest, plainValue } from './plain.ts';
import { prepare } from './prepare.ts';
import { PASS, type CaseContext, type Outcome } from './property.ts';

/** Controls one refusal may cost at the most (one per suspected field, plus the plain request). */
export const MAX_CONTROLS = 24;

export interface ServedOptions {
  /** What the request was, for messages. */
  readonly what: string;
  /** Readings the case itself rests on beyond what the body shows (a boundary variant's own reading). */
  readonly readings?: readonly ReadingAt[];
  /** What a refusal pinned on a field (and explained by no reading) breaks, when more specific than the field's own clause. */
  readonly field?: SpecJudgement;
}

/**
 * Judges the answer to a request the spec allows (`sent`, as sent): PASS when served; otherwise
 * controls decide between the environment, a reading and a violation (see the module comment).
 */
export async function judgeServed(ctx: CaseContext, endpoint: EndpointId, sent: RequestSample, ex: Exchange, o: ServedOptions): Promise<Outcome> {
  if (ex.verdict === 'accepted') return PASS;
  const status = ex.response?.status;
  if (status === undefined || status < 400 || status >= 500 || unexpected(ex)) return expectAccepted(ex, { what: o.what, blame: { judgement: SERVES[endpoint] } });
  const readings = [...readingsAt(endpoint, sent.body), ...(o.readings ?? [])];
  // A value the run's own readings refuse (a future day under not-future…): the refusal is expected.
  if (readings.some((r) => refusalExpected(r, ctx.assumptions))) return PASS;
  const plain = await ctx.call(withSample(endpoint, prepare(ctx, endpoint, plainRequest(endpoint))));
  if (plain.verdict !== 'accepted') {
    return (
      unexpected(plain) ??
      assumptionMismatch(ENDPOINT_BY_ID[endpoint].environment, `${o.what}: refused (${describeResponse(ex)}), and a plain ${endpoint} request is refused too (${describeResponse(plain)})`)
    );
  }
  // The refusal must be reproducible before anything is pinned on it: a target that refuses at
  // random would otherwise have the next control's luck blamed on a field.
  const again = await ctx.call(withSample(endpoint, prepare(ctx, endpoint, sent)));
  if (again.verdict === 'accepted') {
    return { ok: false, kind: 'transport', message: `${o.what}: refused once (${describeResponse(ex)}), accepted when sent again with fresh ids: nothing to pin` };
  }
  const culprit = await pinField(ctx, endpoint, sent);
  if (culprit && !culprit.ok) return culprit.outcome;
  if (culprit?.ok) {
    // The reading nearest the pinned field explains it (an empty blob_ids list before a chained batch).
    const reading = readings.filter((r) => related(r.path, culprit.path)).sort((a, b) => b.path.length - a.path.length)[0];
    const message = `${o.what}: refused (${describeResponse(ex)}), while the same request with only ${culprit.path} plain is accepted`;
    if (reading) return assumptionMismatch(reading.assumption, `${message}: its value rests on reading ${reading.assumption}`);
    if (o.field) return violation(o.field, `${message}, and ${culprit.path} = ${clip(culprit.value)} is allowed there`);
    const c = constraintAt(endpoint, culprit.path);
    if (c) return constraintViolation(FIELD_WITHIN_CONSTRAINTS, clauseOf(c), `${message}, and ${culprit.path} = ${clip(culprit.value)} is within what §${clauseOf(c).section} states for it`);
    return violation(SERVES[endpoint], message);
  }
  const first = readings[0];
  if (first) return assumptionMismatch(first.assumption, `${o.what}: refused (${describeResponse(ex)}); no single field explains it, and the body rests on reading ${first.assumption} at ${first.path}`);
  return violation(SERVES[endpoint], `${o.what}: refused (${describeResponse(ex)}) while a plain ${endpoint} request is accepted, and no single field explains it`);
}

function related(readingPath: string, field: string): boolean {
  return readingPath === field || readingPath.startsWith(`${field}.`) || readingPath.startsWith(`${field}[]`) || field.startsWith(`${readingPath}[]`) || field.startsWith(`${readingPath}.`);
}

type Pinned = { ok: true; path: string; value: Json | undefined } | { ok: false; outcome: Outcome };

/** Sends the request with one field plain at a time, deepest fields first; the first accepted control names the field. */
async function pinField(ctx: CaseContext, endpoint: EndpointId, sent: RequestSample): Promise<Pinned | undefined> {
  const e = ENDPOINT_BY_ID[endpoint];
  const candidates = [...Object.keys(sent.params).map((p) => `params.${p}`), ...bodyPaths(e.body, sent.body, '')]
    .sort((a, b) => depth(b) - depth(a))
    .slice(0, MAX_CONTROLS - 1);
  for (const path of candidates) {
    if (ctx.signal.aborted) return undefined;
    const variant = swapped(endpoint, sent, path);
    if (!variant) continue;
    const ex = await ctx.call(withSample(endpoint, prepare(ctx, endpoint, variant)));
    const u = unexpected(ex);
    if (u) return { ok: false, outcome: u };
    if (ex.verdict === 'accepted') return { ok: true, path, value: valueAt(sent, path) };
  }
  return undefined;
}

const depth = (path: string): number => parseTemplate(path.replace(/^params\./, '')).length;

/** Every template path of the body: each present member, each array and its items (the first item stands for all). */
function bodyPaths(node: Node, value: Json | undefined, at: string): string[] {
  const out: string[] = at ? [at] : [];
  if (node.kind === 'array' && Array.isArray(value) && value.length > 0) out.push(...bodyPaths(node.items, value[0], `${at}[]`));
  else if (node.kind === 'object' && !node.freeForm && isObject(value)) {
    for (const [key, v] of Object.entries(value)) {
      const child = at ? `${at}.${key}` : key;
      const f = node.fields[key];
      out.push(...(f ? bodyPaths(f.node, v, child) : [child]));
    }
  }
  return out;
}

function nodeAt(root: Node, segments: readonly PathSegment[]): Node | undefined {
  let n: Node | undefined = root;
  for (const s of segments) {
    if (!n) return undefined;
    if (s === '[]') n = n.kind === 'array' ? n.items : undefined;
    else n = n.kind === 'object' ? n.fields[s]?.node : undefined;
  }
  return n;
}

function valueAt(sent: RequestSample, path: string): Json | undefined {
  if (path.startsWith('params.')) return sent.params[path.slice('params.'.length)];
  let cur: Json | undefined = sent.body;
  for (const s of parseTemplate(path)) {
    if (s === '[]') cur = Array.isArray(cur) ? cur[0] : undefined;
    else cur = isObject(cur) ? cur[s] : undefined;
  }
  return cur;
}

/** `sent` with the field at `path` (in every item of the arrays on the way) plain, or removed when plain leaves it out. */
function swapped(endpoint: EndpointId, sent: RequestSample, path: string): RequestSample | undefined {
  const e = ENDPOINT_BY_ID[endpoint];
  if (path.startsWith('params.')) {
    const name = path.slice('params.'.length);
    const plain = plainRequest(endpoint).params[name];
    return plain === undefined ? undefined : { params: { ...sent.params, [name]: plain }, body: sent.body };
  }
  const segments = parseTemplate(path);
  const node = nodeAt(e.body, segments);
  const parent = nodeAt(e.body, segments.slice(0, -1));
  const last = segments[segments.length - 1];
  const keep = node && parent?.kind === 'object' && typeof last === 'string' ? parent.fields[last]?.required : true;
  const replacement = (): Json | undefined => (node && keep ? plainValue(node) : undefined);
  return { params: sent.params, body: replaceAt(sent.body, segments, replacement) };
}

function replaceAt(value: Json, segments: readonly PathSegment[], replacement: () => Json | undefined): Json {
  const [head, ...rest] = segments;
  if (head === undefined) return replacement() ?? null;
  if (head === '[]') {
    if (!Array.isArray(value)) return value;
    if (rest.length === 0) return value.map(() => replacement() ?? null);
    return value.map((v) => replaceAt(v, rest, replacement));
  }
  if (!isObject(value)) return value;
  const out: JsonObject = { ...value };
  if (rest.length === 0) {
    const r = replacement();
    if (r === undefined) delete out[head];
    else out[head] = r;
  } else if (head in out) out[head] = replaceAt(out[head]!, rest, replacement);
  return out;
}

/** Which constraint of a field a refusal is weighed against: its bounds first, then its format, then its row. */
const KIND_ORDER: readonly Constraint['kind'][] = ['maxLength', 'minLength', 'maxItems', 'minItems', 'max', 'min', 'charset', 'pattern', 'uuid', 'enum', 'integer', 'type', 'not-null', 'required'];

function constraintAt(endpoint: EndpointId, path: string): Constraint | undefined {
  const scope = path.startsWith('params.') ? 'params' : 'body';
  const p = scope === 'params' ? path.slice('params.'.length) : path;
  const cs = REQUEST_CONSTRAINTS.filter((c) => c.endpoint === endpoint && c.scope === scope && c.path === p && !c.assumption);
  return [...cs].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind))[0];
}

function clauseOf(c: Constraint): SpecClause {
  return (c as Constraint & { clause?: SpecClause }).clause ?? { section: c.section, quote: c.text };
}

function clip(v: Json | undefined): string {
  const s = JSON.stringify(v) ?? 'absent';
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}

function withSample(endpoint: EndpointId, s: RequestSample): { endpoint: EndpointId; params: Record<string, string>; body: Json } {
  return { endpoint, params: s.params, body: s.body };
}

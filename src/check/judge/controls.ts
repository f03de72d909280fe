/**
 * Controls before blame. When a request the spec allows is refused, a finding must say why, on
 * ground the spec or an identified reading gives. So before judging, the judge sends controls that
 * differ from the refused request in one suspected part only:
 *
 * - the plain request of the endpoint, asked once per run (environment.ts): refused too, and the
 *   refusal is the environment's, a reading's, or the endpoint not served;
 * - the refused request again, with fresh ids: accepted, the refusal does not reproduce, and nothing
 *   is pinned on it;
 * - for each situation of the request that a reading covers (an empty list, a future day, an astral
 *   string at a limit, a chained batch; assumptions.ts `Situation`), the same request without it: the
 *   first accepted puts the refusal on that reading, an `assumption` finding. A reading explains only
 *   what it covers: a 50-op commit refused is not explained by an empty list it also holds;
 * - the refused request with one field (a template path: `ops[].envelope`, `rows[].day`, a path
 *   parameter) swapped back to its plain value: the first accepted pins the refusal on that field,
 *   whose value is within every constraint the spec states for it: a violation citing that field's
 *   clause;
 * - nothing explains it: unknown, never a violation and never a pass.
 */
import { ENDPOINT_BY_ID, REQUEST_CONSTRAINTS, type Constraint, type EndpointId, type Node } from '../../spec/index.ts';
import { isObject, parseTemplate, type Json, type JsonObject, type PathSegment, type RequestSample } from '../../gen/index.ts';
import type { CallOptions, Exchange, TypedRequest } from '../../target/client.ts';
import { assumptionMismatch, constraintViolation, describeResponse, expectAccepted, isRefusal, refusedAfterResend, unexpected, violation } from './judge.ts';
import { FIELD_WITHIN_CONSTRAINTS, SERVES, type SpecJudgement } from './judgements.ts';
import { plainRequest, plainValue } from '../model/plain.ts';
import { prepare } from '../run/index.ts';
import { PASS, unknownOutcome, type CaseContext, type Outcome } from '../property.ts';
import { assumptionOfSituation, refusalExpected, situationsIn, type SituationAt } from '../model/situations.ts';

/** Controls one refusal may cost at the most (one per suspected field, plus the plain request). */
export const MAX_CONTROLS = 24;

export interface ServedOptions {
  /** What the request was, for messages. */
  readonly what: string;
  /** Situations the case itself rests on beyond what the body shows (a boundary variant's own). */
  readonly situations?: readonly SituationAt[];
  /** What a refusal pinned on a field breaks, when more specific than the field's own clause. */
  readonly field?: SpecJudgement;
  /** Who sent the request, when not the endpoint's usual caller: every control is sent as it was. */
  readonly as?: CallOptions['as'];
}

/**
 * Judges the answer to a request the spec allows (`sent`, as sent): PASS when served; otherwise
 * controls decide between the environment, a reading, a violation and unknown (see the module comment).
 */
export async function judgeServed<E extends EndpointId>(ctx: CaseContext, endpoint: E, request: RequestSample | TypedRequest<E>, ex: Exchange, o: ServedOptions): Promise<Outcome> {
  if (ex.verdict === 'accepted') return PASS;
  const resent = refusedAfterResend(ex);
  if (resent) return resent;
  // A typed request is JSON by construction of the model: the controls edit it as JSON.
  const sent = request as RequestSample;
  if (!isRefusal(ex)) return expectAccepted(ex, { what: o.what, blame: { judgement: SERVES[endpoint] } });
  const situations = [...situationsIn(endpoint, sent.body), ...(o.situations ?? [])];
  // A request in a situation the run's own readings refuse (a future day under not-future…): the refusal is expected.
  if (situations.some((s) => refusalExpected(s.situation, ctx.assumptions))) return PASS;
  const plain = await ctx.environment.plain(ctx, endpoint);
  if (!plain.ok) return plain;
  // The refusal must be reproducible before anything is pinned on it: a target that refuses at
  // random would otherwise have the next control's luck blamed on a field.
  const as: Caller = o.as ? { as: o.as } : {};
  const again = await sendControl(ctx, endpoint, sent, as);
  if (again.verdict === 'accepted') {
    const inState = endpoint === 'reportUsage' ? await refusedForWhatIsHeld(ctx, sent, ex, as, o.what) : undefined;
    return inState ?? { ok: false, kind: 'transport', message: `${o.what}: refused once (${describeResponse(ex)}), accepted when sent again with fresh ids: nothing to pin` };
  }
  const u = offControl(again);
  if (u) return u;
  const message = `${o.what}: refused (${describeResponse(ex)})`;
  const reading = await pinSituation(ctx, endpoint, sent, situations, as);
  if (reading) {
    if (!reading.ok) return reading.outcome;
    const where = [reading.at, ...reading.also].map((at) => `the ${at.situation} at ${at.path}`).join(' and ');
    return assumptionMismatch(reading.assumption, `${message}, while the same request without ${where} is accepted: the target reads ${reading.assumption} otherwise than the run`);
  }
  const culprit = await pinField(ctx, endpoint, sent, as);
  if (culprit && !culprit.ok) return culprit.outcome;
  if (culprit?.ok) {
    const pinned = `${message}, while the same request with only ${culprit.path} plain is accepted`;
    if (o.field) return violation(o.field, `${pinned}, and ${culprit.path} = ${clip(culprit.value)} is allowed there`);
    const c = constraintAt(endpoint, culprit.path);
    if (c) return constraintViolation(FIELD_WITHIN_CONSTRAINTS, c.clause, `${pinned}, and ${culprit.path} = ${clip(culprit.value)} is within what §${c.clause.section} states for it, and no reading covers it`);
    return violation(SERVES[endpoint], pinned);
  }
  return unknownOutcome(`${message}; a plain ${endpoint} request is accepted, no single field explains the refusal, and no reading covers it`);
}

/**
 * A usage report refused, and served to a fresh source: sent once more as it was, to the same source.
 * Refused again, what the source holds decides the refusal, and 4.3 gives a held row no power to refuse
 * a report (rule 1: each row keeps the larger total; rule 2: the same logs again change nothing), and
 * no reading names one. Undefined when the second copy is served (a blip: nothing to pin).
 */
async function refusedForWhatIsHeld(ctx: CaseContext, sent: RequestSample, first: Exchange, as: Caller, what: string): Promise<Outcome | undefined> {
  const same = await ctx.call({ endpoint: 'reportUsage', params: sent.params, body: sent.body, ...as });
  if (same.verdict === 'accepted') return undefined;
  const u = offControl(same);
  if (u || !isRefusal(same)) return u;
  return violation(
    SERVES.reportUsage,
    `${what}: refused (${describeResponse(first)}), and again when sent once more to the same source (${describeResponse(same)}), while the same report to a fresh source is accepted: what the source holds decides the refusal, and 4.3 gives none (each row keeps the larger of its stored and reported total)`,
    { exchangeIds: [first.id, same.id] },
  );
}

/** The caller of the refused request, carried onto its controls. */
type Caller = { readonly as?: CallOptions['as'] };

type PinnedSituation =
  | { ok: true; assumption: ReturnType<typeof assumptionOfSituation>; at: SituationAt; also: readonly SituationAt[] }
  | { ok: false; outcome: Outcome };

/**
 * Sends the request without each situation in turn (deepest first): the first accepted names the
 * reading that covers it. A request may hold one situation in several places (two negative counters)
 * or situations of several readings, any one enough for a refusal: then it is sent without every
 * situation of one reading at once, and last without all of them.
 */
async function pinSituation(ctx: CaseContext, endpoint: EndpointId, sent: RequestSample, situations: readonly SituationAt[], as: Caller): Promise<PinnedSituation | undefined> {
  const ordered = [...situations].sort((a, b) => depth(b.path) - depth(a.path));
  const byReading = new Map<ReturnType<typeof assumptionOfSituation>, SituationAt[]>();
  for (const at of ordered) byReading.set(assumptionOfSituation(at.situation), [...(byReading.get(assumptionOfSituation(at.situation)) ?? []), at]);
  const trials: { readonly remove: readonly SituationAt[]; readonly blame: SituationAt }[] = [
    ...ordered.map((at) => ({ remove: [at], blame: at })),
    ...[...byReading.values()].filter((g) => g.length > 1).map((g) => ({ remove: g, blame: g[0] })),
    ...(byReading.size > 1 ? [{ remove: ordered, blame: ordered[0] }] : []),
  ];
  for (const { remove, blame } of trials) {
    if (ctx.signal.aborted) return undefined;
    let variant: RequestSample | undefined = sent;
    for (const at of remove) variant = variant && without(endpoint, variant, at);
    if (!variant) continue;
    const ex = await sendControl(ctx, endpoint, variant, as);
    const u = offControl(ex);
    if (u) return { ok: false, outcome: u };
    if (ex.verdict === 'accepted') return { ok: true, assumption: assumptionOfSituation(blame.situation), at: blame, also: remove.filter((r) => r !== blame) };
  }
  return undefined;
}

/** `sent` without one situation, the rest untouched: the plain value in its place, or a batch unchained at the same size. */
function without(endpoint: EndpointId, sent: RequestSample, at: SituationAt): RequestSample | undefined {
  if (at.situation === 'chained-batch') {
    const segments = parseTemplate(at.path);
    return { params: sent.params, body: replaceAt(sent.body, segments, () => undefined, unchain) };
  }
  return swapped(endpoint, sent, at.path);
}

/**
 * The same batch at the same size, with every op that builds on an earlier op of the batch turned
 * into a create of a fresh artifact: nothing in it chains, and nothing else changes.
 */
function unchain(ops: Json): Json {
  if (!Array.isArray(ops)) return ops;
  const created = new Set<string>();
  return ops.map((op) => {
    if (!isObject(op)) return op;
    const refs = [op['base_revision_id'], op['merge_parent_id']].filter((r): r is string => typeof r === 'string');
    const chained = refs.some((r) => created.has(r.toLowerCase()));
    if (typeof op['revision_id'] === 'string') created.add(op['revision_id'].toLowerCase());
    if (!chained) return op;
    const { merge_parent_id: _m, ...rest } = op;
    return { ...rest, type: 'create', artifact_id: String(plainValue({ kind: 'uuid' })), base_revision_id: null };
  });
}


type Pinned = { ok: true; path: string; value: Json | undefined } | { ok: false; outcome: Outcome };

/** Sends the request with one field plain at a time, deepest fields first; the first accepted control names the field. */
async function pinField(ctx: CaseContext, endpoint: EndpointId, sent: RequestSample, as: Caller): Promise<Pinned | undefined> {
  const e = ENDPOINT_BY_ID[endpoint];
  const candidates = [...Object.keys(sent.params).map((p) => `params.${p}`), ...bodyPaths(e.body, sent.body, '')]
    .sort((a, b) => depth(b) - depth(a))
    .slice(0, MAX_CONTROLS - 1);
  for (const path of candidates) {
    if (ctx.signal.aborted) return undefined;
    const variant = swapped(endpoint, sent, path);
    if (!variant) continue;
    const ex = await sendControl(ctx, endpoint, variant, as);
    const u = offControl(ex);
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

/** `value` with the location `segments` names (in every item of the arrays on the way) replaced, or transformed by `transform`. */
function replaceAt(value: Json, segments: readonly PathSegment[], replacement: () => Json | undefined, transform?: (old: Json) => Json): Json {
  const [head, ...rest] = segments;
  if (head === undefined) return transform ? transform(value) : (replacement() ?? null);
  if (head === '[]') {
    if (!Array.isArray(value)) return value;
    if (rest.length === 0 && !transform) return value.map(() => replacement() ?? null);
    return value.map((v) => replaceAt(v, rest, replacement, transform));
  }
  if (!isObject(value)) return value;
  const out: JsonObject = { ...value };
  if (rest.length === 0 && !transform) {
    const r = replacement();
    if (r === undefined) delete out[head];
    else out[head] = r;
  } else if (head in out) out[head] = replaceAt(out[head], rest, replacement, transform);
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


function clip(v: Json | undefined): string {
  const s = JSON.stringify(v) ?? 'absent';
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}

/** Sends a control: `sample` with fresh ids, from the refused request's caller. */
function sendControl(ctx: CaseContext, endpoint: EndpointId, sample: RequestSample, as: Caller): Promise<Exchange> {
  const s = prepare(ctx, endpoint, sample);
  return ctx.call({ endpoint, params: s.params, body: s.body, ...as });
}

/** A control's answer that cannot be read as accepted or refused: an unexpected answer, or a copy refused after a resend. */
function offControl(ex: Exchange): Outcome | undefined {
  return unexpected(ex) ?? refusedAfterResend(ex);
}

/**
 * Shared judging helpers: turn an exchange (or several) into an `Outcome` the same way in every
 * property, so a 5xx is always a `server-error`, a dropped connection always `transport`, a 429
 * always the `rate-limits` assumption, and "rejected" always means what assumption
 * `error-response` says it means. Every finding names its ground: a violation carries its
 * judgement and the clause of SPEC.md it rests on; an assumption finding names its reading.
 */
import type { AssumptionName, AssumptionSet, ReadingOf, SpecClause } from '../spec/index.ts';
import { ENDPOINT_BY_ID, LIMITS, codePointLength, type EndpointId, type Node } from '../spec/index.ts';
import type { Exchange } from '../target/client.ts';
import type { TimelineData } from './linearizability/timeline.ts';
import { SERVES, SUCCESS_ENVELOPE, type ConstraintJudgement, type SpecJudgement } from './judgements.ts';
import { PASS, type Failure, type Outcome } from './property.ts';

export function violation(j: SpecJudgement, message: string, more: { readonly timeline?: TimelineData } = {}): Outcome {
  return { ok: false, kind: 'violation', message, judgement: j.id, clause: j.ground.clause, ...(more.timeline ? { timeline: more.timeline } : {}) };
}

/** A violation of a constraint judgement: the clause is the judged constraint's own. */
export function constraintViolation(j: ConstraintJudgement, clause: SpecClause, message: string): Outcome {
  return { ok: false, kind: 'violation', message, judgement: j.id, clause };
}

export function assumptionMismatch(assumption: AssumptionName, message: string): Outcome {
  return { ok: false, kind: 'assumption', assumption, message };
}

export function serverError(message: string): Outcome {
  return { ok: false, kind: 'server-error', message };
}

export function transportFailure(message: string): Outcome {
  return { ok: false, kind: 'transport', message };
}

/**
 * Whom a contrary answer blames: a judgement resting on a clause of the spec (a violation), a
 * constraint judgement with the judged constraint's clause, or a registry reading (an assumption).
 */
export type Blame =
  | { readonly judgement: SpecJudgement }
  | { readonly judgement: ConstraintJudgement; readonly clause: SpecClause }
  | { readonly assumption: AssumptionName };

export function blame(b: Blame, message: string): Outcome {
  if ('assumption' in b) return assumptionMismatch(b.assumption, message);
  if ('clause' in b) return constraintViolation(b.judgement, b.clause, message);
  return violation(b.judgement, message);
}

/** `PASS` when `cond`, else the blamed finding with `message`. */
export function check(cond: boolean, b: Blame, message: string): Outcome {
  return cond ? PASS : blame(b, message);
}

/** The first failing outcome, or `PASS`. Arguments are evaluated lazily when given as functions. */
export function all(...outcomes: ReadonlyArray<Outcome | (() => Outcome)>): Outcome {
  for (const o of outcomes) {
    const r = typeof o === 'function' ? o() : o;
    if (!r.ok) return r;
  }
  return PASS;
}

/**
 * Findings a case meets on its way that must not stop it: a target answering in another reading
 * (an assumption finding) while the invariant still holds. The case goes on to check what every
 * reading requires, and reports the reading only when nothing worse turned up.
 */
export class Notes {
  private first: Failure | undefined;

  /** Keeps an assumption finding; passes any other outcome back to the caller. */
  add(o: Outcome): Outcome {
    if (!o.ok && o.kind === 'assumption') {
      this.first ??= o;
      return PASS;
    }
    return o;
  }

  /** `final` when it fails, else the first noted reading, else PASS. */
  result(final: Outcome): Outcome {
    return final.ok ? (this.first ?? PASS) : final;
  }
}

const SNIPPET = 160;

/** A short, single-line rendering of what came back, for messages. */
export function describeResponse(ex: Exchange): string {
  if (!ex.response) return `no response (${ex.reason})`;
  const body = ex.response.body.replace(/\s+/g, ' ').trim();
  const shown = body.length > SNIPPET ? `${body.slice(0, SNIPPET)}…` : body;
  return `HTTP ${ex.response.status}${shown ? ` ${shown}` : ''}`;
}

function label(ex: Exchange, what: string | undefined): string {
  return what ?? `${ex.request.method} ${pathOf(ex.request.url)}`;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/**
 * Outcomes that do not depend on what the property expected: 5xx, transport failure, throttling.
 * Undefined when the exchange is an ordinary answer to judge.
 */
export function unexpected(ex: Exchange, what?: string): Outcome | undefined {
  if (ex.verdict === 'server-error' || (ex.response && ex.response.status >= 500)) {
    return serverError(`${label(ex, what)}: the server failed with ${describeResponse(ex)}`);
  }
  if (ex.verdict === 'transport-error' || !ex.response) {
    return transportFailure(`${label(ex, what)}: ${ex.reason || 'no response'}`);
  }
  if (ex.response.status === 429) {
    return assumptionMismatch('rate-limits', `${label(ex, what)}: throttled with HTTP 429 during a conformance run`);
  }
  return undefined;
}

export interface ExpectOptions {
  /** What the request was, for messages ("a commit with 51 ops"). */
  readonly what?: string;
  /** Whom a contrary answer blames. */
  readonly blame: Blame;
}

/**
 * The request must succeed: a 2xx whose body is a valid envelope with `ok: true`. A refusal blames
 * `o.blame`, by default what the endpoint is for (prefer `judgeServed`, which sends controls first).
 */
export function expectAccepted(ex: Exchange, o: Partial<ExpectOptions> = {}): Outcome {
  const u = unexpected(ex, o.what);
  if (u) return u;
  if (ex.verdict === 'accepted') return PASS;
  const status = ex.response!.status;
  if (ex.verdict === 'protocol-error' && status >= 200 && status < 300) {
    return violation(SUCCESS_ENVELOPE, `${label(ex, o.what)}: accepted but the response breaks the envelope (2.1): ${ex.reason}`);
  }
  return blame(o.blame ?? { judgement: SERVES[ex.endpoint] }, `${label(ex, o.what)}: expected acceptance, got ${describeResponse(ex)}`);
}

/**
 * The request must be refused: a 4xx (assumption `error-response` decides whether the body must
 * also be an envelope with `ok: false`). A 2xx or another status is blamed on `o.blame`.
 */
export function expectRejected(ex: Exchange, o: ExpectOptions & { readonly assumptions?: AssumptionSet }): Outcome {
  const u = unexpected(ex, o.what);
  if (u) return u;
  const status = ex.response!.status;
  if (status >= 400 && status < 500) return rejectionForm(ex, status, o);
  return blame(o.blame, `${label(ex, o.what)}: expected a rejection (4xx), got ${describeResponse(ex)}`);
}

/** A 4xx in the form the run's `error-response` reading expects. */
function rejectionForm(ex: Exchange, status: number, o: { what?: string; assumptions?: AssumptionSet }): Outcome {
  if (ex.verdict === 'protocol-error' && o.assumptions?.['error-response'] === 'envelope-ok-false') {
    return assumptionMismatch('error-response', `${label(ex, o.what)}: rejected with HTTP ${status} but ${ex.reason}`);
  }
  if (o.assumptions?.['error-response'] === 'envelope-ok-false') {
    const json = ex.response!.json;
    const ok = isRecord(json) ? json.ok : undefined;
    if (ok !== false) {
      return assumptionMismatch('error-response', `${label(ex, o.what)}: rejected with HTTP ${status} but the body is not an envelope with ok false`);
    }
  }
  return PASS;
}

/** `data` of an accepted envelope, or undefined. */
export function dataOf(ex: Exchange): Record<string, unknown> | undefined {
  const json = ex.response?.json;
  if (!isRecord(json)) return undefined;
  return isRecord(json.data) ? json.data : undefined;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------
// Readings: which multi-choice assumptions a request's validity (or a rejection) rests on.
// ---------------------------------------------------------------------------------------------

/** A reading a schema-valid value rests on, and where in the body it sits (template path). */
export interface ReadingAt {
  readonly assumption: AssumptionName;
  readonly path: string;
}

/**
 * The readings under which a schema-valid body is valid at all: an astral-plane string whose
 * UTF-16 length exceeds a limit its code points meet, a negative usage counter, a field the spec
 * does not list, an empty list where no minimum is stated, a usage day after today. A refusal of
 * such a body is an `assumption` finding, never a violation.
 */
export function readingsAt(endpoint: EndpointId, body: unknown, today: string = new Date().toISOString().slice(0, 10)): ReadingAt[] {
  const found: ReadingAt[] = [];
  const seen = new Set<string>();
  const add = (assumption: AssumptionName, path: string) => {
    const k = `${assumption} ${path}`;
    if (!seen.has(k)) {
      seen.add(k);
      found.push({ assumption, path });
    }
  };
  walkReadings(ENDPOINT_BY_ID[endpoint].body, body, '', add, today);
  return found;
}

/** The readings a body rests on (names only). */
export function readingsOf(endpoint: EndpointId, body: unknown): AssumptionName[] {
  return [...new Set(readingsAt(endpoint, body).map((r) => r.assumption))];
}

function walkReadings(node: Node, value: unknown, path: string, add: (a: AssumptionName, path: string) => void, today: string): void {
  switch (node.kind) {
    case 'string': {
      if (typeof value !== 'string') return;
      if (node.pattern === 'day' && value > today) add('usage-day-window', path);
      if (!node.length) return;
      const l = LIMITS[node.length];
      const cp = codePointLength(value);
      const bytes = Buffer.byteLength(value, 'utf8');
      if ((cp !== value.length || bytes !== cp) && ((l.max !== undefined && Math.max(value.length, bytes) > l.max) || (l.min !== undefined && cp < l.min))) {
        add('characters-are-code-points', path);
      }
      return;
    }
    case 'integer': {
      if (typeof value !== 'number' || !node.range) return;
      const l = LIMITS[node.range];
      if (node.range === 'usageCounter' && l.min === undefined && value < 0) add('usage-counters-negative', path);
      return;
    }
    case 'array':
      if (!Array.isArray(value)) return;
      if (value.length === 0 && (!node.count || LIMITS[node.count].min === undefined)) add('empty-lists', path);
      if (node.chain && buildsOnEarlier(value)) add('batch-chaining', path);
      for (const item of value) walkReadings(node.items, item, `${path}[]`, add, today);
      return;
    case 'object': {
      if (node.freeForm || !isRecord(value)) return;
      for (const [key, v] of Object.entries(value)) {
        const f = node.fields[key];
        const at = path ? `${path}.${key}` : key;
        if (!f) add('unknown-fields-ignored', at);
        else if (v !== null) walkReadings(f.node, v, at, add, today);
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

/**
 * The reading of each value assumption under which such values are served. When the run reads the
 * assumption otherwise (`--assume usage-day-window=not-future`), a refusal of such a value is what
 * the run expects, and no finding at all.
 */
export const SERVING_READING = {
  'characters-are-code-points': 'codepoints',
  'usage-counters-negative': 'accepted',
  'unknown-fields-ignored': 'ignored',
  'empty-lists': 'accepted',
  'usage-day-window': 'any-day',
  'batch-chaining': 'chained',
} as const satisfies { readonly [N in AssumptionName]?: ReadingOf<N> };

/** Whether the run's readings expect a value that rests on `r` to be refused. */
export function refusalExpected(r: ReadingAt, assumptions: AssumptionSet): boolean {
  const serving = (SERVING_READING as Partial<Record<AssumptionName, string>>)[r.assumption];
  return serving !== undefined && assumptions[r.assumption] !== serving;
}

/** Applied, refused, or unknown (Jepsen: a timeout or a 5xx may or may not have applied). */
export type Effect = 'applied' | 'refused' | 'maybe';

export function effectOf(ex: Exchange): Effect {
  if (!ex.response || ex.response.status >= 500 || ex.verdict === 'transport-error') return 'maybe';
  if (ex.response.status >= 200 && ex.response.status < 300) return 'applied';
  return 'refused';
}

/** The `results` array of an accepted commit (empty when absent or malformed). */
export function resultsOf(ex: Exchange): Record<string, unknown>[] {
  const r = dataOf(ex)?.['results'];
  return Array.isArray(r) ? r.filter(isRecord) : [];
}

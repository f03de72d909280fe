/**
 * Shared judging helpers: turn an exchange (or several) into an `Outcome` the same way in every
 * property, so a 5xx is always a `server-error`, a dropped connection always `transport`, a throttle
 * the client could not wait out always unjudged (`rate-limits`), and "rejected" always means what assumption
 * `error-response` says it means. Every finding names its ground: a violation carries its
 * judgement and the clause of SPEC.md it rests on; an assumption finding names its reading.
 */
import { isRecord, must, type AssumptionName, type AssumptionSet, type SpecClause } from '../../spec/index.ts';

/** The one test of a JSON object (src/spec/narrow.ts), re-exported for the judges' callers. */
export { isRecord };
import { resentAfterNoAnswer, type Exchange } from '../../target/client.ts';
import { givenUpNote } from '../../target/throttle.ts';
import type { TimelineData } from '../model/linearizability/index.ts';
import { SERVES, SUCCESS_ENVELOPE, type ConstraintJudgement, type SpecJudgement } from './judgements.ts';
import { PASS, unknownOutcome, type Failure, type FailureDetail, type Outcome } from '../property.ts';

/** The detail fields present in `d`, so that an outcome without them has no keys for them. */
function detailOf(d: FailureDetail): FailureDetail {
  return { ...(d.mismatch ? { mismatch: d.mismatch } : {}), ...(d.exchangeIds?.length ? { exchangeIds: d.exchangeIds } : {}) };
}

export function violation(
  j: SpecJudgement,
  message: string,
  more: { readonly timeline?: TimelineData; readonly independentOf?: readonly AssumptionName[]; readonly hintIfUnknown?: string } & FailureDetail = {},
): Outcome {
  const optional = { ...(more.timeline ? { timeline: more.timeline } : {}), ...(more.independentOf ? { independentOf: more.independentOf } : {}), ...(more.hintIfUnknown ? { hintIfUnknown: more.hintIfUnknown } : {}) };
  return { ok: false, kind: 'violation', message, judgement: j.id, clause: j.ground.clause, ...optional, ...detailOf(more) };
}

/** A violation of a constraint judgement: the clause is the judged constraint's own. */
export function constraintViolation(j: ConstraintJudgement, clause: SpecClause, message: string, detail: FailureDetail = {}): Outcome {
  return { ok: false, kind: 'violation', message, judgement: j.id, clause, ...detailOf(detail) };
}

export function assumptionMismatch(assumption: AssumptionName, message: string, detail: FailureDetail = {}): Extract<Outcome, { readonly kind: 'assumption' }> {
  return { ok: false, kind: 'assumption', assumption, message, ...detailOf(detail) };
}

export function serverError(message: string, detail: FailureDetail = {}): Outcome {
  return { ok: false, kind: 'server-error', message, ...detailOf(detail) };
}

export function transportFailure(message: string, detail: FailureDetail = {}): Outcome {
  return { ok: false, kind: 'transport', message, ...detailOf(detail) };
}

/**
 * Whom a contrary answer blames: a judgement resting on a clause of the spec (a violation), a
 * constraint judgement with the judged constraint's clause, or a registry reading (an assumption).
 */
export type Blame =
  | { readonly judgement: SpecJudgement }
  | { readonly judgement: ConstraintJudgement; readonly clause: SpecClause }
  | { readonly assumption: AssumptionName };

export function blame(b: Blame, message: string, detail: FailureDetail = {}): Outcome {
  if ('assumption' in b) return assumptionMismatch(b.assumption, message, detail);
  if ('clause' in b) return constraintViolation(b.judgement, b.clause, message, detail);
  return violation(b.judgement, message, detail);
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

  /** `final` when it fails, else the first noted reading (the invariant was checked all the same), else PASS. */
  result(final: Outcome): Outcome {
    if (!final.ok) return final;
    return this.first?.kind === 'assumption' ? { ...this.first, checked: true } : PASS;
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

/** A status expectation against what came back, on the exchange it rests on. */
function statusDetail(ex: Exchange, expected: string): FailureDetail {
  return { mismatch: { subject: 'status', expected, observed: ex.response?.status ?? null }, exchangeIds: [ex.id] };
}

function label(ex: Exchange, what: string | undefined): string {
  return what ?? `${ex.request.method} ${pathOf(ex.request.url)}`;
}

/** The request as a method and path, for messages. */
export const requestLine = (ex: Exchange): string => label(ex, undefined);

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
  const t = ex.throttled;
  const persisted = t?.givenUp ? givenUpNote({ retries: t.retries, givenUp: t.givenUp, known: t.known }) : undefined;
  if (ex.verdict === 'server-error' || (ex.response && ex.response.status >= 500)) {
    return serverError(`${label(ex, what)}: the server failed with ${describeResponse(ex)}${persisted ? `; ${persisted}, so it is the server's answer, not throttling` : ''}`, { exchangeIds: [ex.id] });
  }
  if (ex.verdict === 'transport-error' || !ex.response) {
    return transportFailure(`${label(ex, what)}: ${ex.reason || 'no response'}`, { exchangeIds: [ex.id] });
  }
  // The client waits throttles out; one still here outlasted the call's time, or kept coming once backing off stopped helping: nothing was judged.
  if (t?.cutShort || ex.response.status === 429) {
    const waited = t ? ` (${t.retries} retries, ${Math.round(t.waitedMs)} ms waited)` : '';
    const why = persisted ? `${waited}; ${persisted}, and rate limits are not shown (8): not judged` : ` until the call's time ran out${waited}`;
    return transportFailure(`${label(ex, what)}: throttled (${describeResponse(ex)})${why}`, { exchangeIds: [ex.id] });
  }
  return undefined;
}

export interface ExpectOptions {
  /** What the request was, for messages ("a commit with 51 ops"). */
  readonly what?: string;
  /** Whom a contrary answer blames. */
  readonly blame: Blame;
}

/** The answer of an exchange `unexpected` let through. */
const answerOf = (ex: Exchange): Answer => must(ex.response, 'unexpected() gives an outcome to every exchange without a response');
type Answer = NonNullable<Exchange['response']>;

/**
 * The request must succeed: a 2xx whose body is a valid envelope with `ok: true`. A refusal blames
 * `o.blame`, by default what the endpoint is for (prefer `judgeServed`, which sends controls first).
 */
export function expectAccepted(ex: Exchange, o: Partial<ExpectOptions> = {}): Outcome {
  const u = unexpected(ex, o.what);
  if (u) return u;
  if (ex.verdict === 'accepted') return PASS;
  const resent = refusedAfterResend(ex);
  if (resent) return resent;
  const status = answerOf(ex).status;
  if (ex.verdict === 'protocol-error' && status >= 200 && status < 300) {
    return violation(SUCCESS_ENVELOPE, `${label(ex, o.what)}: accepted but the response breaks the envelope (2.1): ${ex.reason}`, { exchangeIds: [ex.id] });
  }
  return blame(o.blame ?? { judgement: SERVES[ex.endpoint] }, `${label(ex, o.what)}: expected acceptance, got ${describeResponse(ex)}`, statusDetail(ex, '2xx'));
}

/**
 * The request must be refused: a 4xx (assumption `error-response` decides whether the body must
 * also be an envelope with `ok: false`). A 2xx or another status is blamed on `o.blame`.
 */
export function expectRejected(ex: Exchange, o: ExpectOptions & { readonly assumptions?: AssumptionSet }): Outcome {
  const u = unexpected(ex, o.what);
  if (u) return u;
  const response = answerOf(ex);
  const status = response.status;
  if (status >= 400 && status < 500) return rejectionForm(ex, response, o);
  // A 2xx with ok false refuses too (section 7); only its form is a reading.
  if (isRefusal(ex)) {
    return o.assumptions?.['error-response'] === 'ok-false-any-status' || !o.assumptions
      ? PASS
      : assumptionMismatch('error-response', `${label(ex, o.what)}: refused with ${status} and ok false instead of a 4xx`, statusDetail(ex, '4xx'));
  }
  return blame(o.blame, `${label(ex, o.what)}: expected a rejection (4xx), got ${describeResponse(ex)}`, statusDetail(ex, '4xx'));
}

/** A 4xx in the form the run's `error-response` reading expects. */
function rejectionForm(ex: Exchange, response: Answer, o: { what?: string; assumptions?: AssumptionSet }): Outcome {
  const status = response.status;
  if (ex.verdict === 'protocol-error' && (o.assumptions?.['error-response'] === 'envelope-ok-false' || o.assumptions?.['error-response'] === 'ok-false-any-status')) {
    return assumptionMismatch('error-response', `${label(ex, o.what)}: rejected with HTTP ${status} but ${ex.reason}`, { exchangeIds: [ex.id] });
  }
  if (o.assumptions?.['error-response'] === 'envelope-ok-false' || o.assumptions?.['error-response'] === 'ok-false-any-status') {
    const json = response.json;
    const ok = isRecord(json) ? json.ok : undefined;
    if (ok !== false) {
      return assumptionMismatch('error-response', `${label(ex, o.what)}: rejected with HTTP ${status} but the body is not an envelope with ok false`, { exchangeIds: [ex.id] });
    }
  }
  return PASS;
}

/**
 * Whether the answer refuses the request: a 4xx, or an envelope whose ok is false under any status
 * (section 7: only successes carry ok true). A 5xx, a timeout or a 429 refuses nothing.
 */
export function isRefusal(ex: Exchange): boolean {
  if (!ex.response || unexpected(ex)) return false;
  const s = ex.response.status;
  return (s >= 400 && s < 500) || ex.verdict === 'rejected';
}

/** `data` of an accepted envelope, or undefined. */
export function dataOf(ex: Exchange): Record<string, unknown> | undefined {
  const json = ex.response?.json;
  if (!isRecord(json)) return undefined;
  return isRecord(json.data) ? json.data : undefined;
}

/** Applied, refused, or unknown (Jepsen: a timeout or a 5xx may or may not have applied). */
export type Effect = 'applied' | 'refused' | 'maybe';

export function effectOf(ex: Exchange): Effect {
  if (!ex.response || ex.response.status >= 500 || ex.verdict === 'transport-error') return 'maybe';
  if (ex.response.status >= 200 && ex.response.status < 300 && ex.verdict !== 'rejected') return 'applied';
  return 'refused';
}

/** The `results` array of an accepted commit (empty when absent or malformed). */
export function resultsOf(ex: Exchange): Record<string, unknown>[] {
  const r = dataOf(ex)?.['results'];
  return Array.isArray(r) ? r.filter(isRecord) : [];
}

/**
 * A 2xx to a commit whose results mark some op with a status other than applied: a refusal in the
 * form `conflict-behaviour=per-op-status` reads (2.6 lists only applied, so its envelope breaks the
 * schema, and it is no answer the classifier calls a refusal).
 */
export function refusesPerOp(ex: Exchange): boolean {
  const status = ex.response?.status;
  if (ex.endpoint !== 'commitOperations' || status === undefined || status < 200 || status >= 300) return false;
  return resultsOf(ex).some((r) => r['status'] !== 'applied');
}

/**
 * A refusal of a copy sent again after no answer (under the nemesis): the earlier copy may have been
 * applied, and this one refused for it (a replayed operation_id, a row already there). Indeterminate,
 * never a refusal to pin on a field, nor a control that proves a request not served.
 */
export function refusedAfterResend(ex: Exchange): Outcome | undefined {
  if (!resentAfterNoAnswer(ex) || ex.verdict === 'accepted' || !(isRefusal(ex) || refusesPerOp(ex))) return undefined;
  return unknownOutcome(`${ex.endpoint} was sent again after its first copy got no answer (the nemesis), and refused (${describeResponse(ex)}): the first copy may have been applied, so the refusal says nothing of this request`);
}

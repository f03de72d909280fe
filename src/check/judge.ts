/**
 * Shared judging helpers: turn an exchange (or several) into an `Outcome` the same way in every
 * property, so a 5xx is always a `server-error`, a dropped connection always `transport`, a 429
 * always the `rate-limits` assumption, and "rejected" always means what assumption
 * `error-response` says it means.
 */
import type { AssumptionName, AssumptionSet } from '../spec/index.ts';
import { ASSUMPTION_BY_NAME, ENDPOINT_BY_ID, LIMITS, codePointLength, type EndpointId, type Node } from '../spec/index.ts';
import type { Exchange } from '../target/client.ts';
import { PASS, type Outcome } from './property.ts';

export function violation(message: string): Outcome {
  return { ok: false, kind: 'violation', message };
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

/** `PASS` when `cond`, else a violation with `message`. */
export function check(cond: boolean, message: string): Outcome {
  return cond ? PASS : violation(message);
}

/** The first failing outcome, or `PASS`. Arguments are evaluated lazily when given as functions. */
export function all(...outcomes: ReadonlyArray<Outcome | (() => Outcome)>): Outcome {
  for (const o of outcomes) {
    const r = typeof o === 'function' ? o() : o;
    if (!r.ok) return r;
  }
  return PASS;
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
  /**
   * When the expectation rests on a "not shown" reading rather than the letter of the spec, the
   * registry name of that reading: a contrary answer is then an assumption mismatch, not a violation.
   */
  readonly assumption?: AssumptionName;
}

/** The request must succeed: a 2xx whose body is a valid envelope with `ok: true`. */
export function expectAccepted(ex: Exchange, o: ExpectOptions = {}): Outcome {
  const u = unexpected(ex, o.what);
  if (u) return u;
  if (ex.verdict === 'accepted') return PASS;
  const status = ex.response!.status;
  if (ex.verdict === 'protocol-error' && status >= 200 && status < 300) {
    return violation(`${label(ex, o.what)}: accepted but the response breaks the envelope (2.1): ${ex.reason}`);
  }
  const msg = `${label(ex, o.what)}: expected acceptance, got ${describeResponse(ex)}`;
  return o.assumption ? assumptionMismatch(o.assumption, msg) : violation(msg);
}

/**
 * The request must be refused: a 4xx (assumption `error-response` decides whether the body must
 * also be an envelope with `ok: false`). A 2xx is a violation unless `o.assumption` says the
 * rejection rests on a reading.
 */
export function expectRejected(ex: Exchange, o: ExpectOptions & { readonly assumptions?: AssumptionSet } = {}): Outcome {
  const u = unexpected(ex, o.what);
  if (u) return u;
  const status = ex.response!.status;
  if (status >= 400 && status < 500) {
    if (ex.verdict === 'protocol-error') {
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
  if (status >= 200 && status < 300) {
    const msg = `${label(ex, o.what)}: expected a rejection (4xx), got ${describeResponse(ex)}`;
    return o.assumption ? assumptionMismatch(o.assumption, msg) : violation(msg);
  }
  return violation(`${label(ex, o.what)}: expected a rejection (4xx), got ${describeResponse(ex)}`);
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


/**
 * Whether a registry reading has alternatives. A requirement that holds under every reading of an
 * assumption (or under its only reading) is judged as the letter of the spec.
 */
export function hasAlternatives(name: AssumptionName): boolean {
  return (ASSUMPTION_BY_NAME.get(name)?.choices.length ?? 0) > 1;
}

/**
 * The multi-choice readings under which a schema-valid body is valid at all: an astral-plane
 * string whose UTF-16 length exceeds a limit its code points meet, a negative usage counter, a
 * field the spec does not list. A rejection of such a body is an `assumption` finding, never a
 * violation.
 */
export function readingsOf(endpoint: EndpointId, body: unknown): AssumptionName[] {
  const found = new Set<AssumptionName>();
  walkReadings(ENDPOINT_BY_ID[endpoint].body, body, found);
  return [...found];
}

function walkReadings(node: Node, value: unknown, found: Set<AssumptionName>): void {
  switch (node.kind) {
    case 'string': {
      if (typeof value !== 'string' || !node.length) return;
      const l = LIMITS[node.length];
      const cp = codePointLength(value);
      if (cp !== value.length && ((l.max !== undefined && value.length > l.max) || (l.min !== undefined && cp < l.min))) {
        found.add('characters-are-code-points');
      }
      return;
    }
    case 'integer': {
      if (typeof value !== 'number' || !node.range) return;
      const l = LIMITS[node.range];
      if (node.range === 'usageCounter' && l.min === undefined && value < 0) found.add('usage-counters-negative');
      return;
    }
    case 'array':
      if (Array.isArray(value)) for (const item of value) walkReadings(node.items, item, found);
      return;
    case 'object': {
      if (node.freeForm || !isRecord(value)) return;
      for (const [key, v] of Object.entries(value)) {
        const f = node.fields[key];
        if (!f) found.add('unknown-fields-ignored');
        else if (v !== null) walkReadings(f.node, v, found);
      }
      return;
    }
    default:
      return;
  }
}

/**
 * Acceptance of a schema-valid request: a refusal is a violation only when the request is valid
 * under every reading and the target serves a plain request of the same endpoint (`baseline`);
 * otherwise it is an assumption mismatch naming the reading at stake.
 */
export function judgeRefusal(
  ex: Exchange,
  o: { what?: string; readings: readonly AssumptionName[]; baseline?: Exchange; environment: AssumptionName },
): Outcome {
  const first = expectAccepted(ex, { what: o.what });
  if (first.ok || first.kind !== 'violation' || !ex.response || ex.response.status >= 500 || ex.response.status < 400) return first;
  if (o.readings.length > 0) return assumptionMismatch(o.readings[0]!, `${first.message} (valid only under reading ${o.readings.join(', ')})`);
  if (o.baseline) {
    const b = unexpected(o.baseline);
    if (b) return b;
    if (o.baseline.verdict !== 'accepted') {
      return assumptionMismatch(o.environment, `${first.message}; a plain request to the same endpoint is refused too (${describeResponse(o.baseline)})`);
    }
  }
  return first;
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

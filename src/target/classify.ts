/**
 * Judging a response: the five verdicts and a short sentence saying why. Pure, so the rules can be
 * tested without a network.
 */
import { parseJson, schemasOf, issuesOf, type Endpoint, type SchemaIssue } from '../spec/index.ts';
import { errorCodes } from './error-codes.ts';
import { describeProxyFailure } from './proxy.ts';
import { describeTlsFailure } from './tls.ts';

export const VERDICTS = ['accepted', 'rejected', 'server-error', 'protocol-error', 'transport-error'] as const;
export type Verdict = (typeof VERDICTS)[number];

export interface ResponseFacts {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly truncated: boolean;
  /** Set when the body went past the bound pouchproof reads (`limits.responseBytes`): that bound. */
  readonly overCap?: number;
  /** The parsed body, when the body is complete and JSON. */
  readonly json?: unknown;
}

export interface Judgement {
  readonly verdict: Verdict;
  readonly reason: string;
  /** For a transport error: how the exchange failed (the runner tells a dead target from a stalled one by it). */
  readonly failure?: TransportFailure;
  /** For a 2xx answer that breaks its endpoint's response schema: every issue, as data (`reason` names the first few). */
  readonly schemaIssues?: readonly SchemaIssue[];
}

/**
 * How an exchange failed below HTTP: `refused` (nothing listens), `closed` (the target dropped the
 * connection, before or during the response), `timeout` (no complete response in time), `aborted`
 * (pouchproof itself gave up: its time bound ended the call, not the target's doing), `other`.
 */
export const TRANSPORT_FAILURES = ['refused', 'closed', 'timeout', 'aborted', 'other'] as const;
export type TransportFailure = (typeof TRANSPORT_FAILURES)[number];

/** Parses a complete body as JSON; undefined when it is not JSON (or is empty). */
export function parseJsonBody(body: string, truncated: boolean): { json: unknown } | undefined {
  if (truncated || body.trim() === '') return undefined;
  try {
    return { json: parseJson(body) };
  } catch {
    return undefined;
  }
}

function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const media = contentType.split(';')[0].trim().toLowerCase();
  return media === 'application/json';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A short label for what a 4xx body says, e.g. `(code: stale_base)`. */
function errorHint(json: unknown): string {
  if (!isObject(json)) return '';
  const err = json['error'];
  const pick = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v.slice(0, 60) : undefined);
  const code = isObject(err) ? pick(err['code']) ?? pick(err['message']) : pick(err) ?? pick(json['code']);
  return code ? ` (${JSON.stringify(code)})` : '';
}

const MAX_ISSUES_SHOWN = 3;

export function classifyResponse(endpoint: Endpoint, r: ResponseFacts): Judgement {
  const { status } = r;
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    return { verdict: 'protocol-error', reason: `status ${status} is not an HTTP status code` };
  }
  if (status < 200) return { verdict: 'protocol-error', reason: `unexpected informational status ${status} as the final response` };
  if (status >= 300 && status < 400) {
    const loc = r.headers['location'];
    return { verdict: 'protocol-error', reason: `unexpected redirect ${status}${loc ? ` to ${loc.slice(0, 100)}` : ''}` };
  }
  if (status >= 500) return { verdict: 'server-error', reason: `server error ${status}` };
  // Past the bound nothing was judged: the answer is incomplete by pouchproof's limit, never the target's fault.
  if (r.overCap !== undefined) {
    return {
      verdict: 'transport-error',
      reason: `response body over ${r.overCap} bytes (HTTP ${status}): more than any answer the spec allows; the rest was not read (limits.responseBytes in the profile raises the bound)`,
      failure: 'other',
    };
  }
  if (status >= 400) {
    if (isObject(r.json) && 'ok' in r.json && r.json['ok'] === true) {
      return { verdict: 'protocol-error', reason: `status ${status} but the body says ok: true` };
    }
    return { verdict: 'rejected', reason: `rejected with ${status}${errorHint(r.json)}` };
  }
  // 2xx
  if (r.truncated) return { verdict: 'protocol-error', reason: `${status} response body is incomplete` };
  const ct = r.headers['content-type'];
  if (!isJsonMediaType(ct)) {
    return { verdict: 'protocol-error', reason: `${status} response has content type ${ct ? JSON.stringify(ct.slice(0, 80)) : '(none)'}, not application/json` };
  }
  if (r.json === undefined) {
    return { verdict: 'protocol-error', reason: r.body.trim() === '' ? `${status} response has an empty body` : `${status} response body is not JSON` };
  }
  // Section 7: successes carry ok true. An envelope whose ok is false is no success, whatever its status: a refusal.
  if (isObject(r.json) && r.json['ok'] === false) {
    return { verdict: 'rejected', reason: `refused with ${status} and ok: false${errorHint(r.json)}` };
  }
  const issues = issuesOf(schemasOf(endpoint).envelope, r.json);
  if (issues.length > 0) {
    const shown = issues
      .slice(0, MAX_ISSUES_SHOWN)
      .map((i) => `${i.path || '(body)'}: ${i.kind}`)
      .join(', ');
    const more = issues.length > MAX_ISSUES_SHOWN ? ` and ${issues.length - MAX_ISSUES_SHOWN} more` : '';
    return { verdict: 'protocol-error', reason: `${status} response breaks the ${endpoint.section} response schema: ${shown}${more}`, schemaIssues: issues };
  }
  if (!isObject(r.json) || r.json['ok'] !== true) {
    return { verdict: 'protocol-error', reason: `${status} response does not say ok: true` };
  }
  return { verdict: 'accepted', reason: `accepted with ${status}` };
}

/** A failure below HTTP semantics: nothing (or only part) of a response arrived. */
export function classifyFailure(
  err: unknown,
  ctx: {
    timedOut: boolean; timeoutMs: number; connectMs: number; host: string; stage: 'connect' | 'headers' | 'body';
    /** The proxy in the way, as shown. */
    proxy?: string;
    /** A TLS alert the connection got meanwhile (the closed connection it explains says nothing of its own). */
    tlsAlert?: unknown;
  },
): Judgement {
  if (ctx.timedOut) {
    const what = ctx.stage === 'body' ? 'the response body did not finish' : 'no response';
    return { verdict: 'transport-error', reason: `${what} within ${ctx.timeoutMs} ms`, failure: 'timeout' };
  }
  const codes = errorCodes(err);
  const has = (c: string): boolean => codes.includes(c);
  if (codes.some((c) => c.startsWith('HPE_'))) {
    return { verdict: 'protocol-error', reason: `invalid HTTP response (${codes.find((c) => c.startsWith('HPE_'))})` };
  }
  const tls = describeTlsFailure(err, ctx.host) ?? (ctx.tlsAlert !== undefined ? describeTlsFailure(ctx.tlsAlert, ctx.host) : undefined);
  if (tls) return { verdict: 'transport-error', reason: tls, failure: 'other' };
  // Through a proxy, a refusal or a drop is the proxy's to report: it says nothing of whether the target is up.
  if (ctx.proxy) {
    const proxied = describeProxyFailure(err, ctx.proxy, ctx.host);
    if (proxied) return { verdict: 'transport-error', reason: proxied, failure: 'other' };
  }
  if (has('ECONNREFUSED')) return { verdict: 'transport-error', reason: `connection refused by ${ctx.host}`, failure: 'refused' };
  if (has('ENOTFOUND') || has('EAI_AGAIN') || has('EAI_NONAME')) return { verdict: 'transport-error', reason: `DNS lookup failed for ${ctx.host}` };
  if (has('UND_ERR_CONNECT_TIMEOUT')) return { verdict: 'transport-error', reason: `no connection to ${ctx.host} within ${ctx.connectMs} ms`, failure: 'timeout' };
  if (has('UND_ERR_RES_CONTENT_LENGTH_MISMATCH')) return { verdict: 'transport-error', reason: 'response body shorter or longer than its content-length', failure: 'closed' };
  if (has('UND_ERR_HEADERS_OVERFLOW')) return { verdict: 'transport-error', reason: 'response headers too large' };
  if (has('ECONNRESET') || has('UND_ERR_SOCKET') || has('EPIPE')) {
    const when = ctx.stage === 'body' ? 'during the response body' : 'before a response';
    return { verdict: 'transport-error', reason: `connection closed by the target ${when}`, failure: 'closed' };
  }
  if (has('EHOSTUNREACH') || has('ENETUNREACH')) return { verdict: 'transport-error', reason: `${ctx.host} is unreachable`, failure: 'refused' };
  if (has('ETIMEDOUT')) return { verdict: 'transport-error', reason: `connection to ${ctx.host} timed out`, failure: 'timeout' };
  const msg = err instanceof Error ? err.message : String(err);
  return { verdict: 'transport-error', reason: `${codes[0] ?? 'transport failure'}: ${msg.replace(/[\r\n]+/g, ' ').slice(0, 120)}`, failure: 'other' };
}

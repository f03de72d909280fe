/**
 * A finding's HTTP exchanges as data (for the HAR export and the HTML report): each request as
 * sent and what came back, secrets from the profile masked before anything is kept. Bodies are
 * kept up to a bound (an envelope can be megabytes): a report must stay openable.
 */
import { isUtf8 } from 'node:buffer';
import { z } from 'zod';
import { TRANSPORT_FAILURES, VERDICTS, type Exchange } from '../../target/client.ts';
import { maskList, redact, redactBytes } from '../../target/redact.ts';
import { GIVE_UPS } from '../../target/throttle.ts';
import { NEMESIS_FAULTS } from '../../target/nemesis/index.ts';
import { TLS_MIN_VERSIONS } from '../../target/tls.ts';

/** Characters of one body kept (text, or base64 of bytes that are not UTF-8 text). */
export const MAX_RECORDED_BODY_CHARS = 16_384;

/** A body as kept: its text (or base64 of bytes that are not UTF-8), cut at `MAX_RECORDED_BODY_CHARS`, and its whole size in bytes. */
export const RecordedBodySchema = z.strictObject({
  text: z.string(),
  encoding: z.literal('base64').optional(),
  size: z.number().int().nonnegative(),
  /** `text` holds only the start of the body. */
  clipped: z.literal(true).optional(),
});
export type RecordedBody = z.infer<typeof RecordedBodySchema>;

const MaterialOriginSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('file'), path: z.string() }),
  z.strictObject({ kind: z.literal('env'), name: z.string() }),
  z.strictObject({ kind: z.literal('inline') }),
]);

/** The way a request went, as its curl line shows it (target/curl.ts `CurlRoute`): the proxy (masked), the TLS files by their paths, never their contents. */
const RecordedRouteSchema = z.strictObject({
  proxy: z.strictObject({ url: z.string() }).optional(),
  tls: z
    .strictObject({
      origins: z.strictObject({ ca: MaterialOriginSchema.optional(), cert: MaterialOriginSchema.optional(), key: MaterialOriginSchema.optional() }),
      servername: z.string().optional(),
      minVersion: z.enum(TLS_MIN_VERSIONS).optional(),
      passphrase: z.boolean(),
    })
    .optional(),
});

/** One HTTP exchange of a finding, as report.json keeps it and the HAR export and the HTML report show it: the schema is the type. */
export const RecordedExchangeSchema = z.strictObject({
  id: z.number().int(),
  endpoint: z.string(),
  /** When the request was sent (ISO 8601). */
  startedAt: z.iso.datetime(),
  request: z.strictObject({ method: z.string(), url: z.string(), headers: z.record(z.string(), z.string()), body: RecordedBodySchema }),
  /** Set when masking the profile's secrets changed the request (its URL, a header or the body): a curl line of it must have them filled in. */
  masked: z.literal(true).optional(),
  /** Through a proxy or with a TLS block of the profile: how the request went, for its curl line. */
  route: RecordedRouteSchema.optional(),
  /** Absent when nothing (or no status line) came back. */
  response: z.strictObject({ status: z.number().int(), headers: z.record(z.string(), z.string()), body: RecordedBodySchema, truncated: z.boolean() }).optional(),
  verdict: z.enum(VERDICTS),
  reason: z.string(),
  failure: z.enum(TRANSPORT_FAILURES).optional(),
  timings: z.strictObject({ headersMs: z.number().nonnegative().optional(), totalMs: z.number().nonnegative() }),
  /** Sent again on a fresh connection after a stale keep-alive one closed under it (client.ts), and why. */
  resent: z.string().optional(),
  /**
   * The target throttled it first (429, or 503 with Retry-After): how often, how long was waited, whether the wait was cut short,
   * and why it stopped waiting when the refusal stayed with this request (`givenUp`, throttle.ts `GiveUp`),
   * with how many requests of its kind (endpoint and status) were given up before (`known`).
   */
  throttled: z
    .strictObject({ retries: z.number().int().nonnegative(), waitedMs: z.number().nonnegative(), cutShort: z.boolean().optional(), givenUp: z.enum(GIVE_UPS).optional(), known: z.number().int().positive().optional() })
    .optional(),
  /** Under the nemesis: the copies sent (a copy with no answer is sent again), and each fault injected, with the copy it hit (client.ts `ExchangeNemesis`). */
  nemesis: z
    .strictObject({
      attempts: z.number().int().positive(),
      faults: z.array(z.strictObject({ attempt: z.number().int().positive(), fault: z.enum(NEMESIS_FAULTS), detail: z.string() })),
    })
    .optional(),
});
export type RecordedExchange = z.infer<typeof RecordedExchangeSchema>;

/**
 * The body as kept: decoded from at most the bytes the kept characters can take, and copied, so
 * that the record never holds the whole body alive (a slice of a long string keeps its parent).
 */
function bodyOfBytes(bytes: Uint8Array, size: number): RecordedBody {
  const utf8 = isUtf8(bytes);
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // A character is at most 4 UTF-8 bytes; base64 makes 4 characters of 3 bytes.
  const take = utf8 ? MAX_RECORDED_BODY_CHARS * 4 : Math.ceil(MAX_RECORDED_BODY_CHARS / 4) * 3;
  const head = buf.subarray(0, Math.min(buf.length, take));
  const decoded = utf8 ? head.toString('utf8') : head.toString('base64');
  const clipped = head.length < buf.length || decoded.length > MAX_RECORDED_BODY_CHARS;
  const text = decoded.length > MAX_RECORDED_BODY_CHARS ? flat(decoded.slice(0, MAX_RECORDED_BODY_CHARS)) : decoded;
  return { text, ...(utf8 ? {} : { encoding: 'base64' as const }), size, ...(clipped ? { clipped: true as const } : {}) };
}

/** A string of its own (not a slice keeping a longer one alive). */
function flat(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

/**
 * A response body (text) as kept: only its start is masked and copied, with room for a secret that
 * begins before the cut, so a large body costs no copy of its own.
 */
function bodyOfText(body: string, secrets: readonly string[]): RecordedBody {
  const margin = maskList(secrets)[0]?.length ?? 0;
  const head = body.length > MAX_RECORDED_BODY_CHARS + margin ? flat(body.slice(0, MAX_RECORDED_BODY_CHARS + margin)) : body;
  const masked = redact(head, secrets);
  const text = masked.length > MAX_RECORDED_BODY_CHARS ? flat(masked.slice(0, MAX_RECORDED_BODY_CHARS)) : masked;
  return { text, size: Buffer.byteLength(body, 'utf8'), ...(text.length < masked.length || head.length < body.length ? { clipped: true as const } : {}) };
}

function maskHeaders(h: Readonly<Record<string, string>>, secrets: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[redact(k, secrets)] = redact(v, secrets);
  return out;
}

/** The route as its curl line shows it: the proxy's URL masked (its credentials are secrets), the TLS block as it is (paths and flags, no material). */
function routeOf(route: NonNullable<Exchange['route']>, secrets: readonly string[]): NonNullable<RecordedExchange['route']> {
  const tls = route.tls;
  return {
    ...(route.proxy ? { proxy: { url: redact(route.proxy.url, secrets) } } : {}),
    ...(tls
      ? { tls: { origins: { ...tls.origins }, ...(tls.servername !== undefined ? { servername: tls.servername } : {}), ...(tls.minVersion ? { minVersion: tls.minVersion } : {}), passphrase: tls.passphrase } }
      : {}),
  };
}

/** One exchange as data, every secret of the profile masked (in the URL, headers and both bodies). */
export function recordExchange(ex: Exchange, secrets: readonly string[]): RecordedExchange {
  const reqBody = redactBytes(ex.request.body, secrets);
  const res = ex.response;
  const request = { method: ex.request.method, url: redact(ex.request.url, secrets), headers: maskHeaders(ex.request.headers, secrets), body: bodyOfBytes(reqBody, ex.request.body.byteLength) };
  const route = ex.route ? routeOf(ex.route, secrets) : undefined;
  const masked =
    reqBody !== ex.request.body || request.url !== ex.request.url || Object.entries(ex.request.headers).some(([k, v]) => request.headers[k] !== v) || route?.proxy?.url !== ex.route?.proxy?.url;
  return {
    id: ex.id,
    endpoint: ex.endpoint,
    startedAt: new Date(ex.timings.startedAt).toISOString(),
    request,
    ...(masked ? { masked: true as const } : {}),
    ...(route ? { route } : {}),
    ...(res
      ? {
          response: {
            status: res.status,
            headers: maskHeaders(res.headers, secrets),
            body: bodyOfText(res.body, secrets),
            truncated: res.truncated,
          },
        }
      : {}),
    verdict: ex.verdict,
    reason: redact(ex.reason, secrets),
    ...(ex.failure ? { failure: ex.failure } : {}),
    timings: { ...(ex.timings.headersMs !== undefined ? { headersMs: ex.timings.headersMs } : {}), totalMs: ex.timings.totalMs },
    ...(ex.resent ? { resent: redact(ex.resent, secrets) } : {}),
    ...(ex.throttled ? { throttled: { retries: ex.throttled.retries, waitedMs: Math.round(ex.throttled.waitedMs), ...(ex.throttled.cutShort ? { cutShort: true } : {}), ...(ex.throttled.givenUp ? { givenUp: ex.throttled.givenUp } : {}), ...(ex.throttled.known ? { known: ex.throttled.known } : {}) } } : {}),
    ...(ex.nemesis ? { nemesis: { attempts: ex.nemesis.attempts, faults: ex.nemesis.faults.map((f) => ({ ...f })) } } : {}),
  };
}

/** The last `max` exchanges of a case (the ones its curl lines show), recorded. */
export function recordExchanges(exchanges: readonly Exchange[], secrets: readonly string[], max: number): RecordedExchange[] {
  return exchanges.slice(-max).map((ex) => recordExchange(ex, secrets));
}

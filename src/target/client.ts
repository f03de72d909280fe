/**
 * The HTTP client every property and scenario talks to the target through. One call sends one
 * endpoint request and returns an `Exchange`: the request exactly as sent, what came back, and a
 * verdict. Target misbehaviour (garbage, resets, stalls, floods) is always classified, never thrown;
 * responses are read under a byte cap and a time bound, so nothing is buffered without limit.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { canonicalize } from '../crypto/canonical.ts';
import { ENDPOINT_BY_ID, SIGNATURE_HEADER, buildPath, type AssumptionSet, type Endpoint, type EndpointId, type MemberKind } from '../spec/index.ts';
import { classifyFailure, classifyResponse, parseJsonBody, type TransportFailure, type Verdict } from './classify.ts';
import type { Identity, Profile } from './profile.ts';
import { signatureFor, type SignatureOption } from './signing.ts';
import { RecentRate, Throttle, sleep, throttleWait, type ThrottleOptions, type ThrottleStats } from './throttle.ts';

export type { TransportFailure, Verdict } from './classify.ts';

export interface CallOptions {
  endpoint: EndpointId;
  params: Record<string, string>;
  body?: unknown;
  rawBody?: Uint8Array | string;
  /** Default: primary account, the endpoint's `caller` kind. */
  as?: { account?: 'primary' | 'secondary'; member: MemberKind } | 'anonymous';
  /** auto: sign when a device calls a signedByDevice endpoint. */
  signature?: SignatureOption;
  /** Added or overridden (names are case-insensitive); `undefined` removes a header. */
  headers?: Record<string, string | undefined>;
  timeoutMs?: number;
  /**
   * Hold back the last body byte until resolved. The time bound restarts when the gate opens.
   * Gated calls each hold a connection: release at most `profile.connections` together.
   */
  gate?: Promise<void>;
  /** Called once everything but the last body byte has been handed to the connection. */
  onHeld?: () => void;
  /** Gives up the call when aborted (a time bound of pouchproof's own): the exchange then says `aborted`, never blames the target. */
  signal?: AbortSignal;
  /** The readings a signature is made under (default: the profile's). */
  assumptions?: AssumptionSet;
}

export interface Exchange {
  id: number;
  endpoint: EndpointId;
  request: { method: string; url: string; headers: Record<string, string>; body: Uint8Array };
  /** `truncated`: the body is incomplete, cut at the size cap or by a transport failure. */
  response?: { status: number; headers: Record<string, string>; body: string; truncated: boolean; json?: unknown };
  verdict: Verdict;
  reason: string;
  /** For a transport error: how it failed (see `TransportFailure`). */
  failure?: TransportFailure;
  timings: { startedAt: number; headersMs?: number; totalMs: number };
  /**
   * The target throttled this request (429, or 503 with Retry-After) and the client waited and sent
   * it again: how often, and how long it waited in all. `cutShort`: the call's time ran out while
   * it waited, so it ended unanswered.
   */
  throttled?: { readonly retries: number; readonly waitedMs: number; readonly cutShort?: boolean };
}

export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

class GateRejected extends Error {
  constructor() {
    super('the gate promise was rejected');
    this.name = 'GateRejected';
  }
}

function flattenHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? new Uint8Array(Buffer.from(data, 'utf8')) : data;
}

export class TargetClient {
  readonly profile: Profile;
  private readonly pool: Pool;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly host: string;
  private readonly maxResponseBytes: number;
  private nextId = 1;

  private readonly throttle: Throttle;
  private readonly recent = new RecentRate();

  constructor(profile: Profile, opts: { maxResponseBytes?: number; throttle?: ThrottleOptions } = {}) {
    this.profile = profile;
    this.throttle = new Throttle(opts.throttle);
    const u = new URL(profile.baseUrl);
    this.origin = u.origin;
    this.host = u.host;
    this.prefix = u.pathname.replace(/\/+$/, '');
    this.maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.pool = new Pool(this.origin, {
      connections: profile.connections,
      connect: { timeout: profile.timeouts.connectMs },
      // Each call has its own total time bound; undici's per-phase timers would only race it.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  /** The identity a call uses; throws when the call asks for one the profile does not have. */
  identityFor(endpoint: Endpoint, as: CallOptions['as']): Identity | undefined {
    if (as === 'anonymous') return undefined;
    if (as === undefined) return this.profile.accounts.primary[endpoint.caller];
    const name = as.account ?? 'primary';
    const account = this.profile.accounts[name];
    if (!account) throw new Error(`profile ${this.profile.name} has no ${name} account`);
    const id = account[as.member];
    if (!id) throw new Error(`profile ${this.profile.name} has no ${as.member} credentials in its ${name} account`);
    return id;
  }

  /** The request a call would send, without sending it. */
  buildRequest(o: CallOptions): { endpoint: Endpoint; path: string; request: Exchange['request'] } {
    const endpoint = ENDPOINT_BY_ID[o.endpoint];
    if (!endpoint) throw new Error(`unknown endpoint ${String(o.endpoint)}`);
    const path = this.prefix + buildPath(endpoint, o.params);
    const identity = this.identityFor(endpoint, o.as);
    // A signed body goes out in its canonical form: then the bytes hash alike under every reading of
    // `canonical-json` (JCS, raw bytes, sorted compact), and no signature is refused for that choice.
    const json = o.body === undefined ? undefined : endpoint.signedByDevice ? canonicalize(o.body) : JSON.stringify(o.body);
    const body = o.rawBody !== undefined ? toBytes(o.rawBody) : toBytes(json ?? '');
    const headers: Record<string, string> = {};
    if (o.rawBody !== undefined || json !== undefined) headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.byteLength);
    for (const [k, v] of Object.entries(identity?.headers ?? {})) headers[k.toLowerCase()] = v;
    const sig = signatureFor({ option: o.signature, endpoint, identity, bytes: body, assumptions: o.assumptions ?? this.profile.assumptions });
    if (sig !== undefined) headers[SIGNATURE_HEADER] = sig;
    for (const [k, v] of Object.entries(o.headers ?? {})) {
      if (v === undefined) delete headers[k.toLowerCase()];
      else headers[k.toLowerCase()] = v;
    }
    // The path is kept as built: URL parsing would resolve dot segments a hostile parameter may hold.
    return { endpoint, path, request: { method: endpoint.method, url: this.origin + path, headers, body } };
  }

  /**
   * Sends one call; a throttling answer (429, or 503 with Retry-After) is waited out and the same
   * request sent again (throttle.ts), so the exchange returned is the target's real answer, or the
   * last throttle when the call's time ran out while it waited (`throttled.cutShort`).
   */
  async call(o: CallOptions): Promise<Exchange> {
    let retries = 0;
    let waitedMs = 0;
    for (;;) {
      await this.throttle.turn(o.signal);
      this.recent.add();
      const ex = await this.sendOnce(o);
      const w = ex.response ? throttleWait(ex.response.status, ex.response.headers) : undefined;
      if (!w) {
        if (ex.response) this.throttle.answered();
        return retries ? { ...ex, throttled: { retries, waitedMs } } : ex;
      }
      const wait = this.throttle.throttle(w, retries, this.recent.perSecond);
      if (o.signal?.aborted || waitedMs + wait > this.throttle.maxWaitMs) return { ...ex, throttled: { retries, waitedMs, cutShort: true } };
      const t0 = performance.now();
      await sleep(wait, o.signal);
      const spent = performance.now() - t0;
      waitedMs += spent;
      this.throttle.spent(spent);
      if (o.signal?.aborted) return { ...ex, throttled: { retries, waitedMs, cutShort: true } };
      retries++;
    }
  }

  /** What the target's throttling cost the calls so far. */
  throttling(): ThrottleStats {
    return this.throttle.stats();
  }

  private async sendOnce(o: CallOptions): Promise<Exchange> {
    const { endpoint, path, request } = this.buildRequest(o);
    const id = this.nextId++;
    const startedAt = Date.now();
    const t0 = performance.now();
    const timeoutMs = o.timeoutMs ?? this.profile.timeouts.requestMs;
    const controller = new AbortController();
    let timedOut = false;
    let gateWaiting = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
    };
    arm();
    let aborted = false;
    const onAbort = (): void => {
      aborted = true;
      controller.abort();
    };
    if (o.signal?.aborted) onAbort();
    else o.signal?.addEventListener('abort', onAbort, { once: true });
    // The gate is awaited only once the body is under way; mark a rejection handled now.
    o.gate?.catch(() => undefined);

    const base = { id, endpoint: endpoint.id, request };
    let stage: 'connect' | 'headers' | 'body' = 'headers';
    let headersMs: number | undefined;
    let partial: Exchange['response'] | undefined;
    try {
      // undici streams async iterables chunk by chunk (its types only list Readable, which would
      // read ahead of the socket and call onHeld too early).
      const onGate = (waiting: boolean): void => {
        gateWaiting = waiting;
        if (!waiting) arm(); // the time bound restarts once released
      };
      const body = o.gate ? (gatedBody(request.body, o.gate, onGate, o.onHeld) as unknown as Readable) : Buffer.from(request.body);
      const res = await this.pool.request({
        path,
        method: request.method,
        headers: request.headers,
        body,
        signal: controller.signal,
      });
      headersMs = performance.now() - t0;
      stage = 'body';
      const status = res.statusCode;
      const headers = flattenHeaders(res.headers);
      partial = { status, headers, body: '', truncated: true };
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      try {
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          const room = this.maxResponseBytes - size;
          if (chunk.length > room) {
            if (room > 0) chunks.push(chunk.subarray(0, room));
            size += Math.max(room, 0);
            truncated = true;
            break;
          }
          chunks.push(chunk);
          size += chunk.length;
        }
      } finally {
        // Whatever stopped the read, the rest of the body must not stay buffered or hold the socket.
        if (!res.body.destroyed && (truncated || !res.body.readableEnded)) res.body.destroy();
        partial.body = Buffer.concat(chunks).toString('utf8');
      }
      const text = partial.body;
      const parsed = parseJsonBody(text, truncated);
      const response = { status, headers, body: text, truncated, ...(parsed ? { json: parsed.json } : {}) };
      const j = classifyResponse(endpoint, response);
      return { ...base, response, verdict: j.verdict, reason: j.reason, timings: { startedAt, headersMs, totalMs: performance.now() - t0 } };
    } catch (err) {
      if ((err as { code?: unknown }).code === 'UND_ERR_INVALID_ARG') {
        throw new Error(`cannot send ${endpoint.id}: ${(err as Error).message}`);
      }
      const j =
        err instanceof GateRejected || (err as { cause?: unknown }).cause instanceof GateRejected
          ? { verdict: 'transport-error' as const, reason: 'not sent: the gate promise was rejected', failure: 'aborted' as const }
          : aborted && !timedOut
            ? { verdict: 'transport-error' as const, reason: 'not completed: pouchproof\'s own time bound ended the call', failure: 'aborted' as const }
            : timedOut && gateWaiting
              ? { verdict: 'transport-error' as const, reason: `not completed: the gate did not open within ${timeoutMs} ms`, failure: 'aborted' as const }
              : classifyFailure(err, { timedOut, timeoutMs, connectMs: this.profile.timeouts.connectMs, host: this.host, stage });
      return {
        ...base,
        ...(partial ? { response: partial } : {}),
        verdict: j.verdict,
        reason: j.reason,
        ...(j.failure ? { failure: j.failure } : {}),
        timings: { startedAt, ...(headersMs !== undefined ? { headersMs } : {}), totalMs: performance.now() - t0 },
      };
    } finally {
      if (timer) clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    let t: NodeJS.Timeout | undefined;
    const grace = new Promise<'timeout'>((r) => (t = setTimeout(() => r('timeout'), 1000)));
    const outcome = await Promise.race([this.pool.close().then(() => 'closed' as const), grace]);
    clearTimeout(t);
    if (outcome === 'timeout') await this.pool.destroy();
  }
}

/** All of the body but its last byte, then (once the gate opens) the last byte. */
async function* gatedBody(
  bytes: Uint8Array,
  gate: Promise<void>,
  waiting: (w: boolean) => void,
  onHeld?: () => void,
): AsyncGenerator<Uint8Array> {
  if (bytes.byteLength > 1) yield Buffer.from(bytes.subarray(0, bytes.byteLength - 1));
  waiting(true);
  onHeld?.();
  try {
    await gate;
  } catch {
    throw new GateRejected();
  }
  waiting(false);
  if (bytes.byteLength > 0) yield Buffer.from(bytes.subarray(bytes.byteLength - 1));
}

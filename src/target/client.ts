/**
 * The HTTP client every property and scenario talks to the target through. One call sends one
 * endpoint request and returns an `Exchange`: the request exactly as sent, what came back, and a
 * verdict. Target misbehaviour (garbage, resets, stalls, floods) is always classified, never thrown;
 * responses are read under a byte cap and a time bound, so nothing is buffered without limit.
 */
import { performance } from 'node:perf_hooks';
import { Pool, ProxyAgent, buildConnector, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { canonicalize } from '../crypto/index.ts';
import { ENDPOINT_BY_ID, SIGNATURE_HEADER, buildPath, type AssumptionSet, type Endpoint, type EndpointBody, type EndpointData, type EndpointId, type EndpointParams, type MemberKind, type SchemaIssue } from '../spec/index.ts';
import { classifyFailure, classifyResponse, parseJsonBody, type TransportFailure, type Verdict } from './classify.ts';
import { causeChain } from './error-codes.ts';
import type { Identity, Profile } from './profile.ts';
import { shownProxy, type ProxyRoute } from './proxy.ts';
import { signatureFor, type SignatureOption } from './signing.ts';
import { RecentRate, Throttle, sleep, throttleWait, type GiveUp, type Refusal, type ThrottleOptions, type ThrottleStats } from './throttle.ts';
import { describeTlsFailure, tlsConnectOptions, type TlsSettings } from './tls.ts';
import { Nemesis, NEMESIS_TAG_HEADER, upstreamOf, type NemesisFault, type NemesisSummary } from './nemesis/index.ts';
import { connect as netConnect } from 'node:net';

export { TRANSPORT_FAILURES, VERDICTS, type TransportFailure, type Verdict } from './classify.ts';

export interface CallOptions {
  endpoint: EndpointId;
  params: Record<string, string>;
  body?: unknown;
  rawBody?: Uint8Array | string;
  /** Default: primary account, the endpoint's `caller` kind. */
  as?: { account?: 'primary' | 'secondary'; member: MemberKind } | { revocableBrowser: string } | 'anonymous';
  /** auto: sign when a device calls a signedByDevice endpoint. */
  signature?: SignatureOption;
  /** Added or overridden (names are case-insensitive); `undefined` removes a header. */
  headers?: Record<string, string | undefined>;
  timeoutMs?: number;
  /**
   * Hold back the last body byte until resolved. The time bound restarts when the gate opens.
   * Gated calls each hold a connection: release at most `profile.caseConcurrency` together.
   */
  gate?: Promise<void>;
  /** Called once everything but the last body byte has been handed to the connection. */
  onHeld?: () => void;
  /** Gives up the call when aborted (a time bound of pouchproof's own): the exchange then says `aborted`, never blames the target. */
  signal?: AbortSignal;
  /** The readings a signature is made under (default: the profile's). */
  assumptions?: AssumptionSet;
  /**
   * Under the nemesis: a stable name of this request (the check layer's: property, case, n-th call),
   * so the seed puts the same faults on the same request however the run's cases interleave. Each
   * copy sent adds its number. Absent (a call made outside a case), or already in flight: the client's
   * running exchange number, which follows the order requests are sent in.
   */
  nemesisTag?: string;
}

export interface Exchange {
  id: number;
  endpoint: EndpointId;
  request: { method: string; url: string; headers: Record<string, string>; body: Uint8Array };
  /**
   * `truncated`: the body is incomplete, cut at the profile's `limits.responseBytes` or by a transport
   * failure; `body` then holds at most its first CUT_BODY_KEPT_BYTES.
   */
  response?: { status: number; headers: Record<string, string>; body: string; truncated: boolean; json?: unknown };
  verdict: Verdict;
  reason: string;
  /** For a transport error: how it failed (see `TransportFailure`). */
  failure?: TransportFailure;
  /** For a 2xx answer that breaks its endpoint's response schema: how, as data (classify.ts); the judges read it, not `reason`. */
  schemaIssues?: readonly SchemaIssue[];
  timings: { startedAt: number; headersMs?: number; totalMs: number };
  /**
   * The target throttled this request (429, or 503 with Retry-After) and the client waited and sent
   * it again: how often, and how long it waited in all. `cutShort`: the call's time ran out while
   * it waited, so it ended unanswered. `givenUp`: it was still refused after backing off stopped
   * helping (throttle.ts `givesUp`), so the last answer is the server's own and is judged as such.
   */
  throttled?: { readonly retries: number; readonly waitedMs: number; readonly cutShort?: boolean; readonly givenUp?: GiveUp; readonly known?: number };
  /**
   * The first copy of the request met a keep-alive connection closing before any response, on a
   * connection that had served earlier requests (closed as idle while the request was on its way,
   * RFC 9112 §9.6); it was sent again on a fresh connection. What the exchange holds is the copy
   * that was answered.
   */
  resent?: string;
  /**
   * The first copy was answered with a status its command credential lists under `refreshOn`: the
   * command ran again (or its run failed, and this exchange is that first answer) and the request
   * went once more with the new value. What the exchange holds is the last copy.
   */
  refreshed?: string;
  /** How the request reached the target beyond its URL (a proxy, TLS settings), for repro lines; absent: directly, with Node's defaults. */
  route?: ExchangeRoute;
  /**
   * Under the nemesis (docs/nemesis.md): the faults it injected into this request's copies, and how
   * many copies went (a copy that got no answer is sent again, the same bytes, by the retry policy).
   * What the exchange holds is the last copy. Absent: no fault touched it and it went once.
   */
  nemesis?: ExchangeNemesis;
}

/** The nemesis's part in one exchange: `attempts` copies sent, each fault with the copy (1-based) it hit. */
export interface ExchangeNemesis {
  readonly attempts: number;
  readonly faults: readonly { readonly attempt: number; readonly fault: NemesisFault; readonly detail: string }[];
}

/** What a repro line needs of the profile's proxy and TLS block: where the material came from, never the key itself. */
export interface ExchangeRoute {
  readonly proxy?: ProxyRoute;
  readonly tls?: Pick<TlsSettings, 'origins' | 'servername' | 'minVersion'> & { readonly passphrase: boolean };
}

/**
 * What is kept of a body that was cut (at the bound, or by a transport failure): enough to show,
 * and a copy of its own, so that a finding's excerpt never keeps a whole cut body alive.
 */
export const CUT_BODY_KEPT_BYTES = 16 * 1024;

/** A request the spec allows, typed by its endpoint: its parameters and body as the spec model types them. */
export interface TypedRequest<E extends EndpointId> {
  readonly params: EndpointParams<E>;
  readonly body: EndpointBody<E>;
}

/**
 * What came back to a typed request: the exchange, and, once classification has validated the
 * envelope against the endpoint's schema (`verdict` accepted), its `data` typed by the endpoint.
 */
export type TypedExchange<E extends EndpointId> = Exchange & { readonly data?: EndpointData<E> };

/** The typed door of a request the spec allows; anything else (a broken body, raw bytes) goes through `call`, the raw one. */
export function typedCall<E extends EndpointId>(call: (o: CallOptions) => Promise<Exchange>, endpoint: E, req: TypedRequest<E>, o: Omit<CallOptions, 'endpoint' | 'params' | 'body' | 'rawBody'> = {}): Promise<TypedExchange<E>> {
  // EndpointParams<E> is a mapped type over a generic E, which the checker does not resolve to its string record.
  return call({ ...o, endpoint, params: req.params as Record<string, string>, body: req.body }).then((ex) => withData<E>(ex));
}

/**
 * Whether the exchange ended on a throttle that says nothing of the target: the call's time ran out
 * while it waited, or a 429 still came once backing off stopped helping (the spec shows no rate
 * limits, and a 429 says "too many requests": not judged). A 503 given up is no such end: it is the
 * server's answer, a server error on that request.
 */
export function endedThrottled(ex: Exchange): boolean {
  return ex.throttled?.cutShort === true || (ex.throttled?.givenUp !== undefined && ex.response?.status === 429);
}

/**
 * Whether the exchange's answer may be to a second copy of its request (under the nemesis): a copy
 * sent again after an earlier one got no answer, which may have reached a handler and been applied;
 * a request cut mid-body, where the client cannot tell where the cut fell; or a request the nemesis
 * delivered twice (`duplicate`), whose other copy may have been applied first. The answer may then be
 * the replay's.
 */
export function resentAfterNoAnswer(ex: Exchange): boolean {
  return (ex.nemesis?.attempts ?? 1) > 1 || (ex.nemesis?.faults.some((f) => f.fault === 'duplicate') ?? false);
}

/** The exchange with its validated `data`, typed (present only for an accepted answer, whose envelope the endpoint's schema passed). */
export function withData<E extends EndpointId>(ex: Exchange): TypedExchange<E> {
  if (ex.verdict !== 'accepted') return ex;
  // Classification accepted this answer only after E's envelope schema passed it: `data` is E's.
  const json = ex.response?.json as { data?: EndpointData<E> } | undefined;
  return json?.data === undefined ? ex : { ...ex, data: json.data };
}

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

/**
 * The bytes of `data`. A body of Buffer's pool size or more is a view on its own encoding, not a
 * copy of it (a copy of the 35 MB largest commit was 35 MB more at the run's peak); a smaller one is
 * copied, so that a recorded exchange never holds a slab of Buffer's shared pool alive.
 */
function toBytes(data: Uint8Array | string): Uint8Array {
  if (typeof data !== 'string') return data;
  const b = Buffer.from(data, 'utf8');
  return b.byteLength >= Buffer.poolSize ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : new Uint8Array(b);
}

export class TargetClient {
  readonly profile: Profile;
  private readonly dispatcher: Dispatcher;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly host: string;
  private readonly maxResponseBytes: number;
  private readonly route: ExchangeRoute | undefined;
  private readonly alerts = new TlsAlerts();
  private nextId = 1;

  private readonly throttle: Throttle;
  private readonly recent = new RecentRate();
  /** The profile's nemesis, when it has one: every connection goes through it. */
  readonly nemesis: Nemesis | undefined;
  private readonly nemesisTally = { retries: 0, unanswered: 0 };
  /** Stable tags of the calls in flight: a tag given twice at once would mix the two requests' faults. */
  private readonly tagsInFlight = new Set<string>();

  /** `maxResponseBytes`: what is read of one response (default: the profile's `limits.responseBytes`). */
  constructor(profile: Profile, opts: { maxResponseBytes?: number; throttle?: ThrottleOptions; nemesisSeed?: number } = {}) {
    this.profile = profile;
    this.throttle = new Throttle(opts.throttle);
    const u = new URL(profile.baseUrl);
    this.origin = u.origin;
    this.host = u.host;
    this.prefix = u.pathname.replace(/\/+$/, '');
    this.maxResponseBytes = opts.maxResponseBytes ?? profile.limits.responseBytes;
    this.nemesis = profile.nemesis ? new Nemesis(profile.nemesis, opts.nemesisSeed ?? 0, upstreamOf(profile)) : undefined;
    this.dispatcher = this.nemesis ? nemesisDispatcher(profile, this.nemesis) : dispatcherFor(profile, this.alerts);
    const tls = profile.tls;
    this.route =
      profile.proxy || tls
        ? Object.freeze({
            ...(profile.proxy ? { proxy: profile.proxy } : {}),
            ...(tls ? { tls: { origins: tls.origins, servername: tls.servername, minVersion: tls.minVersion, passphrase: tls.passphrase !== undefined } } : {}),
          })
        : undefined;
  }

  /** The identity a call uses; throws when the call asks for one the profile does not have. */
  identityFor(endpoint: Endpoint, as: CallOptions['as']): Identity | undefined {
    if (as === 'anonymous') return undefined;
    if (as === undefined) return this.profile.accounts.primary[endpoint.caller];
    if ('revocableBrowser' in as) {
      const b = this.profile.accounts.primary.revocableBrowsers?.find((x) => x.memberId === as.revocableBrowser);
      if (!b) throw new Error(`profile ${this.profile.name} lists no revocable browser ${as.revocableBrowser}`);
      return b;
    }
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
    // The profile's own headers first: the request's framing, the identity's and the call's own win over them.
    const headers: Record<string, string> = { ...this.profile.headers };
    if (o.rawBody !== undefined || json !== undefined) headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.byteLength);
    for (const [k, v] of Object.entries(identity?.headers ?? {})) headers[k.toLowerCase()] = v;
    const sig = signatureFor({ option: o.signature, endpoint, identity, bytes: body, ...(o.rawBody === undefined && json !== undefined && endpoint.signedByDevice ? { canonicalText: json } : {}), assumptions: o.assumptions ?? this.profile.assumptions });
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
   * last throttle when the call's time ran out while it waited (`throttled.cutShort`), or when
   * backing off stopped helping this request (`throttled.givenUp`: the answer is the server's own).
   */
  async call(o: CallOptions): Promise<Exchange> {
    const named = this.nemesis && o.nemesisTag !== undefined ? headerSafe(o.nemesisTag) : undefined;
    // A caller that names two requests alike at once: the second goes by its exchange number, so their faults never mix.
    const tag = named !== undefined && !this.tagsInFlight.has(named) ? named : undefined;
    if (tag !== undefined) this.tagsInFlight.add(tag);
    const copies: Copies = { tag, sent: 0 };
    this.throttle.began();
    try {
      return await this.refreshedOnce(o, await this.callThrottled(o, copies), copies);
    } finally {
      if (tag !== undefined) this.tagsInFlight.delete(tag);
      this.throttle.ended();
    }
  }

  /**
   * A status a command credential the request carried lists under `refreshOn` (a token that
   * expired): the command runs again, once for every request that met it meanwhile, and the request
   * goes once more with the new value. Once only: a second refusal is the target's answer.
   */
  private async refreshedOnce(o: CallOptions, ex: Exchange, copies: Copies): Promise<Exchange> {
    const status = ex.response?.status;
    const due = status === undefined ? [] : (this.profile.credentials ?? []).filter((c) => c.refreshOn.has(status) && c.gave(ex.request.headers[c.header]));
    if (due.length === 0 || o.signal?.aborted) return ex;
    const fresh = await Promise.all(due.map((c) => c.refresh(ex.request.headers[c.header])));
    const failed = due.filter((_, i) => !fresh[i]).map((c) => `${c.field}: ${c.lastFailure ?? 'the command gave the same value again'}`);
    if (failed.length) return { ...ex, refreshed: `answered ${status}; running the credential's command again did not help (${failed.join('; ')}), so the request was not sent again` };
    const again = await this.callThrottled(o, copies);
    return { ...again, refreshed: `the first copy was answered ${status}: ${due.map((c) => c.field).join(', ')} refreshed from its command, and the request sent again` };
  }

  /** `call`'s loop: send, and wait throttles out while backing off helps. */
  private async callThrottled(o: CallOptions, copies: Copies): Promise<Exchange> {
    let refusal: Refusal | undefined;
    let waitedMs = 0;
    for (;;) {
      await this.throttle.turn(o.signal);
      this.recent.add();
      const sentAt = this.throttle.sending();
      const ex = await (this.nemesis ? this.sendRetried(o, this.nemesis, copies) : this.sendFresh(o));
      const retries = refusal?.retries ?? 0;
      const w = ex.response ? throttleWait(ex.response.status, ex.response.headers) : undefined;
      if (!w) {
        if (ex.response) this.throttle.answered(sentAt);
        if (ex.response && refusal) this.throttle.answeredAfter(refusal);
        return retries ? { ...ex, throttled: { retries, waitedMs } } : ex;
      }
      refusal ??= this.throttle.refused(`${o.endpoint} ${ex.response?.status}`);
      // Judged before it counts as a throttle: an answer that is the server's own halves no rate and asks for no quiet.
      const givenUp = this.throttle.givesUp(refusal);
      if (givenUp) {
        this.throttle.ownAnswer(refusal);
        return { ...ex, throttled: { retries, waitedMs, givenUp, ...(refusal.known ? { known: refusal.known } : {}) } };
      }
      const wait = this.throttle.throttle(w, retries, this.recent.perSecond, sentAt, refusal);
      if (o.signal?.aborted || waitedMs + wait > this.throttle.maxWaitMs) return { ...ex, throttled: { retries, waitedMs, cutShort: true } };
      const t0 = performance.now();
      await sleep(wait, o.signal);
      const spent = performance.now() - t0;
      waitedMs += spent;
      this.throttle.spent(spent);
      if (o.signal?.aborted) return { ...ex, throttled: { retries, waitedMs, cutShort: true } };
      refusal.retries++;
    }
  }

  /** What the nemesis did so far; undefined without one. */
  nemesisSummary(): NemesisSummary | undefined {
    const n = this.nemesis;
    if (!n) return undefined;
    const { requests, counts } = n.stats();
    return { spec: n.plan.text, seed: n.seed, requests, injected: counts, ...this.nemesisTally };
  }

  /** What the target's throttling cost the calls so far. */
  throttling(): ThrottleStats {
    return this.throttle.stats();
  }

  /** Wall time (ms) the target's throttling has held requests back so far (throttle.ts `heldMs`). */
  throttleHeldMs(): number {
    return this.throttle.heldMs();
  }

  /**
   * Sends once; when a connection that had served earlier requests closed before any byte of the
   * answer (the target closed it as idle while the request was on its way), the request never
   * reached a handler, and the same bytes go again (past every other idle connection closed alike,
   * at most one try per connection of the pool) until a fresh connection carries them. If that copy
   * fails too, the first failure stands (a target that died under the request is then confirmed as such by
   * the runner, with a fresh connection of its own).
   */
  private async sendFresh(o: CallOptions): Promise<Exchange> {
    const first = await this.sendOnce(o);
    let last = first;
    // Every idle connection of the pool may have been closed alike: at most one more try per connection.
    for (let tries = 0; last.stale && tries < this.profile.caseConcurrency && !o.signal?.aborted; tries++) {
      last = await this.sendOnce(o);
      if (last.ex.verdict !== 'transport-error') {
        return { ...last.ex, resent: `the first copy met ${first.ex.reason}, on a keep-alive connection that had served earlier requests (closed as idle under it): sent again on a fresh connection` };
      }
    }
    return first.ex;
  }

  /**
   * Under the nemesis: sends, and sends the same bytes again (the same signature, the same
   * operation_id) while a copy gets no answer at all, as the plan's retry policy allows, as a real
   * client does. The nemesis tells which faults each copy met.
   */
  private async sendRetried(o: CallOptions, n: Nemesis, copies: Copies): Promise<Exchange> {
    const built = this.buildRequest(o);
    const faults: { attempt: number; fault: NemesisFault; detail: string }[] = [];
    const policy = n.plan.retry;
    for (let attempt = 1; ; attempt++) {
      const t0 = performance.now();
      const tag = copies.tag === undefined ? undefined : `${copies.tag}#${++copies.sent}`;
      const { ex } = await this.sendOnce(o, built, tag);
      const met = n.take(tag ?? String(ex.id));
      for (const e of met) faults.push({ attempt, ...e });
      const noAnswer = ex.verdict === 'transport-error' && ex.response === undefined && ex.failure !== 'aborted';
      if (noAnswer && met.length === 0 && n.refusedBetween(t0, performance.now())) faults.push({ attempt, fault: 'partition', detail: 'connection refused inside a partition window' });
      if (!noAnswer || attempt > policy.count || o.signal?.aborted) {
        if (noAnswer) this.nemesisTally.unanswered++;
        const nemesis = { attempts: attempt, faults };
        // The last copy's answer was the nemesis's to drop: pouchproof's own doing, which blames nothing on the target.
        const dropped = noAnswer && faults.some((f) => f.attempt === attempt && f.fault !== 'delay' && f.fault !== 'duplicate');
        if (dropped) return { ...ex, failure: 'aborted', reason: `no answer: the nemesis dropped the last of ${attempt} copies (${ex.reason}), and the retry policy was spent`, nemesis };
        return faults.length > 0 || attempt > 1 ? { ...ex, nemesis } : ex;
      }
      this.nemesisTally.retries++;
      await sleep(policy.backoffMs * 2 ** (attempt - 1), o.signal);
    }
  }

  /** `tag`: the nemesis's tag of this copy (default: its exchange number). */
  private async sendOnce(o: CallOptions, built?: ReturnType<TargetClient['buildRequest']>, tag?: string): Promise<{ readonly ex: Exchange; readonly stale: boolean }> {
    const { endpoint, path, request } = built ?? this.buildRequest(o);
    const id = this.nextId++;
    const startedAt = Date.now();
    const t0 = performance.now();
    const timeoutMs = o.timeoutMs ?? this.profile.timeouts.requestMs;
    const watch = watchCall(timeoutMs, o.signal);
    // The gate is awaited only once the body is under way; mark a rejection handled now.
    o.gate?.catch(() => undefined);

    const base = { id, endpoint: endpoint.id, request, ...(this.route ? { route: this.route } : {}) };
    let stage: FailureStage = 'headers';
    let headersMs: number | undefined;
    let partial: { status: number; headers: Record<string, string>; body: string; truncated: boolean } | undefined;
    try {
      const res = await this.dispatch(o, path, request, tag ?? String(id), watch);
      headersMs = performance.now() - t0;
      stage = 'body';
      const status = res.statusCode;
      const headers = flattenHeaders(res.headers);
      partial = { status, headers, body: '', truncated: true };
      const overCap = await readCapped(res.body, this.maxResponseBytes, partial);
      const text = partial.body;
      const parsed = parseJsonBody(text, overCap);
      const response = { status, headers, body: text, truncated: overCap, ...(parsed ? { json: parsed.json } : {}) };
      const j = classifyResponse(endpoint, { ...response, ...(overCap ? { overCap: this.maxResponseBytes } : {}) });
      return { ex: { ...base, response, verdict: j.verdict, reason: j.reason, ...(j.failure ? { failure: j.failure } : {}), ...(j.schemaIssues ? { schemaIssues: j.schemaIssues } : {}), timings: { startedAt, headersMs, totalMs: performance.now() - t0 } }, stale: false };
    } catch (err) {
      // undici reports a proxy's 407 to a forwarded request as an invalid argument: it is the proxy's answer, not pouchproof's bug.
      if (err instanceof Error && 'code' in err && err.code === 'UND_ERR_INVALID_ARG' && !/^Proxy Authentication Required/.test(err.message)) {
        throw new Error(`cannot send ${endpoint.id}: ${err.message}`);
      }
      const j = this.judgeFailure(err, watch, stage, timeoutMs, t0);
      const ex: Exchange = {
        ...base,
        ...(partial ? { response: partial } : {}),
        verdict: j.verdict,
        reason: j.reason,
        ...(j.failure ? { failure: j.failure } : {}),
        timings: { startedAt, ...(headersMs !== undefined ? { headersMs } : {}), totalMs: performance.now() - t0 },
      };
      // Closed before any byte of the answer, on a connection that had read earlier answers: closed as idle under the request.
      return { ex, stale: j.failure === 'closed' && stage === 'headers' && !o.gate && socketBytesRead(err) > 0 };
    } finally {
      watch.dispose();
    }
  }

  /** Hands the request to the pool; a gated body holds its last byte back, and the time bound restarts once the gate opens. */
  private dispatch(o: CallOptions, path: string, request: Exchange['request'], tag: string, watch: CallWatch): Promise<Dispatcher.ResponseData> {
    // undici streams async iterables chunk by chunk (its types only list Readable, which would
    // read ahead of the socket and call onHeld too early).
    const onGate = (waiting: boolean): void => {
      watch.gateWaiting = waiting;
      if (!waiting) watch.arm(); // the time bound restarts once released
    };
    // undici's types list only Readable for a body; it streams any async iterable (see above).
    const body = o.gate ? (gatedBody(request.body, o.gate, onGate, o.onHeld) as unknown as Readable) : Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
    return this.dispatcher.request({
      origin: this.origin,
      path,
      method: request.method,
      // A copy: a proxy agent adds its Host to the object it is given, and the exchange keeps what pouchproof sent.
      headers: this.nemesis ? { ...request.headers, [NEMESIS_TAG_HEADER]: tag } : { ...request.headers },
      body,
      signal: watch.controller.signal,
    });
  }

  /**
   * Why a call that threw ended: pouchproof's own doing (a rejected gate, the caller's abort, a gate
   * that stayed shut) blames nothing on the target; anything else is the transport's failure.
   */
  private judgeFailure(err: unknown, watch: CallWatch, stage: FailureStage, timeoutMs: number, t0: number): { verdict: Verdict; reason: string; failure?: TransportFailure } {
    if (err instanceof GateRejected || (typeof err === 'object' && err !== null && 'cause' in err && err.cause instanceof GateRejected)) {
      return { verdict: 'transport-error', reason: 'not sent: the gate promise was rejected', failure: 'aborted' };
    }
    if (watch.aborted && !watch.timedOut) {
      return { verdict: 'transport-error', reason: 'not completed: pouchproof\'s own time bound ended the call', failure: 'aborted' };
    }
    if (watch.timedOut && watch.gateWaiting) {
      return { verdict: 'transport-error', reason: `not completed: the gate did not open within ${timeoutMs} ms`, failure: 'aborted' };
    }
    const alert = this.alerts.since(t0);
    return classifyFailure(err, {
      timedOut: watch.timedOut, timeoutMs, connectMs: this.profile.timeouts.connectMs, host: this.host, stage,
      ...(this.profile.proxy ? { proxy: shownProxy(this.profile.proxy.url) } : {}),
      ...(alert ? { tlsAlert: alert } : {}),
    });
  }

  async close(): Promise<void> {
    let t: NodeJS.Timeout | undefined;
    const grace = new Promise<'timeout'>((r) => (t = setTimeout(() => r('timeout'), 1000)));
    const outcome = await Promise.race([this.dispatcher.close().then(() => 'closed' as const), grace]);
    clearTimeout(t);
    if (outcome === 'timeout') await this.dispatcher.destroy();
    await this.nemesis?.close();
  }
}

/**
 * The connection pool to the target: directly, or through the profile's proxy (plain http targets
 * in absolute form, https targets through a CONNECT tunnel), TLS as the profile says either way.
 */
function dispatcherFor(profile: Profile, alerts: TlsAlerts): Dispatcher {
  const connect = { timeout: profile.timeouts.connectMs, ...tlsConnectOptions(profile.tls) };
  // Each call has its own total time bound; undici's per-phase timers would only race it.
  const pool = { connections: profile.caseConcurrency, headersTimeout: 0, bodyTimeout: 0 };
  if (!profile.proxy) {
    const base = buildConnector(connect);
    const host = new URL(profile.baseUrl).host;
    return new Pool(new URL(profile.baseUrl).origin, {
      ...pool,
      connect: (opts, done) =>
        base(opts, (...args) => {
          const socket = args[1];
          socket?.prependListener('error', (e: Error) => {
            if (describeTlsFailure(e, host)) alerts.note(e);
          });
          done(...args);
        }),
    });
  }
  const proxyTls = new URL(profile.proxy.url).protocol === 'https:' && profile.tls?.ca !== undefined ? { ca: tlsConnectOptions(profile.tls).ca } : {};
  return new ProxyAgent({
    uri: profile.proxy.url,
    proxyTunnel: false,
    requestTls: connect,
    proxyTls: { timeout: profile.timeouts.connectMs, ...proxyTls },
    factory: (origin, options) => new Pool(origin, { ...options, ...pool }),
  });
}

/**
 * The connection pool under the nemesis: every connection is a plain one to the nemesis on loopback,
 * which holds the target's (TLS included) itself; the requests keep the target's origin and Host.
 */
function nemesisDispatcher(profile: Profile, n: Nemesis): Dispatcher {
  if (profile.proxy) throw new Error(`the nemesis cannot go through the proxy ${shownProxy(profile.proxy.url)}: run it where the target is reached directly`);
  return new Pool(new URL(profile.baseUrl).origin, {
    connections: profile.caseConcurrency,
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: (_opts, done) => {
      void n.ready.then(
        (port) => {
          const s = netConnect(port, '127.0.0.1');
          s.once('connect', () => done(null, s)).once('error', (e) => done(e, null));
        },
        (e: Error) => done(e, null),
      );
    },
  });
}

/**
 * TLS alerts that arrive after the handshake (a TLS 1.3 server refuses a missing client
 * certificate a round trip later): undici then reports the connection as closed by the other
 * side, so the last alert seen is kept to name the cause of a call that failed meanwhile.
 */
class TlsAlerts {
  private last: { readonly err: Error; readonly at: number } | undefined;
  note(err: Error): void {
    this.last = { err, at: performance.now() };
  }
  /** The last alert seen at or after `t` (performance.now() time). */
  since(t: number): Error | undefined {
    return this.last && this.last.at >= t ? this.last.err : undefined;
  }
}

/** Where a call was when it failed: connecting, waiting for the head, or reading the body. */
type FailureStage = Parameters<typeof classifyFailure>[1]['stage'];

/**
 * One call's own time bound and the caller's abort signal over one controller, and which of them
 * fired: that decides whether a failed call blames the target or pouchproof.
 */
/** A tag as a header value: a name with characters a header cannot carry goes percent-encoded (still one name per request). */
function headerSafe(tag: string): string {
  return /^[\x21-\x7e]+$/.test(tag) ? tag : encodeURIComponent(tag);
}

/** A call's stable nemesis tag (undefined: its copies are tagged by exchange number) and the copies sent under it so far. */
interface Copies {
  readonly tag: string | undefined;
  sent: number;
}

interface CallWatch {
  readonly controller: AbortController;
  timedOut: boolean;
  aborted: boolean;
  /** The gated body is holding its last byte back. */
  gateWaiting: boolean;
  /** (Re)starts the time bound. */
  arm(): void;
  dispose(): void;
}

function watchCall(timeoutMs: number, signal: AbortSignal | undefined): CallWatch {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const watch: CallWatch = {
    controller,
    timedOut: false,
    aborted: false,
    gateWaiting: false,
    arm() {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        watch.timedOut = true;
        controller.abort();
      }, timeoutMs);
    },
    dispose() {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
  function onAbort(): void {
    watch.aborted = true;
    controller.abort();
  }
  watch.arm();
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return watch;
}

/**
 * Reads a response body up to `max` bytes into `into.body` (kept as `keptBody` keeps it, even when
 * the read fails midway); true when the body ran over the cap.
 */
async function readCapped(body: Dispatcher.ResponseData['body'], max: number, into: { body: string }): Promise<boolean> {
  const chunks: Buffer[] = [];
  let size = 0;
  let overCap = false;
  try {
    for await (const chunk of body) {
      const room = max - size;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size += Math.max(room, 0);
        overCap = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    // Whatever stopped the read, the rest of the body must not stay buffered or hold the socket.
    if (!body.destroyed && (overCap || !body.readableEnded)) body.destroy();
    into.body = keptBody(chunks, size, overCap || !body.readableEnded);
  }
  return overCap;
}

/** A body as kept: whole when complete, else its first CUT_BODY_KEPT_BYTES, copied out of the chunks. */
function keptBody(chunks: readonly Buffer[], size: number, cut: boolean): string {
  if (!cut || size <= CUT_BODY_KEPT_BYTES) return Buffer.concat(chunks).toString('utf8');
  return Buffer.concat(chunks, CUT_BODY_KEPT_BYTES).toString('utf8');
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

/** Bytes the connection had read when it failed (undici's socket info on its errors), 0 when unknown. */
function socketBytesRead(err: unknown): number {
  for (const e of causeChain(err)) {
    const socket = 'socket' in e ? e.socket : undefined;
    if (typeof socket === 'object' && socket !== null && 'bytesRead' in socket && typeof socket.bytesRead === 'number') return socket.bytesRead;
  }
  return 0;
}

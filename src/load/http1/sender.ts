/**
 * How the load engine puts requests on the wire: its own HTTP/1.1 connections (node:net, node:tls),
 * one request at a time on each, the request written as one string and the answer read by a parser
 * that keeps only the status, the framing and the body (http1-response.ts). A general client
 * (undici) spent about twice the CPU per request on work a load generator does not need: on one
 * core that made the generator, not the target, the bottleneck. Bounded whatever the target does:
 * - every response body is read up to RESPONSE_BODY_CAP_BYTES and abandoned past it, so an endless
 *   body costs one capped buffer per connection, never the machine's memory; heads are capped too;
 * - every request has a total deadline (its timeout from the moment it was sent), enforced by one
 *   sweep timer for all of them, so a body dripped a byte at a time cannot outlive it;
 * - `abandonAll` settles whatever is still in flight at once (the end of a run).
 * Each request settles exactly once, through its `done` callback, with the response or an Error.
 * A connection is reused while the server keeps it open (and, when it says how long it keeps idle
 * connections with Keep-Alive: timeout=N, not past a second before that); anything else closes it.
 *
 * The profile's route applies as for the conformance client: its TLS block, its headers (under the
 * request's own), and its proxy. Through a proxy, an https target is reached through a CONNECT
 * tunnel and a plain one in absolute form on a connection to the proxy, so a CI runner that reaches
 * staging only through a proxy can still send load; what it measures then includes the proxy (the
 * CLI says so; a shard run inside the network measures the target alone).
 */
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect } from 'node:tls';
import { proxyAuthorization, type ProxyRoute } from '../../target/proxy.ts';
import { describeTlsFailure, tlsConnectOptions, type TlsSettings } from '../../target/tls.ts';
import { connectToProxy, openTunnel, TunnelError } from '../../target/tunnel.ts';
import { NEMESIS_RETRY_LINE, type NemesisPlan } from '../../target/nemesis/index.ts';
import { ResponseParser, type FeedResult } from './http1-response.ts';
import { mergePhases, PhaseRecorder, type PhaseHistograms, type PhaseTimes } from '../stats/phases.ts';
import type { LoadRequest, LoadResponse } from '../scenario.ts';

/** How the engine's connections reach the target: the profile's TLS block, proxy and headers (a Profile is one). */
export interface SenderRoute {
  readonly tls?: TlsSettings | undefined;
  readonly proxy?: ProxyRoute | undefined;
  /** Sent on every request; a request's own header of the same name wins. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The nemesis's plan (its retry policy) and where it listens: every connection goes through it, and a request with no answer is sent again. */
  readonly nemesis?: Pick<NemesisPlan, 'retry'> | undefined;
  readonly nemesisPort?: number | undefined;
}

/** A connection that could not be set up (TLS refused, the proxy refused the tunnel): its message is the whole reason, in one line. */
export class ConnectionSetupError extends Error {
  override readonly name = 'ConnectionSetupError';
}

/** Response bytes read per request at most; past it the response is abandoned (and counted). */
export const RESPONSE_BODY_CAP_BYTES = 1024 * 1024;

/** Why the engine gave up on a request itself. */
export type AbandonCause = 'timeout' | 'body-over-cap' | 'abandoned-at-end';

/** The reason each abandonment is counted under in the run's outcomes. */
export function abandonReason(cause: AbandonCause, capBytes = RESPONSE_BODY_CAP_BYTES): string {
  switch (cause) {
    case 'timeout':
      return 'timeout';
    case 'body-over-cap':
      return `response body over ${capBytes >= 1024 * 1024 ? `${capBytes / (1024 * 1024)} MiB` : `${capBytes} bytes`} (abandoned)`;
    case 'abandoned-at-end':
      return 'abandoned-at-end';
    default:
      return cause satisfies never;
  }
}

/** A request the engine gave up on; `reason` is what the outcome is counted under. */
export class AbandonedError extends Error {
  override readonly name = 'AbandonedError';
  constructor(
    readonly abandoned: AbandonCause,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** A request that could not be written (a header or path that would break the message). */
export class InvalidRequestError extends Error {
  override readonly name = 'InvalidRequestError';
  readonly code = 'INVALID_REQUEST';
}

export type Done = (flight: Flight, res: LoadResponse | Error) => void;

/** Sees every measured request (live metrics): when it is sent, and when it settles, however. */
export interface SenderObserver {
  sent(req: LoadRequest): void;
  settled(flight: Flight, res: LoadResponse | Error, inFlight: number): void;
}

const now = (): number => performance.timeOrigin + performance.now();

/** Idle connections are not reused this close to the server's advertised keep-alive timeout. */
const KEEP_ALIVE_MARGIN_MS = 1000;
/** Without an advertised timeout, an idle connection is reused for this long. */
const KEEP_ALIVE_DEFAULT_MS = 30_000;
/** One read buffer per sender, shared by its plain connections: reads are handled one at a time and whatever is kept is copied. */
const READ_BUFFER_BYTES = 64 * 1024;

/** One request: what the engine needs when it settles, and the instants of its phases (phases.ts). */
export class Flight implements PhaseTimes {
  /** Epoch ms the request counts its latency from (intended send time, or actual send). */
  intended = 0;
  assigned = 0;
  opened = 0;
  connected = 0;
  secured = 0;
  written = 0;
  firstByte = 0;
  ended = 0;
  deadline = 0;
  settled = false;
  /** The connection carrying it, once written. */
  conn: Conn | undefined;
  /** The request's bytes (for a copy sent again under the nemesis), and how many copies went after the first. */
  text = '';
  retries = 0;

  constructor(
    private readonly sender: Sender,
    readonly req: LoadRequest,
    private readonly done: Done,
  ) {}

  /** Gives up on the request: settles it now with the cause, and closes its connection. */
  abandon(cause: AbandonCause): void {
    if (this.settled) return;
    this.conn?.detach(true);
    this.settle(new AbandonedError(cause, abandonReason(cause, this.sender.capBytes)));
  }

  settle(res: LoadResponse | Error): void {
    if (this.settled) return;
    if (res instanceof Error && this.sender.resend(this, res)) return;
    this.settled = true;
    // A failure found inside send itself (a header that cannot be written): answering it
    // synchronously would let send → done → send recurse without bound, and freeing the slot at
    // once would let the caller's send loop spin; both wait for the next turn of the event loop.
    if (this.sender.dispatching) setImmediate(() => this.finish(res));
    else this.finish(res);
  }

  private finish(res: LoadResponse | Error): void {
    this.sender.inFlight.delete(this);
    this.sender.observer?.settled(this, res, this.sender.inFlight.size);
    this.done(this, res);
  }
}

/** One HTTP/1.1 connection, reopened when the server closes it; one request on it at a time. */
class Conn {
  socket: Socket | undefined;
  flight: Flight | undefined;
  /** Epoch ms past which the idle socket is not reused. */
  private reuseUntil = 0;
  private readonly parser: ResponseParser;
  /** One callback for every write of this connection: a request's write flushed (its send phase ends). */
  private readonly onWritten = (): void => {
    const f = this.flight;
    if (f && f.written === 0) f.written = now();
  };

  constructor(private readonly sender: Sender) {
    this.parser = new ResponseParser(sender.capBytes);
  }

  start(f: Flight, text: string): void {
    const t = now();
    if (this.socket && t > this.reuseUntil) this.kill();
    this.flight = f;
    f.conn = this;
    f.assigned = t;
    this.parser.reset();
    if (this.socket) {
      this.socket.write(text, this.onWritten);
      return;
    }
    f.opened = t;
    const opened = this.sender.open(this);
    if (!(opened instanceof Promise)) {
      this.socket = opened;
      opened.write(text, this.onWritten);
      return;
    }
    // A tunnel is being opened: the request goes out once it is, unless it was given up meanwhile.
    opened.then(
      (socket) => {
        if (this.flight !== f || f.settled || this.socket) return void socket.destroy();
        this.socket = socket;
        socket.write(text, this.onWritten);
      },
      (e: Error) => {
        if (this.flight !== f) return;
        this.detach(false);
        f.settle(e);
      },
    );
  }

  onData(socket: Socket, buf: Buffer, start: number, end: number): void {
    if (socket !== this.socket) return;
    const f = this.flight;
    // Bytes no request asked for: the connection's state is unknown, so it is not reused.
    if (!f) return this.kill();
    if (f.firstByte === 0) f.firstByte = now();
    this.conclude(f, this.parser.feed(buf, start, end));
  }

  /** The connection (TCP, or the proxy's tunnel) is up: the connect phase of the request that opened it ends. */
  onConnected(): void {
    const f = this.flight;
    if (f && f.opened > 0 && f.connected === 0) f.connected = now();
  }

  onSecured(): void {
    const f = this.flight;
    if (f && f.opened > 0 && f.secured === 0) f.secured = now();
  }

  /** The socket ended, closed or failed. */
  onGone(socket: Socket, err: Error | undefined): void {
    if (socket !== this.socket) return;
    this.socket = undefined;
    socket.destroy();
    const f = this.flight;
    if (!f) return;
    if (err) {
      this.detach(false);
      const tls = describeTlsFailure(err, this.sender.hostHeader);
      f.settle(tls ? new ConnectionSetupError(tls) : err);
    } else this.conclude(f, this.parser.close(), true);
  }

  /** What a parser result means for `f`; `closed`: the connection has ended (an error then says so, rather than "malformed"). */
  private conclude(f: Flight, r: FeedResult, closed = false): void {
    switch (r.kind) {
      case 'more':
        return;
      case 'done':
        if (r.keepAlive && this.socket) this.reuseUntil = now() + (r.keepAliveMs === undefined ? KEEP_ALIVE_DEFAULT_MS : r.keepAliveMs - KEEP_ALIVE_MARGIN_MS);
        this.detach(!r.keepAlive);
        if (this.sender.phases) {
          f.ended = now();
          this.sender.phases.record(f);
        }
        f.settle({ status: r.status, body: r.body });
        return;
      case 'over-cap':
        f.abandon('body-over-cap');
        return;
      case 'error':
        this.detach(true);
        f.settle(new Error(closed ? r.message : `malformed response: ${r.message}`));
        return;
      default:
        return r satisfies never;
    }
  }

  /** Frees the connection of its request (closing the socket if `close`), for the next one. */
  detach(close: boolean): void {
    const f = this.flight;
    if (f) f.conn = undefined;
    this.flight = undefined;
    if (close) this.kill();
    this.sender.release(this);
  }

  kill(): void {
    const s = this.socket;
    this.socket = undefined;
    s?.destroy();
  }
}

export class Sender {
  readonly inFlight = new Set<Flight>();
  /** True while send runs (see Flight.settle). */
  dispatching = false;
  private readonly host: string;
  private readonly port: number;
  private readonly secure: boolean;
  private readonly servername: string | undefined;
  readonly hostHeader: string;
  /** What precedes a request's path: the base path, and through a proxy to a plain target, the origin (absolute form). */
  private readonly prefix: string;
  private readonly headers: HeaderWriter;
  private readonly sweeper: NodeJS.Timeout;
  private readonly conns: Conn[] = [];
  private readonly idle: Conn[] = [];
  private readonly waiting: Array<{ readonly f: Flight; readonly text: string }> = [];
  private waitingHead = 0;
  private readonly readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  private closed = false;
  /** Set by `measure`: the measured window's phase histograms and live observer (none during the warm-up). */
  phases: PhaseRecorder | undefined;
  observer: SenderObserver | undefined;

  constructor(
    baseUrl: string,
    private readonly connections: number,
    readonly timeoutMs: number,
    readonly capBytes = RESPONSE_BODY_CAP_BYTES,
    /** TLS, proxy and profile-wide headers (without: direct, Node's bundled roots and NODE_EXTRA_CA_CERTS, no extra header). */
    private readonly route: SenderRoute = {},
  ) {
    const u = new URL(baseUrl);
    this.secure = u.protocol === 'https:';
    this.host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = Number(u.port || (this.secure ? 443 : 80));
    this.servername = route.tls?.servername ?? (this.secure && isIP(this.host) === 0 ? this.host : undefined);
    this.hostHeader = u.host;
    const absolute = route.proxy !== undefined && !this.secure;
    this.prefix = (absolute ? u.origin : '') + u.pathname.replace(/\/+$/, '');
    const auth = absolute && route.proxy ? proxyAuthorization(route.proxy.url) : undefined;
    this.headers = new HeaderWriter(route.headers ?? {}, auth ? `proxy-authorization: ${auth}\r\n` : '');
    // A request overstays its deadline by at most one sweep period.
    this.sweeper = setInterval(() => this.sweep(), Math.max(5, Math.min(100, timeoutMs / 10)));
    this.sweeper.unref();
  }

  /** Sends `req`; `done` is called exactly once. Latency is the caller's, from `intended`. */
  send(req: LoadRequest, intended: number, done: Done): Flight {
    const f = new Flight(this, req, done);
    f.intended = intended;
    f.deadline = now() + this.timeoutMs;
    this.inFlight.add(f);
    this.observer?.sent(req);
    this.dispatching = true;
    try {
      const text = this.closed ? new InvalidRequestError('the sender is closed') : requestText(req, this.prefix, this.hostHeader, this.headers);
      if (typeof text !== 'string') f.settle(text);
      else this.put(f, (f.text = text));
    } catch (e) {
      f.settle(e instanceof Error ? e : new Error(String(e)));
    } finally {
      this.dispatching = false;
    }
    return f;
  }

  /** From now on, every request that gets a response has its phases recorded, and `observer` sees every request. */
  measure(observer?: SenderObserver): void {
    this.phases = new PhaseRecorder();
    this.observer = observer;
  }

  /** The phase histograms since `measure` (empty ones without it); recording stops. */
  takePhases(): PhaseHistograms {
    const p = this.phases;
    this.phases = undefined;
    this.observer = undefined;
    return p ? p.finish() : mergePhases([]);
  }

  private put(f: Flight, text: string): void {
    const conn = this.idle.pop() ?? (this.conns.length < this.connections ? this.newConn() : undefined);
    if (conn) conn.start(f, text);
    else this.waiting.push({ f, text });
  }

  /**
   * Under the nemesis: a request that got no answer (its connection closed or failed under it; not a
   * timeout, not a refusal to set up) is sent again, the same bytes tagged as a retry, after the
   * policy's backoff; it stays in flight meanwhile, within its deadline. True when it went again.
   */
  resend(f: Flight, err: Error): boolean {
    const policy = this.route.nemesis?.retry;
    if (!policy || this.closed || f.retries >= policy.count || err instanceof AbandonedError || err instanceof ConnectionSetupError || err instanceof InvalidRequestError) return false;
    const wait = policy.backoffMs * 2 ** f.retries++;
    if (now() + wait >= f.deadline) return false;
    setTimeout(() => {
      if (!f.settled && !this.closed) this.put(f, withRetryTag(f.text));
    }, wait);
    return true;
  }

  /** One request outside a measured run (warm-up, invariant checks): the response, or rejects. */
  request(req: LoadRequest): Promise<LoadResponse> {
    return new Promise((resolve, reject) => {
      this.send(req, now(), (_f, res) => (res instanceof Error ? reject(res) : resolve(res)));
    });
  }

  /** A connection is free: it takes the oldest waiting request, or waits itself. */
  release(conn: Conn): void {
    while (this.waitingHead < this.waiting.length) {
      const next = this.waiting[this.waitingHead];
      // releases the slot for the collector; the queue's element type has no hole
      this.waiting[this.waitingHead++] = undefined as never;
      if (this.waitingHead === this.waiting.length) {
        this.waiting.length = 0;
        this.waitingHead = 0;
      }
      if (!next.f.settled) return conn.start(next.f, next.text);
    }
    if (!this.closed) this.idle.push(conn);
  }

  /**
   * Opens the socket of `conn`: at once, or (through a CONNECT tunnel) once the proxy said yes.
   * Through a proxy, a plain target's requests go to the proxy itself, in absolute form.
   */
  open(conn: Conn): Socket | Promise<Socket> {
    const proxy = this.route.proxy;
    const proxyTls = this.route.tls?.ca !== undefined ? { ca: tlsConnectOptions(this.route.tls).ca } : {};
    if (proxy && this.secure) {
      return openTunnel(proxy, this.host, this.port, { timeoutMs: this.timeoutMs, proxyTls }).then(
        (raw) => {
          conn.onConnected();
          const s = this.secureOver(conn, raw);
          raw.on('error', (e: Error) => conn.onGone(s, e));
          return s;
        },
        (e: unknown) => Promise.reject(e instanceof TunnelError ? new ConnectionSetupError(e.message) : e),
      );
    }
    if (proxy) return this.watch(conn, connectToProxy(proxy, proxyTls), true);
    // The nemesis holds the connection to the target (TLS included): pouchproof's side is plain loopback.
    const viaNemesis = this.route.nemesisPort;
    if (this.secure && viaNemesis === undefined) return this.secureOver(conn, undefined);
    const s: Socket = netConnect({
      host: viaNemesis === undefined ? this.host : '127.0.0.1',
      port: viaNemesis ?? this.port,
      noDelay: true,
      // Node's onread hands back the Buffer it was given (readBuffer is a Buffer)
      onread: { buffer: this.readBuffer, callback: (n: number, buf: Uint8Array) => (conn.onData(s, buf as Buffer, 0, n), true) },
    });
    return this.watch(conn, s, false);
  }

  /** TLS to the target, directly or over a tunnel, as the profile's block says. */
  private secureOver(conn: Conn, socket: Socket | undefined): Socket {
    const s = tlsConnect({
      ...tlsConnectOptions(this.route.tls),
      ...(socket ? { socket } : { host: this.host, port: this.port }),
      ALPNProtocols: ['http/1.1'],
      ...(this.servername ? { servername: this.servername } : {}),
    });
    s.once('secureConnect', () => conn.onSecured());
    return this.watch(conn, s, true);
  }

  private watch(conn: Conn, s: Socket, data: boolean): Socket {
    s.setNoDelay(true);
    s.once('connect', () => conn.onConnected());
    if (data) s.on('data', (d: Buffer) => conn.onData(s, d, 0, d.length));
    s.on('error', (e: Error) => conn.onGone(s, e));
    s.on('end', () => conn.onGone(s, undefined));
    s.on('close', () => conn.onGone(s, undefined));
    return s;
  }

  /** Abandons every request past its deadline. */
  sweep(): void {
    if (this.inFlight.size === 0) return;
    const t = now();
    for (const f of this.inFlight) if (f.deadline <= t) f.abandon('timeout');
  }

  abandonAll(cause: AbandonCause): void {
    for (const f of [...this.inFlight]) f.abandon(cause);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.closed = true;
    this.abandonAll('abandoned-at-end');
    for (const c of this.conns) c.kill();
    this.idle.length = 0;
  }

  private newConn(): Conn {
    const c = new Conn(this);
    this.conns.push(c);
    return c;
  }
}

// ---- writing a request ----

/** A field name is a token (RFC 9110 section 5.1). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A field value never holds CR, LF or NUL (RFC 9110 section 5.5): they would end or split the message. */
const BAD_VALUE = /[\0\r\n]/;
/** A request target is visible ASCII. */
const TARGET = /^[\x21-\x7e]+$/;
/** Fields the sender writes itself, or that would change how the message is framed or kept. */
const OWN_FIELDS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer']);

type HeaderLines = { readonly text: string; readonly host: boolean } | InvalidRequestError;

/**
 * A request's header lines, with the profile-wide headers it does not set itself and any fixed
 * line (a proxy's credentials), by identity of the request's header object: a run sends the same
 * few objects over and over (unsigned requests), or a new object per request (a signed one), which
 * a small ring handles without the cost a WeakMap entry per request would put on the garbage collector.
 */
class HeaderWriter {
  private readonly recentHeaders: Array<Readonly<Record<string, string>> | undefined> = [undefined, undefined, undefined, undefined];
  private readonly recentLines: HeaderLines[] = [new InvalidRequestError(''), new InvalidRequestError(''), new InvalidRequestError(''), new InvalidRequestError('')];
  private recentNext = 0;

  private readonly hasBase: boolean;

  constructor(
    private readonly base: Readonly<Record<string, string>>,
    private readonly fixed: string,
  ) {
    this.hasBase = Object.keys(base).length > 0;
  }

  linesOf(headers: Readonly<Record<string, string>>): HeaderLines {
    for (let i = 0; i < this.recentHeaders.length; i++) if (this.recentHeaders[i] === headers) return this.recentLines[i];
    const own = fieldLines(headers, undefined);
    let out: HeaderLines = own;
    // A signed request brings a new header object each time: without profile-wide headers, nothing more to do.
    if (!(own instanceof InvalidRequestError) && (this.hasBase || this.fixed !== '')) {
      const rest = this.hasBase ? fieldLines(this.base, headers) : { text: '', host: false };
      out = rest instanceof InvalidRequestError ? rest : { text: own.text + rest.text + this.fixed, host: own.host || rest.host };
    }
    this.recentHeaders[this.recentNext] = headers;
    this.recentLines[this.recentNext] = out;
    this.recentNext = (this.recentNext + 1) % this.recentHeaders.length;
    return out;
  }
}

/** The lines of `headers`, leaving out the names `over` sets (compared case-insensitively). */
function fieldLines(headers: Readonly<Record<string, string>>, over: Readonly<Record<string, string>> | undefined): HeaderLines {
  let text = '';
  let host = false;
  const taken = over ? new Set(Object.keys(over).map((k) => k.toLowerCase())) : undefined;
  for (const name in headers) {
    const value = headers[name];
    const lower = name.toLowerCase();
    if (taken?.has(lower)) continue;
    if (!TOKEN.test(name) || BAD_VALUE.test(value) || OWN_FIELDS.has(lower)) return new InvalidRequestError(`invalid ${name} header`);
    if (lower === 'host') host = true;
    text += `${name}: ${value}\r\n`;
  }
  return { text, host };
}

/** The whole request as one string: start line, fields, Content-Length, body. */
/** A request's bytes with the nemesis's retry tag after its request line (the nemesis strips it). */
function withRetryTag(text: string): string {
  const at = text.indexOf('\r\n') + 2;
  return text.startsWith(NEMESIS_RETRY_LINE, at) ? text : `${text.slice(0, at)}${NEMESIS_RETRY_LINE}${text.slice(at)}`;
}

function requestText(req: LoadRequest, prefix: string, hostHeader: string, headers: HeaderWriter): string | InvalidRequestError {
  const target = prefix + req.path;
  if (!TARGET.test(target)) return new InvalidRequestError(`invalid request path ${JSON.stringify(target.slice(0, 60))}`);
  const h = headers.linesOf(req.headers);
  if (h instanceof InvalidRequestError) return h;
  return `${req.method} ${target} HTTP/1.1\r\n${h.host ? '' : `host: ${hostHeader}\r\n`}${h.text}content-length: ${Buffer.byteLength(req.body)}\r\n\r\n${req.body}`;
}

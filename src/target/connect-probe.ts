/**
 * One fresh connection to the target, nothing sent: whether anything still listens there, and for
 * an https target whether the TLS the profile sets up is accepted (its CA, name, client
 * certificate), so that `run` says what to fix in one line before it starts. Through a proxy, the
 * connection is the proxy's CONNECT tunnel (for an http target, the proxy itself: an absolute-form
 * request needs no tunnel, and many proxies allow CONNECT to 443 only). The runner confirms a
 * target that went down with it (a refused connection is evidence; a slow one is not, and nothing a
 * proxy relays is).
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect } from 'node:tls';
import type { ProxyRoute } from './proxy.ts';
import { shownProxy } from './proxy.ts';
import { describeTlsFailure, tlsConnectOptions, type TlsSettings } from './tls.ts';
import { TunnelError, connectToProxy, openTunnel } from './tunnel.ts';
import { errorCode } from '../spec/index.ts';

/**
 * The target could not be reached, where a command cannot go on without it (replay, load): one line,
 * and exit 3 (the target's trouble), never 4 (bad input to pouchproof), which a CI job treats differently.
 */
export class TargetUnreachableError extends Error {}

export interface ConnectProbe {
  readonly ok: boolean;
  /** `connected`, or why not (`connection refused`, `no answer within 3000 ms`, an error code, a TLS or proxy failure). */
  readonly reason: string;
  /** The refusal is evidence that nothing listens (refused, reset, unreachable), as opposed to a slow answer. */
  readonly refused: boolean;
}

/** What the probe needs of a profile. */
export interface ProbeTarget {
  readonly baseUrl: string;
  readonly tls?: TlsSettings | undefined;
  readonly proxy?: ProxyRoute | undefined;
}

const REFUSALS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * After a TLS 1.3 handshake the server checks the client's certificate and says no in an alert a
 * round trip later: the probe listens that long (twice the handshake, at least this) before it calls
 * the connection good.
 */
const MIN_ALERT_WAIT_MS = 100;

/** One probe's state: the target's address, the sockets opened for it, and its single answer. */
class Probe {
  readonly https: boolean;
  readonly host: string;
  readonly port: number;
  private readonly started = performance.now();
  private readonly live: Socket[] = [];
  private settled = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly t: ProbeTarget,
    readonly u: URL,
    readonly timeoutMs: number,
    private readonly resolve: (p: ConnectProbe) => void,
  ) {
    this.https = this.u.protocol === 'https:';
    this.host = this.u.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(this.u.port || (this.https ? 443 : 80));
    this.timer = setTimeout(() => this.done({ ok: false, reason: `no answer within ${timeoutMs} ms`, refused: false }), timeoutMs);
  }

  /** The time left of the probe's bound. */
  left(): number {
    return Math.max(1, this.timeoutMs - (performance.now() - this.started));
  }

  /** Keeps a socket to destroy when the probe answers. */
  hold<S extends Socket>(s: S): S {
    this.live.push(s);
    return s;
  }

  /** Answers once: later outcomes (a timer, a late error) are dropped, and every socket is destroyed. */
  done(p: ConnectProbe): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    for (const s of this.live) s.destroy();
    this.resolve(p);
  }

  readonly failed = (e: NodeJS.ErrnoException): void =>
    this.done({ ok: false, reason: e.code === 'ECONNREFUSED' ? 'connection refused' : e.code === 'ENOTFOUND' ? 'host not found' : (e.code ?? e.message), refused: REFUSALS.has(e.code ?? '') });

  /** Over an open connection to the target (direct or tunnelled): TLS if https, then a short listen for an alert. */
  readonly speak = (socket: Socket): void => {
    this.hold(socket);
    if (!this.https) return this.done({ ok: true, reason: 'connected', refused: false });
    const { t, u, host } = this;
    const handshakeFrom = performance.now();
    const servername = t.tls?.servername ?? (isIP(host) === 0 ? host : undefined);
    const s = this.hold(tlsConnect({ ...tlsConnectOptions(t.tls), socket, ...(servername ? { servername } : {}), ALPNProtocols: ['http/1.1'] }));
    s.on('error', (e) => this.done({ ok: false, reason: describeTlsFailure(e, u.host) ?? `TLS with ${u.host} failed (${errorCode(e) ?? e.message})`, refused: false }));
    s.once('secureConnect', () => {
      const wait = Math.min(this.left(), Math.max(MIN_ALERT_WAIT_MS, 2 * (performance.now() - handshakeFrom)));
      s.resume();
      setTimeout(() => this.done({ ok: true, reason: 'connected (TLS)', refused: false }), wait).unref();
    });
  };

  /** Through the profile's proxy: a tunnel to an https target; for an http one, the proxy itself. */
  viaProxy(proxy: ProxyRoute): void {
    const via = shownProxy(proxy.url);
    if (!this.https) {
      // An http target is reached in absolute form: what can be checked without a request is the proxy itself.
      const s = this.hold(connectToProxy(proxy));
      s.once('error', (e: NodeJS.ErrnoException) => this.done({ ok: false, reason: `the proxy ${via}: ${e.code === 'ECONNREFUSED' ? 'connection refused' : (e.code ?? e.message)}`, refused: false }));
      s.once(new URL(proxy.url).protocol === 'https:' ? 'secureConnect' : 'connect', () => this.done({ ok: true, reason: `connected to the proxy ${via}`, refused: false }));
      return;
    }
    const { t, host, port, timeoutMs } = this;
    openTunnel(proxy, host, port, { timeoutMs, ...(t.tls?.ca !== undefined ? { proxyTls: { ca: tlsConnectOptions(t.tls).ca } } : {}) }).then(this.speak, (e: unknown) =>
      this.done({ ok: false, reason: e instanceof TunnelError ? e.message : String(e), refused: false }),
    );
  }

  /** Straight to the target. */
  direct(): void {
    const s = this.hold(netConnect({ host: this.host, port: this.port }));
    s.once('error', this.failed);
    s.once('connect', () => {
      s.off('error', this.failed);
      this.speak(s);
    });
  }
}

export function probeConnection(target: string | ProbeTarget, timeoutMs: number): Promise<ConnectProbe> {
  const t: ProbeTarget = typeof target === 'string' ? { baseUrl: target } : target;
  // A malformed URL throws here, before any promise: the caller's mistake, not an unreachable target.
  const u = new URL(t.baseUrl);
  return new Promise((resolve) => {
    const probe = new Probe(t, u, timeoutMs, resolve);
    if (t.proxy) probe.viaProxy(t.proxy);
    else probe.direct();
  });
}

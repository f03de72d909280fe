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

export function probeConnection(target: string | ProbeTarget, timeoutMs: number): Promise<ConnectProbe> {
  const t: ProbeTarget = typeof target === 'string' ? { baseUrl: target } : target;
  const u = new URL(t.baseUrl);
  const https = u.protocol === 'https:';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port || (https ? 443 : 80));
  const started = performance.now();
  const left = (): number => Math.max(1, timeoutMs - (performance.now() - started));

  return new Promise((resolve) => {
    const live: Socket[] = [];
    let settled = false;
    const done = (p: ConnectProbe): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const s of live) s.destroy();
      resolve(p);
    };
    const timer = setTimeout(() => done({ ok: false, reason: `no answer within ${timeoutMs} ms`, refused: false }), timeoutMs);
    const failed = (e: NodeJS.ErrnoException): void =>
      done({ ok: false, reason: e.code === 'ECONNREFUSED' ? 'connection refused' : e.code === 'ENOTFOUND' ? 'host not found' : (e.code ?? e.message), refused: REFUSALS.has(e.code ?? '') });

    /** Over an open connection to the target (direct or tunnelled): TLS if https, then a short listen for an alert. */
    const speak = (socket: Socket): void => {
      live.push(socket);
      if (!https) return done({ ok: true, reason: 'connected', refused: false });
      const handshakeFrom = performance.now();
      const servername = t.tls?.servername ?? (isIP(host) === 0 ? host : undefined);
      const s = tlsConnect({ ...tlsConnectOptions(t.tls), socket, ...(servername ? { servername } : {}), ALPNProtocols: ['http/1.1'] });
      live.push(s);
      s.on('error', (e) => done({ ok: false, reason: describeTlsFailure(e, u.host) ?? `TLS with ${u.host} failed (${(e as NodeJS.ErrnoException).code ?? e.message})`, refused: false }));
      s.once('secureConnect', () => {
        const wait = Math.min(left(), Math.max(MIN_ALERT_WAIT_MS, 2 * (performance.now() - handshakeFrom)));
        s.resume();
        setTimeout(() => done({ ok: true, reason: 'connected (TLS)', refused: false }), wait).unref();
      });
    };

    if (t.proxy) {
      const via = shownProxy(t.proxy.url);
      if (!https) {
        // An http target is reached in absolute form: what can be checked without a request is the proxy itself.
        const s = connectToProxy(t.proxy);
        live.push(s);
        s.once('error', (e: NodeJS.ErrnoException) => done({ ok: false, reason: `the proxy ${via}: ${e.code === 'ECONNREFUSED' ? 'connection refused' : (e.code ?? e.message)}`, refused: false }));
        s.once(new URL(t.proxy.url).protocol === 'https:' ? 'secureConnect' : 'connect', () => done({ ok: true, reason: `connected to the proxy ${via}`, refused: false }));
        return;
      }
      openTunnel(t.proxy, host, port, { timeoutMs, ...(t.tls?.ca !== undefined ? { proxyTls: { ca: tlsConnectOptions(t.tls).ca } } : {}) }).then(speak, (e: unknown) =>
        done({ ok: false, reason: e instanceof TunnelError ? e.message : String(e), refused: false }),
      );
      return;
    }
    const s = netConnect({ host, port });
    live.push(s);
    s.once('error', failed);
    s.once('connect', () => {
      s.off('error', failed);
      speak(s);
    });
  });
}

/**
 * A CONNECT tunnel through an HTTP proxy (RFC 9110 section 9.3.6), on a socket of our own: the
 * connection probe and the load engine open their connections through it (the conformance client
 * has undici's). Bounded: the proxy's answer is read up to a small cap and within a time bound.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { describeProxyFailure, proxyAuthorization, proxyRefusal, shownProxy, type ProxyRoute } from './proxy.ts';

/** The proxy's answer to CONNECT is a status line and a few fields: more is not a proxy speaking HTTP. */
const MAX_CONNECT_HEAD_BYTES = 16 * 1024;

/** A tunnel that could not be opened; `message` is one line naming the proxy, never its credentials. */
export class TunnelError extends Error {
  constructor(
    message: string,
    /** The proxy's status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'TunnelError';
  }
}

/** `host:port` as a request target and a Host field write it (an IPv6 address in brackets). */
export function authority(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/** A plain connection to the proxy itself (TLS when its URL is https, trusting `proxyTls`). */
export function connectToProxy(route: ProxyRoute, proxyTls: ConnectionOptions = {}): Socket {
  const u = new URL(route.url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (u.protocol === 'https:') {
    return tlsConnect({ ...proxyTls, host, port: Number(u.port || 443), ...(isIP(host) === 0 ? { servername: host } : {}) });
  }
  return netConnect({ host, port: Number(u.port || 80) });
}

/**
 * Opens a tunnel to `host:port` through the proxy: resolves with the socket once the proxy said
 * 200 (the caller then speaks TLS or HTTP over it), rejects with a TunnelError otherwise.
 */
export function openTunnel(route: ProxyRoute, host: string, port: number, o: { timeoutMs: number; proxyTls?: ConnectionOptions }): Promise<Socket> {
  const target = authority(host, port);
  const shown = shownProxy(route.url);
  const auth = proxyAuthorization(route.url);
  return new Promise((resolve, reject) => {
    const socket = connectToProxy(route, o.proxyTls);
    let head = Buffer.alloc(0);
    let settled = false;
    const fail = (e: TunnelError): void => {
      if (settled) return;
      settled = true;
      cleanup();
      socket.destroy();
      reject(e);
    };
    const timer = setTimeout(() => fail(new TunnelError(`no answer from the proxy ${shown} to CONNECT ${target} within ${o.timeoutMs} ms`)), o.timeoutMs);
    const onError = (e: NodeJS.ErrnoException): void => fail(new TunnelError(describeProxyFailure(e, shown, target) ?? `the proxy ${shown} failed: ${e.code ?? e.message}`));
    const onClose = (): void => fail(new TunnelError(`the proxy ${shown} closed the connection before answering CONNECT ${target}`));
    const onData = (d: Buffer): void => {
      head = Buffer.concat([head, d]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_CONNECT_HEAD_BYTES) fail(new TunnelError(`the proxy ${shown} answered CONNECT with more than ${MAX_CONNECT_HEAD_BYTES} bytes of header`));
        return;
      }
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'))?.[1] ?? NaN);
      if (!Number.isInteger(status)) return fail(new TunnelError(`the proxy ${shown} did not answer CONNECT in HTTP/1.x`));
      if (status !== 200) return fail(new TunnelError(proxyRefusal(shown, target, status), status));
      settled = true;
      cleanup();
      // Nothing may flow with no listener: the caller takes the socket over paused.
      socket.pause();
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      socket.off('error', onError);
      socket.off('close', onClose);
      socket.off('data', onData);
    };
    socket.on('error', onError);
    socket.on('close', onClose);
    socket.on('data', onData);
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`);
  });
}

/**
 * `--metrics-listen HOST:PORT`: an HTTP endpoint serving the run's live figures (metrics.ts) at
 * /metrics while the run lasts, for a Prometheus scrape. It runs in the main thread, which (with
 * worker threads) sends no load itself; a scrape costs a few hundred microseconds of it.
 */
import { createServer } from 'node:http';
import { METRICS_PATH } from './live.ts';
import type { LiveMetrics } from './metrics.ts';

export class MetricsListenError extends Error {}

export interface MetricsListen {
  readonly host: string;
  readonly port: number;
}

/** `127.0.0.1:9464`, `[::1]:9464`, or `:9464` (every interface, as a pod needs for its scrape). */
export function parseMetricsListen(text: string): MetricsListen {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : Number.NaN;
  if (!m || port > 65_535) throw new MetricsListenError(`--metrics-listen "${text}": give HOST:PORT, e.g. 127.0.0.1:9464 (or :9464 for every interface)`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

export interface MetricsServer {
  /** Where Prometheus scrapes it. */
  readonly url: string;
  /** Stops serving once a scrape has read the final figures, or after `lingerMs` at most. */
  close(lingerMs?: number): Promise<void>;
}

/** After a run, how long the endpoint waits at most for a scrape to read its final figures. */
export const METRICS_LINGER_MS = 2000;

export async function serveMetrics(listen: MetricsListen, metrics: LiveMetrics): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== METRICS_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`pouchproof serves its metrics at ${METRICS_PATH}\n`);
      return;
    }
    const registry = metrics.registry();
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (e: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${e.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(new MetricsListenError(`--metrics-listen ${listen.host}:${listen.port}: cannot listen (${e.code === 'EADDRINUSE' ? 'the port is in use' : e.code === 'EACCES' ? 'not allowed' : e.message})`)),
    );
    server.listen(listen.port, listen.host, resolve);
  });
  server.unref();
  const a = server.address();
  if (a === null || typeof a === 'string') throw new Error('pouchproof: the metrics server listens on a TCP port, which has an address');
  const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return {
    url: `http://${host}:${a.port}${METRICS_PATH}`,
    close: async (lingerMs = 0) => {
      const end = Date.now() + lingerMs;
      while (!metrics.read && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      await new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      });
    },
  };
}

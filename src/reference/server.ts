/**
 * The reference server: node:http (no framework: six routes, and every byte of a malformed request
 * must be under our control). A request goes route → credentials → member kind → path parameters →
 * content type → body (size, UTF-8, nesting, duplicate names, JSON) → schema → handler (routing.ts),
 * and every rejection on the way is a 4xx with the error envelope (or a plain-text body, under
 * `error-response=any-4xx`; answer.ts). Anything unexpected is a 500, and the server keeps serving.
 * Each server serves its own readings (readings.ts) and faults (faults.ts), switched on from the
 * catalogues (reading-catalogue.ts, fault-catalogue.ts) and decided once at start (served.ts).
 * This module is the lifecycle: one request from arrival to answer, listening and closing.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { answerClientError, errorOutcome, metaOf, replyOutcome, writeOutcome } from './answer.ts';
import { HttpError } from './errors.ts';
import { STALL_MS, STALL_PERIOD_MS } from './fault-catalogue.ts';
import { profileOf, type Fixture, type ProfileDocument } from './fixture.ts';
import { handleRequest } from './routing.ts';
import { servedOf, type Served, type ServedOptions } from './served.ts';
import { CPU_TIMING_HEADER, type AssumptionName, type Readings } from '../spec/index.ts';

export interface ReferenceOptions extends ServedOptions {
  host?: string;
  port?: number;
  /**
   * What a crash fault (`deep-nesting-crash`, `dies-on-input`) does once the connection under it is
   * dropped: by default, in process, what a dead process looks like from a client (the listener
   * closes and every connection is destroyed, so new connections are refused); `pouchproof serve`
   * exits its process instead. Never kills an embedding process.
   */
  onCrash?: () => void;
}

export interface RunningReference {
  url: string;
  /** A complete profile file (docs/CONTRACTS.md), JSON-ready, including credentials and the device keys. */
  profile: ProfileDocument;
  faults: readonly string[];
  /** The readings served that differ from the registry defaults: the chosen ones and those the faults switch on. */
  readings: Readings;
  close(): Promise<void>;
  /** Date.now() when the server started listening: the origin of the `stall-periodic` windows. */
  startedAt: number;
  /** The credentials and keys the server accepts. */
  fixture: Fixture;
  /**
   * The readings the server has asked for so far, starting up included: what it served while asking
   * none of the others it would have served alike under any of their values.
   */
  consultedReadings(): ReadonlySet<AssumptionName>;
}

/** Reads and drops what is left of a request body, within a bound (the body cap and a few seconds). */
function drained(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, 5_000);
    const done = (): void => {
      clearTimeout(t);
      resolve();
    };
    req.on('end', done).on('error', done).on('close', done).resume();
  });
}

/** What the request lifecycle shares with the server's: when it started (for `stall-periodic`), its pending delayed answers, how it crashes. */
interface Lifecycle {
  readonly served: Served;
  startedAt: number;
  readonly timers: Set<NodeJS.Timeout>;
  /** `deep-nesting-crash`, `dies-on-input`: what an uncaught exception does to a real process (see `onCrash`). */
  crash(res: ServerResponse): void;
}

/** Under `stall-periodic`, the time an answer to a request arriving now is held until (0: not held). */
function stalledUntil(life: Lifecycle, arrival: number): number {
  if (!life.served.faults.has('stall-periodic')) return 0;
  const t = arrival - life.startedAt;
  return t % STALL_PERIOD_MS < STALL_MS ? life.startedAt + t - (t % STALL_PERIOD_MS) + STALL_MS : 0;
}

/** One request from arrival to answer: a handler's reply, a refusal's 4xx, or a 500 (or a crash under the crash faults). */
async function serveRequest(life: Lifecycle, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const s = life.served;
  // CPU time is measured only when asked (answer.ts, writeOutcome): it costs two syscalls.
  const cpu = req.headers[CPU_TIMING_HEADER] === undefined ? undefined : process.cpuUsage();
  const notBefore = stalledUntil(life, Date.now());
  const answer = (out: Parameters<typeof writeOutcome>[1]): void => writeOutcome(res, out, notBefore, cpu, life.timers);
  const requestId = randomUUID();
  // `refuse-everything`: a guard that refuses every request, with a body that contradicts its status.
  if (s.faults.has('refuse-everything')) {
    req.resume();
    return answer({ status: 400, body: { ok: true, data: {}, meta: metaOf(s, requestId) } });
  }
  try {
    const reply = s.storePool ? await s.storePool.run(() => handleRequest(req, s)) : await handleRequest(req, s);
    answer(replyOutcome(s, reply, requestId));
  } catch (e) {
    if (e instanceof HttpError) {
      // A request refused before its body was read (a bad path parameter, the wrong member kind) is
      // read to its end first: answering while the client still writes would reset the connection
      // under it, and the client would see no answer at all. An oversized body is not waited for.
      if (!req.complete && e.headers['connection'] !== 'close') await drained(req);
      return answer(errorOutcome(s, e.status, requestId, e.code, e.message, e.data, e.headers));
    }
    if (s.faults.has('deep-nesting-crash') || s.faults.has('dies-on-input')) return life.crash(res);
    answer(errorOutcome(s, 500, requestId, 'internal_error', 'internal error'));
  }
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      const why = e.code === 'EADDRINUSE' ? 'address already in use' : e.code === 'EACCES' ? 'permission denied' : (e.code ?? e.message);
      reject(new Error(`cannot listen on ${host}:${port}: ${why}`));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** The URL a client reaches a listening server at: a wildcard host is reached on loopback, an IPv6 one in brackets. */
function urlOf(server: Server, host: string): string {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('pouchproof: the reference listens on a TCP port, which has an address');
  const { port } = address;
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/** Closing once: the store pool, the delayed answers, the listener and every open connection. */
function closer(server: Server, life: Lifecycle): () => Promise<void> {
  let closed = false;
  return () => {
    if (closed) return Promise.resolve();
    closed = true;
    life.served.storePool?.close();
    for (const t of life.timers) clearTimeout(t);
    life.timers.clear();
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };
}

export async function startReference(o: ReferenceOptions = {}): Promise<RunningReference> {
  const served = servedOf(o);
  const { fixture, readings } = served;
  const host = o.host ?? '127.0.0.1';
  const crash = (res: ServerResponse): void => {
    res.destroy();
    if (o.onCrash) o.onCrash();
    else void shutdown();
  };
  const life: Lifecycle = { served, startedAt: Date.now(), timers: new Set(), crash };
  const server = createServer({ requestTimeout: 120_000, headersTimeout: 30_000, keepAliveTimeout: 5_000 }, (req, res) => {
    void serveRequest(life, req, res);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(served, err, socket));
  const shutdown = closer(server, life);
  await listen(server, host, o.port ?? 0);
  life.startedAt = Date.now();
  const url = urlOf(server, host);
  return {
    url,
    profile: profileOf(fixture, url, {
      // Listed whatever the reading, as a staging profile lists the pouches its device may commit to:
      // a commit refused even there cannot be put down to a pouch that must exist first.
      pouchIds: true,
      cliRequestIds: readings.is('cli-request-exists', 'profile-ids'),
      browserIds: readings.is('browser-exists', 'profile-ids'),
    }),
    faults: served.faults.names,
    readings: readings.active,
    close: shutdown,
    startedAt: life.startedAt,
    fixture,
    consultedReadings: () => new Set(readings.consulted),
  };
}

/**
 * The reference server: node:http (no framework: six routes, and every byte of a malformed request
 * must be under our control). A request goes route → credentials → member kind → path parameters →
 * content type → body (size, UTF-8, nesting, duplicate names, JSON) → schema → handler, and every
 * rejection on the way is a 4xx with the error envelope. Anything unexpected is a 500 with the
 * envelope, and the server keeps serving.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { matchPath, type Endpoint, type MemberKind, type Readings } from '../spec/index.ts';
import { checkContentType, parseJsonBody, readBody } from './body.ts';
import type { Reply } from './context.ts';
import { HttpError } from './errors.ts';
import { FaultSet, STALL_MS, STALL_PERIOD_MS } from './faults.ts';
import { directoryOf, generateFixture, profileOf, type Caller, type Directory, type Fixture, type ProfileDocument } from './fixture.ts';
import { HANDLERS } from './handlers/index.ts';
import { MemoryStore, type Store } from './store.ts';
import { validateBody, validateParams } from './validate.ts';

export interface ReferenceOptions {
  host?: string;
  port?: number;
  faults?: readonly string[];
  fixture?: Fixture;
  /** Another store implementation (default: in memory). */
  store?: Store;
  /** Readings of the spec's "not shown" to serve instead of the registry defaults (not yet honoured: the defaults are served). */
  readings?: Readings;
}

export interface RunningReference {
  url: string;
  /** A complete profile file (docs/CONTRACTS.md), JSON-ready, including credentials and the device keys. */
  profile: ProfileDocument;
  faults: readonly string[];
  close(): Promise<void>;
  /** Date.now() when the server started listening: the origin of the `stall-periodic` windows. */
  startedAt: number;
  /** The credentials and keys the server accepts. */
  fixture: Fixture;
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;
const METHODS = ['POST', 'PUT'] as const;

/** Who may call an endpoint: the catalogue's caller; browsers may also commit (section 5 asks a signature of devices only). */
function allowedKinds(e: Endpoint): readonly MemberKind[] {
  return e.id === 'commitOperations' ? ['device', 'browser'] : [e.caller];
}

interface Outcome {
  status: number;
  body: unknown;
  headers?: Readonly<Record<string, string>>;
}

export async function startReference(o: ReferenceOptions = {}): Promise<RunningReference> {
  const faults = new FaultSet(o.faults ?? []);
  const fixture = o.fixture ?? generateFixture();
  const directory: Directory = directoryOf(fixture);
  const store: Store = o.store ?? new MemoryStore();
  const host = o.host ?? '127.0.0.1';
  const timers = new Set<NodeJS.Timeout>();
  let startedAt = Date.now();
  let closed = false;

  const meta = (requestId: string): Record<string, string> => (faults.has('envelope-missing-request-id') ? {} : { request_id: requestId });

  function authenticate(req: IncomingMessage, e: Endpoint): Caller {
    const m = BEARER.exec(req.headers.authorization ?? '');
    const caller = m ? directory.callerFor(m[1]!) : undefined;
    if (caller) return caller;
    if (faults.has('auth-ignored')) return directory.fallback(e.caller);
    throw new HttpError(401, 'unauthenticated', m ? 'the bearer token is not valid' : 'credentials required: send Authorization: Bearer <token>', {
      'www-authenticate': 'Bearer',
    });
  }

  async function handle(req: IncomingMessage): Promise<Reply> {
    const path = (req.url ?? '/').split('?', 1)[0]!;
    const route = matchPath(req.method ?? '', path);
    if (!route) {
      const other = METHODS.find((m) => m !== req.method && matchPath(m, path));
      if (other) throw new HttpError(405, 'method_not_allowed', `use ${other} for this path`, { allow: other });
      throw new HttpError(404, 'not_found', 'no such endpoint');
    }
    const { endpoint, params } = route;
    const caller = authenticate(req, endpoint);
    if (!allowedKinds(endpoint).includes(caller.kind)) {
      throw new HttpError(403, 'wrong_member_kind', `a ${caller.kind} member cannot call this endpoint (section ${endpoint.section})`);
    }
    const badParams = validateParams(endpoint, params, faults);
    if (badParams) throw badParams;
    checkContentType(req, faults);
    const rawBody = await readBody(req, faults);
    const body = parseJsonBody(rawBody, faults);
    const badBody = validateBody(endpoint, body, faults);
    if (badBody) throw badBody;
    return HANDLERS[endpoint.id]({ endpoint, params, caller, body, rawBody, headers: req.headers, faults, store, directory });
  }

  function send(res: ServerResponse, out: Outcome, notBefore: number): void {
    const write = (): void => {
      if (res.destroyed || res.writableEnded) return;
      const text = JSON.stringify(out.body);
      res.writeHead(out.status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        ...out.headers,
      });
      res.end(text);
    };
    const wait = notBefore - Date.now();
    if (wait <= 0) return write();
    const t = setTimeout(() => {
      timers.delete(t);
      write();
    }, wait);
    timers.add(t);
  }

  /** `deep-nesting-crash`: what an uncaught exception does to a real process, without taking the embedding process down. */
  function crash(res: ServerResponse): void {
    res.destroy();
    void shutdown();
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrival = Date.now();
    let notBefore = 0;
    if (faults.has('stall-periodic')) {
      const t = arrival - startedAt;
      if (t % STALL_PERIOD_MS < STALL_MS) notBefore = startedAt + t - (t % STALL_PERIOD_MS) + STALL_MS;
    }
    const requestId = randomUUID();
    try {
      const reply = await handle(req);
      send(res, { status: reply.status, body: { ok: true, data: reply.data, meta: meta(requestId) } }, notBefore);
    } catch (e) {
      if (e instanceof HttpError) {
        send(res, { status: e.status, headers: e.headers, body: { ok: false, data: {}, meta: meta(requestId), error: { code: e.code, message: e.message } } }, notBefore);
        return;
      }
      if (faults.has('deep-nesting-crash')) return crash(res);
      send(res, { status: 500, body: { ok: false, data: {}, meta: meta(requestId), error: { code: 'internal_error', message: 'internal error' } } }, notBefore);
    }
  }

  const server = createServer({ requestTimeout: 120_000, headersTimeout: 30_000, keepAliveTimeout: 5_000 }, (req, res) => {
    void serve(req, res);
  });

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const text = JSON.stringify({ ok: false, data: {}, meta: meta(randomUUID()), error: { code: 'bad_http', message: 'malformed HTTP request' } });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
  });

  function shutdown(): Promise<void> {
    if (closed) return Promise.resolve();
    closed = true;
    for (const t of timers) clearTimeout(t);
    timers.clear();
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      const why = e.code === 'EADDRINUSE' ? 'address already in use' : e.code === 'EACCES' ? 'permission denied' : (e.code ?? e.message);
      reject(new Error(`cannot listen on ${host}:${o.port ?? 0}: ${why}`));
    };
    server.once('error', onError);
    server.listen(o.port ?? 0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  startedAt = Date.now();

  const { port } = server.address() as AddressInfo;
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const url = `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
  return {
    url,
    profile: profileOf(fixture, url),
    faults: faults.names,
    close: shutdown,
    startedAt,
    fixture,
  };
}

/**
 * The reference server: node:http (no framework: six routes, and every byte of a malformed request
 * must be under our control). A request goes route → credentials → member kind → path parameters →
 * content type → body (size, UTF-8, nesting, duplicate names, JSON) → schema → handler, and every
 * rejection on the way is a 4xx with the error envelope (or a plain-text body, under
 * `error-response=any-4xx`). Anything unexpected is a 500, and the server keeps serving. Each
 * server serves its own readings (readings.ts) and faults (faults.ts), switched on from the
 * catalogues (reading-catalogue.ts, fault-catalogue.ts).
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { matchPath, type Endpoint, type EndpointBody, type EndpointId, type EndpointParams, type MemberKind, type Readings } from '../spec/index.ts';
import { checkContentType, parseJsonBody, readBody } from './body.ts';
import type { Reply } from './context.ts';
import { HttpError } from './errors.ts';
import { STALL_MS, STALL_PERIOD_MS } from './fault-catalogue.ts';
import { FaultSet } from './faults.ts';
import { StorePool } from './store-pool.ts';
import { directoryOf, generateFixture, profileOf, type Caller, type Directory, type Fixture, type ProfileDocument } from './fixture.ts';
import { dispatch } from './handlers/index.ts';
import { pouchKey } from './handlers/commit.ts';
import { storeRowsBefore } from './handlers/usage.ts';
import { resolveReadings, type ReadingSet } from './readings.ts';
import { MemoryStore, type Store } from './store.ts';
import { BodyValidator, validateParams } from './validate.ts';
import { UnnamedSet } from './unnamed.ts';

export interface ReferenceOptions {
  host?: string;
  port?: number;
  faults?: readonly string[];
  /** Readings to serve where the spec is silent (unset: the registry default); validated against the registry. */
  readings?: Readings;
  /** Choices the spec allows that the registry does not name (unnamed.ts), to show the suite does not guess. */
  unnamed?: readonly string[];
  fixture?: Fixture;
  /** Another store implementation (default: in memory). */
  store?: Store;
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

/** Refusals that stay HTTP status codes under `error-response=ok-false-any-status`: a gateway's, not the service's. */
const KEPT_AS_HTTP: ReadonlySet<number> = new Set([401, 403, 405, 413, 429]);

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;
const METHODS = ['POST', 'PUT'] as const;

const ALL_KINDS: readonly MemberKind[] = ['browser', 'device'];

/**
 * Who may call an endpoint (`caller-kinds`): under `catalogue` the catalogue's caller, and browsers
 * may also commit (section 5 asks a signature of devices only); under `any-member`, everyone.
 */
function allowedKinds(e: Endpoint, readings: ReadingSet): readonly MemberKind[] {
  if (readings.is('caller-kinds', 'any-member')) return ALL_KINDS;
  return e.id === 'commitOperations' ? ALL_KINDS : [e.caller];
}

interface Outcome {
  status: number;
  body?: unknown;
  /** A plain-text body instead of JSON. */
  plain?: string;
  headers?: Readonly<Record<string, string>>;
}

export async function startReference(o: ReferenceOptions = {}): Promise<RunningReference> {
  const faults = new FaultSet(o.faults ?? []);
  const unnamed = new UnnamedSet(o.unnamed ?? []);
  const readings = resolveReadings(o.readings ?? {}, faults.names);
  const validator = new BodyValidator(faults, readings);
  const fixture = o.fixture ?? generateFixture();
  const directory: Directory = directoryOf(fixture);
  const store: Store = o.store ?? new MemoryStore(faults);
  const mustExist = readings.is('pouch-existence', 'must-exist');
  if (mustExist) {
    // The fixture's pouches exist from the start: the primary account's, and with pouch ids scoped per account the secondary's too.
    const owners = readings.is('cross-account-isolation', 'separate-pouch') ? [fixture.primary.id, fixture.secondary.id] : [fixture.primary.id];
    for (const id of fixture.pouchIds ?? []) for (const owner of owners) store.createPouch(pouchKey(owner, id, readings, faults), owner);
  }
  // `error-response`: the reference answers the envelope with ok false, which every reading allows;
  // asked for `any-4xx` by name, it answers the loosest body that reading allows, plain text.
  const plainErrors = readings.chosenOf('error-response') === 'any-4xx';
  const okFalseStatus = readings.is('error-response', 'ok-false-any-status');
  const host = o.host ?? '127.0.0.1';
  const timers = new Set<NodeJS.Timeout>();
  let startedAt = Date.now();
  let closed = false;
  const storePool = faults.has('store-pool-queue') ? new StorePool() : undefined;

  const meta = (requestId: string): Record<string, string> => (faults.has('envelope-missing-request-id') ? {} : { request_id: requestId });

  function authenticate(req: IncomingMessage, e: Endpoint): Caller {
    const m = BEARER.exec(req.headers.authorization ?? '');
    // `auth-scheme-500`: the token is read as the header's second word after a scheme assumed to be Bearer, so any other scheme fails unhandled.
    if (faults.has('auth-scheme-500') && req.headers.authorization !== undefined && !m) throw new Error(`cannot read the bearer token of "${req.headers.authorization.split(' ')[0]}"`);
    const caller = m ? directory.callerFor(m[1]!) : undefined;
    if (caller) return caller;
    // `credentials-required=open` (the `auth-ignored` fault is that reading): served as the primary account.
    if (readings.is('credentials-required', 'open')) return directory.fallback(e.caller);
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
    if (!allowedKinds(endpoint, readings).includes(caller.kind)) {
      throw new HttpError(403, 'wrong_member_kind', `a ${caller.kind} member cannot call this endpoint (section ${endpoint.section})`);
    }
    const badParams = validateParams(endpoint, params, faults);
    if (badParams) throw badParams;
    checkContentType(req, faults, readings);
    const rawBody = await readBody(req, faults);
    const body = validator.bind(endpoint, parseJsonBody(rawBody, faults, readings));
    const badBody = validator.check(endpoint, body);
    const context = { endpoint, caller, rawBody, headers: req.headers, faults, readings, unnamed, store, directory, fixture, connection: req.socket };
    if (badBody) {
      if (faults.has('usage-partial-store') && endpoint.id === 'reportUsage') await storeRowsBefore(body, (b) => !validator.check(endpoint, b), { ...context, params: params as EndpointParams<'reportUsage'> });
      throw badBody;
    }
    // Both were checked against this endpoint's nodes above: they have its types.
    const typed = { params: params as EndpointParams<EndpointId>, body: body as EndpointBody<EndpointId> };
    return dispatch(endpoint.id, { ...context, ...typed });
  }

  /**
   * An error's body: the envelope of 2.1 with ok false, or plain text under `error-response=any-4xx`.
   * Under `ok-false-any-status` a refusal of the request's content comes as a 200 with ok false (the
   * status says the message got through; the envelope says it was refused), as some APIs answer;
   * what a gateway would refuse before reading the request (credentials, method, size, rate) keeps its 4xx.
   */
  function errorOutcome(status: number, requestId: string, code: string, message: string, data: unknown = {}, headers?: Readonly<Record<string, string>>): Outcome {
    if (plainErrors) return { status, plain: `${code}: ${message}\n`, ...(headers ? { headers } : {}) };
    const sent = okFalseStatus && !KEPT_AS_HTTP.has(status) && status >= 400 && status < 500 ? 200 : status;
    return { status: sent, body: { ok: false, data, meta: meta(requestId), error: { code, message } }, ...(headers ? { headers } : {}) };
  }

  /**
   * Writes the answer, not before `notBefore` (`stall-periodic`). `Server-Timing: cpu` is the process's
   * CPU time from the request's arrival to its answer: the in-process reference's own work on the
   * request, without the harness's building and signing of it, which the cost probe reads (a remote
   * target's latency is what it measures there).
   */
  function send(res: ServerResponse, out: Outcome, notBefore: number, cpuAtArrival: NodeJS.CpuUsage): void {
    const text = out.plain ?? JSON.stringify(out.body);
    const used = process.cpuUsage(cpuAtArrival);
    const cpuMs = (used.user + used.system) / 1000;
    const write = (): void => {
      if (res.destroyed || res.writableEnded) return;
      res.writeHead(out.status, {
        'content-type': out.plain === undefined ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        'server-timing': `cpu;dur=${cpuMs.toFixed(3)}`,
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

  /** `deep-nesting-crash`, `dies-on-input`: what an uncaught exception does to a real process (see `onCrash`). */
  function crash(res: ServerResponse): void {
    res.destroy();
    if (o.onCrash) o.onCrash();
    else void shutdown();
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrival = Date.now();
    const cpu = process.cpuUsage();
    let notBefore = 0;
    if (faults.has('stall-periodic')) {
      const t = arrival - startedAt;
      if (t % STALL_PERIOD_MS < STALL_MS) notBefore = startedAt + t - (t % STALL_PERIOD_MS) + STALL_MS;
    }
    const requestId = randomUUID();
    // `refuse-everything`: a guard that refuses every request, with a body that contradicts its status.
    if (faults.has('refuse-everything')) {
      req.resume();
      return send(res, { status: 400, body: { ok: true, data: {}, meta: meta(requestId) } }, notBefore, cpu);
    }
    try {
      const reply = storePool ? await storePool.run(() => handle(req)) : await handle(req);
      const extra = unnamed.has('extra-response-members');
      // Members added to the data the handler answered, whatever it is: a data that is no object stays what it is.
      const data = extra && typeof reply.data === 'object' && reply.data !== null && !Array.isArray(reply.data) ? { ...reply.data, server_time: new Date().toISOString() } : reply.data;
      send(res, { status: reply.status, body: { ok: true, data, meta: extra ? { ...meta(requestId), served_by: 'reference' } : meta(requestId) } }, notBefore, cpu);
    } catch (e) {
      if (e instanceof HttpError) {
        // A request refused before its body was read (a bad path parameter, the wrong member kind) is
        // read to its end first: answering while the client still writes would reset the connection
        // under it, and the client would see no answer at all. An oversized body is not waited for.
        if (!req.complete && e.headers['connection'] !== 'close') await drained(req);
        send(res, errorOutcome(e.status, requestId, e.code, e.message, e.data, e.headers), notBefore, cpu);
        return;
      }
      if (faults.has('deep-nesting-crash') || faults.has('dies-on-input')) return crash(res);
      send(res, errorOutcome(500, requestId, 'internal_error', 'internal error'), notBefore, cpu);
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
    const out = errorOutcome(status, randomUUID(), 'bad_http', 'malformed HTTP request');
    const text = out.plain ?? JSON.stringify(out.body);
    const type = out.plain === undefined ? 'application/json' : 'text/plain';
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: ${type}; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
  });

  function shutdown(): Promise<void> {
    if (closed) return Promise.resolve();
    closed = true;
    storePool?.close();
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
    profile: profileOf(fixture, url, {
      // Listed whatever the reading, as a staging profile lists the pouches its device may commit to:
      // a commit refused even there cannot be put down to a pouch that must exist first.
      pouchIds: true,
      cliRequestIds: readings.is('cli-request-exists', 'profile-ids'),
      browserIds: readings.is('browser-exists', 'profile-ids'),
    }),
    faults: faults.names,
    readings: readings.active,
    close: shutdown,
    startedAt,
    fixture,
  };
}

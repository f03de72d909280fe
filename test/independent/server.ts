/**
 * An independent, in-memory server of SPEC.md, written from the spec and the defect descriptions
 * alone (README.md in this folder), so pouchproof's checks can be scored against code written without
 * sight of them. Plain node:http; its own JSON parser, validators and signature check.
 *
 * Choices where SPEC.md says "not shown" (each a reading a real implementer could make otherwise):
 * - Callers authenticate with `Authorization: Bearer <token>`, one token per browser and per device
 *   (config.ts); a missing or unknown token is 401. Every member kind may call every endpoint.
 * - Canonical JSON for the Service-Signature digest: RFC 8785 (JCS) of the parsed body, unknown members
 *   included. JWS form: compact, detached, payload = the 32 raw BLAKE3 bytes (signature.ts).
 * - `kid` is ignored: the key is the authenticated device's. Browsers' commits need no signature (a
 *   browser's header is not read).
 * - Errors: `{ ok: false, error: { code, message }, meta: { request_id } }` with 400 (bad JSON or a
 *   field), 401 (credentials, signature), 404 (unknown path, another account's pouch or browser),
 *   405, 409 (stale base, existing artifact, reused revision id, operation_id reused with another
 *   body, a CLI request approved twice), 413 (body over 64 MiB), 415 (not application/json).
 * - A pouch comes into being with an account's first commit to its id; another account's commit to it
 *   is 404. A stale base refuses the whole batch (409) and nothing is written.
 * - Revision ids are unique within a pouch. A retry (same account, pouch and operation_id, same
 *   canonical body) is answered the first results without applying again.
 * - seq counts applied ops per pouch from 1; high_water is the pouch's last seq after the batch.
 * - Usage: rows keyed by (account, source, day, assistant, model); `stored` is how many rows of the
 *   report changed what is stored. Counters may be negative (only a maximum is stated); integers with
 *   no stated bound must lie within ±(2^53-1) (I-JSON). Future days are accepted.
 * - Approving a CLI request id the server has not seen is allowed (the step that creates requests is
 *   not shown); approving one twice is 409. Revoking an unknown browser id succeeds; the revoked
 *   browser's token stops working. `rotation_pending` is true unless the roster carries key envelopes.
 * - 4.4 answers `{ member_id }`; 4.6's head_seq moves by one with every accepted account change.
 * - JSON: RFC 8259 strictly (duplicate members refused, any nesting depth); a UTF-8 BOM is skipped;
 *   `1.0` and `1e0` are the integer 1; `-0` is 0; unknown members are ignored.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { approveDevice, changeUnlock, registerPasskey, revokeBrowser } from './account.ts';
import { bugCheck, type BugName } from './bugs.ts';
import { commitOperations } from './commit.ts';
import { applyConfig, type ServerConfig } from './config.ts';
import { HttpError, type Ctx, type Handler, type Reply } from './http-types.ts';
import { parseJson, type Json } from './json.ts';
import { emptyState, type State } from './state.ts';
import { reportUsage } from './usage.ts';
import { Invalid } from './validate.ts';
import type { BugCheck } from './bugs.ts';

export interface ServerOptions {
  readonly config: ServerConfig;
  readonly bugs?: Iterable<BugName>;
  readonly host?: string;
  readonly port?: number;
}

export interface RunningServer {
  readonly url: string;
  stop(): Promise<void>;
}

const BODY_LIMIT = 64 * 1024 * 1024;

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly handler: Handler;
}

const ROUTES: readonly Route[] = [
  { method: 'POST', pattern: /^\/v1\/cli-auth\/requests\/([^/]*)\/approve$/, names: ['id'], handler: approveDevice },
  { method: 'POST', pattern: /^\/v1\/pouches\/([^/]*)\/operations$/, names: ['pouchId'], handler: commitOperations },
  { method: 'PUT', pattern: /^\/v1\/usage\/sources\/([^/]*)$/, names: ['sourceId'], handler: reportUsage },
  { method: 'POST', pattern: /^\/v1\/account\/passkeys$/, names: [], handler: registerPasskey },
  { method: 'POST', pattern: /^\/v1\/browsers\/([^/]*)\/revoke$/, names: ['id'], handler: revokeBrowser },
  { method: 'PUT', pattern: /^\/v1\/account\/unlock$/, names: [], handler: changeUnlock },
];

function match(method: string, path: string, bug: BugCheck): { route: Route; params: Record<string, string> } {
  const p = bug('9-1') && !path.startsWith('/v1/') ? `/v1${path}` : path;
  const found = ROUTES.map((route) => ({ route, m: route.pattern.exec(p) })).filter((x) => x.m);
  if (found.length === 0) throw new HttpError(404, 'not_found', 'no such endpoint');
  const hit = found.find((x) => x.route.method === method);
  if (!hit) throw new HttpError(405, 'method_not_allowed', `use ${found[0]!.route.method}`);
  const params: Record<string, string> = {};
  hit.route.names.forEach((n, i) => {
    try {
      params[n] = decodeURIComponent(hit.m![i + 1]!);
    } catch {
      throw new HttpError(400, 'invalid', `path.${n}: bad percent-encoding`);
    }
  });
  return { route: hit.route, params };
}

/** RFC 9110 §8.3: type and subtype case-insensitive, parameters allowed; a charset must be UTF-8. */
function checkContentType(value: string | undefined, bug: BugCheck): void {
  if (bug('Intro-21')) return;
  if (bug('Intro-22')) {
    if (value !== 'application/json') throw new HttpError(415, 'unsupported_media_type', 'expected application/json');
    return;
  }
  const [type, ...params] = (value ?? '').split(';').map((s) => s.trim());
  const charset = params.map((p) => p.split('=')).find(([k]) => k?.trim().toLowerCase() === 'charset')?.[1];
  const cs = charset?.trim().replace(/^"(.*)"$/, '$1').toLowerCase();
  if (type?.toLowerCase() !== 'application/json' || (cs !== undefined && cs !== 'utf-8' && cs !== 'utf8')) {
    throw new HttpError(415, 'unsupported_media_type', 'expected application/json');
  }
}

async function readBody(req: IncomingMessage, bug: BugCheck): Promise<Buffer> {
  const limit = bug('8-2') ? 1024 * 1024 : bug('8-3') ? 30_000_000 : BODY_LIMIT;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      if (bug('Intro-20')) throw new Error('body too large');
      throw new HttpError(413, 'too_large', `the body is over ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function decodeText(raw: Buffer, bug: BugCheck): string {
  if (bug('Intro-13') && raw.length >= 2 && (raw[0] === 0 || raw[1] === 0)) return raw.swap16().toString('utf16le');
  if (bug('Intro-13') && raw[0] === 0xff && raw[1] === 0xfe) return raw.subarray(2).toString('utf16le');
  let text: string;
  try {
    text = bug('Intro-12') ? raw.toString('utf8') : new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    throw new HttpError(400, 'invalid_json', 'the body is not UTF-8');
  }
  if (text.charCodeAt(0) === 0xfeff) {
    if (bug('Intro-14')) throw new HttpError(400, 'invalid_json', 'byte order mark');
    text = text.slice(1);
  }
  return text;
}

/** Bug Intro-19: a recursive walk, which a deep body sends past the stack. */
function depth(v: Json): number {
  return Array.isArray(v) ? 1 + Math.max(0, ...v.map(depth)) : v && typeof v === 'object' && !('text' in v) ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0;
}

function parseBody(raw: Buffer, bug: BugCheck): Json {
  const text = decodeText(raw, bug);
  if (bug('Intro-11') && text.trim() === '') return Object.create(null) as Json;
  let body: Json;
  try {
    body = parseJson(text, bug);
  } catch (e) {
    if (bug('Intro-1') || bug('Intro-2')) throw e;
    throw new HttpError(400, 'invalid_json', e instanceof Error ? e.message : 'not JSON');
  }
  if (bug('Intro-11') && (body === null || typeof body !== 'object')) return Object.create(null) as Json;
  if (bug('Intro-19')) depth(body);
  if (bug('Intro-23') && body !== null && typeof body === 'object' && !Array.isArray(body)) {
    for (const k of Object.keys(body)) Object.keys(body).indexOf(k);
  }
  return body;
}

function authenticate(req: IncomingMessage, state: State): Ctx['caller'] {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
  const caller = m ? state.byToken.get(m[1]!) : undefined;
  if (!caller) throw new HttpError(401, 'unauthenticated', 'missing or unknown bearer token');
  return caller;
}

function bigintJson(value: unknown): string {
  const marks: string[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `\u0000big${marks.push(v.toString()) - 1}` : v));
  return text.replace(/"\\u0000big(\d+)"/g, (_m, i: string) => marks[Number(i)]!);
}

function send(res: ServerResponse, status: number, body: unknown, bug: BugCheck): void {
  const text = bigintJson(body);
  const type = status < 300 && bug('2.1-6') ? 'text/plain' : 'application/json';
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function successBody(reply: Reply, bug: BugCheck): Record<string, unknown> {
  const meta: Record<string, unknown> = { request_id: bug('2.1-4') ? 1 : randomUUID() };
  if (bug('2.1-5')) meta['next_cursor'] = 0;
  const out: Record<string, unknown> = {};
  if (!bug('2.1-1')) out['ok'] = !bug('7-1');
  out['data'] = bug('2.1-2') ? null : reply.data;
  if (!bug('2.1-3')) out['meta'] = meta;
  return out;
}

function errorBody(e: HttpError): Record<string, unknown> {
  return { ok: false, error: { code: e.code, message: e.message }, meta: { request_id: randomUUID() } };
}

async function handle(req: IncomingMessage, res: ServerResponse, state: State, bug: BugCheck): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!;
  const { route, params } = match(req.method ?? 'GET', path, bug);
  const caller = authenticate(req, state);
  checkContentType(req.headers['content-type'], bug);
  const rawBody = await readBody(req, bug);
  const body = parseBody(rawBody, bug);
  const ctx: Ctx = { state, caller, bug, headers: req.headers, rawBody, params, body };
  const reply = await route.handler(ctx);
  send(res, reply.status ?? 200, successBody(reply, bug), bug);
}

function onError(e: unknown, res: ServerResponse, bug: BugCheck): void {
  if (bug('Intro-2') && e instanceof Error && e.name === 'JsonSyntaxError') process.exit(70);
  const err = e instanceof HttpError ? e : e instanceof Invalid ? new HttpError(400, 'invalid', e.message) : undefined;
  if (res.headersSent) return void res.destroy();
  if (!err) return send(res, 500, { ok: false, error: { code: 'internal', message: 'internal error' }, meta: { request_id: randomUUID() } }, bug);
  send(res, bug('7-2') && err.status === 400 ? 200 : err.status, errorBody(err), bug);
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const bug = bugCheck(options.bugs ?? []);
  const state = applyConfig(emptyState(), options.config);
  const server: Server = createServer((req, res) => {
    handle(req, res, state, bug).catch((e: unknown) => {
      // Drain what is left of the request, so the answer is read (a refused large body included).
      req.resume();
      onError(e, res, bug);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

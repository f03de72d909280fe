/**
 * The request pipeline up to the handler: route → credentials → member kind → path parameters →
 * content type → body → schema → handler. Every refusal on the way is thrown as an `HttpError`,
 * which answer.ts turns into the error envelope.
 */
import type { IncomingMessage } from 'node:http';
import { matchPath, type Endpoint, type EndpointBody, type EndpointId, type EndpointParams, type MemberKind } from '../spec/index.ts';
import { checkContentType, parseJsonBody, readBody } from './body.ts';
import type { Reply, RequestContext } from './context.ts';
import { HttpError } from './errors.ts';
import type { Caller } from './fixture.ts';
import { applyStreamedOps, dispatch, storeRowsBefore } from './handlers/index.ts';
import type { ReadingSet } from './readings.ts';
import type { Served } from './served.ts';
import { wholeOpsOf } from './stream-prefix.ts';
import { validateParams } from './validate.ts';

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

function authenticate(req: IncomingMessage, e: Endpoint, s: Served): Caller {
  const m = BEARER.exec(req.headers.authorization ?? '');
  // `auth-scheme-500`: the token is read as the header's second word after a scheme assumed to be Bearer, so any other scheme fails unhandled.
  if (s.faults.has('auth-scheme-500') && req.headers.authorization !== undefined && !m) throw new Error(`cannot read the bearer token of "${req.headers.authorization.split(' ')[0]}"`);
  const caller = m ? s.directory.callerFor(m[1]) : undefined;
  // 4.5 "ends its sessions": a revoked browser's token serves no more (`revoke-keeps-sessions` forgets to look).
  const revoked = caller?.kind === 'browser' && s.store.isRevoked(caller.accountId, caller.memberId) && !s.faults.has('revoke-keeps-sessions');
  if (caller && !revoked) return caller;
  // `credentials-required=open` (the `auth-ignored` fault is that reading): served as the primary account.
  if (s.readings.is('credentials-required', 'open')) return s.directory.fallback(e.caller);
  throw new HttpError(401, 'unauthenticated', m ? 'the bearer token is not valid' : 'credentials required: send Authorization: Bearer <token>', {
    'www-authenticate': 'Bearer',
  });
}

/** The endpoint a request names, its path parameters, and who calls it: 404, 405, 401, 403 or 400 `invalid_path` otherwise. */
function admit(req: IncomingMessage, s: Served): { endpoint: Endpoint; params: Record<string, string>; caller: Caller } {
  const path = (req.url ?? '/').split('?', 1)[0];
  const route = matchPath(req.method ?? '', path);
  if (!route) {
    const other = METHODS.find((m) => m !== req.method && matchPath(m, path));
    if (other) throw new HttpError(405, 'method_not_allowed', `use ${other} for this path`, { allow: other });
    throw new HttpError(404, 'not_found', 'no such endpoint');
  }
  const { endpoint, params } = route;
  const caller = authenticate(req, endpoint, s);
  if (!allowedKinds(endpoint, s.readings).includes(caller.kind)) {
    throw new HttpError(403, 'wrong_member_kind', `a ${caller.kind} member cannot call this endpoint (section ${endpoint.section})`);
  }
  const badParams = validateParams(endpoint, params, s.faults);
  if (badParams) throw badParams;
  return { endpoint, params, caller };
}

/** Runs a request through the pipeline to its handler's reply. */
export async function handleRequest(req: IncomingMessage, s: Served): Promise<Reply> {
  const { endpoint, params, caller } = admit(req, s);
  const { faults, readings, validator } = s;
  checkContentType(req, faults, readings);
  const { unnamed, store, directory, fixture } = s;
  const streamed = faults.has('stream-partial-batch') && endpoint.id === 'commitOperations' ? seenBytes(req) : undefined;
  const rawBody = await readBody(req, faults).catch((e: unknown) => {
    // admit() checked the parameters against this endpoint's nodes.
    if (streamed && !req.complete) applyCutBody(Buffer.concat(streamed), { endpoint, caller, params: params as EndpointParams<'commitOperations'>, headers: req.headers, faults, readings, unnamed, store, directory, fixture }, s);
    throw e;
  });
  const body = validator.bind(endpoint, parseJsonBody(rawBody, faults, readings));
  const badBody = validator.check(endpoint, body);
  const context = { endpoint, caller, rawBody, headers: req.headers, faults, readings, unnamed, store, directory, fixture, connection: req.socket };
  if (badBody) {
    // reportUsage's params were validated by the router before the body
    if (faults.has('usage-partial-store') && endpoint.id === 'reportUsage') await storeRowsBefore(body, (b) => !validator.check(endpoint, b), { ...context, params: params as EndpointParams<'reportUsage'> });
    throw badBody;
  }
  // Both were checked against this endpoint's nodes above: they have its types.
  const typed = { params: params, body: body as EndpointBody<EndpointId> };
  return dispatch(endpoint.id, { ...context, ...typed });
}

/** `stream-partial-batch`: every chunk of the body as it arrives, as a streaming parser reads it. */
function seenBytes(req: IncomingMessage): Buffer[] {
  const seen: Buffer[] = [];
  req.on('data', (c: Buffer) => seen.push(c));
  return seen;
}

/** `stream-partial-batch`: the ops read whole from a commit body cut mid-way, applied when they form a valid batch. */
// Stryker disable all: runs only under the stream-partial-batch fault (docs/mutation.md)
function applyCutBody(bytes: Buffer, ctx: Omit<RequestContext<'commitOperations'>, 'body' | 'rawBody'>, s: Served): void {
  const text = wholeOpsOf(bytes.toString('utf8'));
  if (text === undefined) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return;
  }
  const body = s.validator.bind(ctx.endpoint, parsed);
  if (s.validator.check(ctx.endpoint, body)) return;
  // Checked against the commit's body schema just above.
  applyStreamedOps({ ...ctx, rawBody: new Uint8Array(), body: body as EndpointBody<'commitOperations'> });
}
// Stryker restore all

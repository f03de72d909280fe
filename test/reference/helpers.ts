/** Shared by the reference tests: a raw HTTP client, credentials of the fixture, valid bodies. */
import { LIMITS } from '../../src/spec/index.ts';
import { randomUUID, type KeyObject } from 'node:crypto';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { privateKeyFromJwk } from '../../src/crypto/keys.ts';
import { signServiceSignature } from '../../src/crypto/service-signature.ts';
import type { RunningReference } from '../../src/reference/index.ts';

export interface Res {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: the reference's own tests read answers by ad-hoc paths; the conformance side types them
  json: any;
}

export const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export function send(
  base: string,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string | Uint8Array; timeoutMs?: number },
  retried = false,
): Promise<Res> {
  const url = new URL(o.path, base);
  return new Promise<Res>((resolve, reject) => {
    const req = httpRequest(url, { method: o.method ?? 'POST', headers: o.headers ?? {}, agent, timeout: o.timeoutMs ?? 20_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed as idle (its keepAliveTimeout) just as this request went out:
      // the request never reached the server, so sending it once more on a fresh socket is safe (Node's own advice).
      // If the fresh socket is refused, the server itself went down: the reset was the answer, not an idle close.
      if (req.reusedSocket && e.code === 'ECONNRESET' && !retried) send(base, o, true).then(resolve, (again: NodeJS.ErrnoException) => reject(again.code === 'ECONNREFUSED' ? e : again));
      else reject(e);
    });
    req.end(o.body);
  });
}

export type Who = { account?: 'primary' | 'secondary'; kind: 'browser' | 'device' } | 'anonymous';

export function authHeaders(ref: RunningReference, who: Who): Record<string, string> {
  if (who === 'anonymous') return {};
  const acc = ref.fixture[who.account ?? 'primary'];
  return { authorization: `Bearer ${who.kind === 'browser' ? acc.browser.token : acc.device.token}` };
}

const keyCache = new WeakMap<object, KeyObject>();
export function deviceKey(ref: RunningReference, account: 'primary' | 'secondary' = 'primary'): KeyObject {
  const jwk = ref.fixture[account].device.privateJwk!;
  let k = keyCache.get(jwk);
  if (!k) {
    k = privateKeyFromJwk(jwk);
    keyCache.set(jwk, k);
  }
  return k;
}

export function sign(ref: RunningReference, body: unknown, account: 'primary' | 'secondary' = 'primary'): string {
  return signServiceSignature({ body, kid: ref.fixture[account].device.deviceId, privateKey: deviceKey(ref, account) });
}

export const JSON_HEADERS = { 'content-type': 'application/json' };

/** Calls an endpoint with a JSON body as the given member (default: the endpoint's usual caller). */
export function call(ref: RunningReference, method: string, path: string, body: unknown, who: Who, extra: Record<string, string> = {}): Promise<Res> {
  return send(ref.url, { method, path, headers: { ...JSON_HEADERS, ...authHeaders(ref, who), ...extra }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

export const DEVICE: Who = { kind: 'device' };
export const BROWSER: Who = { kind: 'browser' };

export interface OpInput {
  type?: string;
  artifact_id?: string;
  revision_id?: string;
  base_revision_id?: string | null;
  [k: string]: unknown;
}

export function op(ref: RunningReference, o: OpInput = {}): Record<string, unknown> {
  return {
    type: 'create',
    artifact_id: randomUUID(),
    revision_id: randomUUID(),
    base_revision_id: null,
    key_gen: 1,
    envelope: 'ZW52ZWxvcGU',
    signature: 'c2lnbmF0dXJl',
    signer_member_id: ref.fixture.primary.device.memberId,
    blob_ids: [],
    ...o,
  };
}

export function commitBody(ops: Record<string, unknown>[], operationId: string = randomUUID()): Record<string, unknown> {
  return { operation_id: operationId, epoch: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b', ops };
}

export const commitPath = (pouchId: string): string => `/v1/pouches/${pouchId}/operations`;

/** A signed device commit (or a browser commit, unsigned). */
export function commit(
  ref: RunningReference,
  pouchId: string,
  body: unknown,
  o: { account?: 'primary' | 'secondary'; kind?: 'browser' | 'device'; signature?: string | null } = {},
): Promise<Res> {
  const account = o.account ?? 'primary';
  const kind = o.kind ?? 'device';
  const headers: Record<string, string> = {};
  const sig = o.signature === undefined ? (kind === 'device' ? sign(ref, body, account) : undefined) : o.signature;
  if (sig !== null && sig !== undefined) headers['service-signature'] = sig;
  return call(ref, 'POST', commitPath(pouchId), body, { account, kind }, headers);
}

export const statement = { statement: 'c3RhdGVtZW50', signature: 'c2lnbmF0dXJl' };

export function keyEnvelope(ref: RunningReference): Record<string, unknown> {
  return {
    pouch_id: randomUUID(),
    member_id: ref.fixture.primary.device.memberId,
    key_gen: 1,
    hpke_enc: 'aHBrZQ',
    ciphertext: 'Y2lwaGVy',
    created_by_member: ref.fixture.primary.browser.memberId,
    signature: 'c2ln',
  };
}

export function usageRow(o: Record<string, unknown> = {}): Record<string, unknown> {
  return { input: 10, output: 5, cache_read: 0, cache_write: 0, day: '2026-03-01', assistant: 'claude-code', model: 'model-a', ...o };
}

export const sourceId = (): string => randomUUID().replaceAll('-', '');

export const usagePath = (id: string): string => `/v1/usage/sources/${id}`;

export function reportUsage(ref: RunningReference, id: string, rows: unknown[], who: Who = DEVICE): Promise<Res> {
  return call(ref, 'PUT', usagePath(id), { rows }, who);
}

/** Each entry is valid on its own: a request per endpoint that the correct reference accepts. */
export function validRequests(ref: RunningReference): { name: string; method: string; path: string; body: unknown; who: Who; signed?: boolean }[] {
  const c = commitBody([op(ref)]);
  return [
    { name: 'approveDevice', method: 'POST', path: `/v1/cli-auth/requests/${randomUUID()}/approve`, body: { statement, welcome: 'd2VsY29tZQ', key_envelopes: [keyEnvelope(ref)] }, who: BROWSER },
    { name: 'commitOperations', method: 'POST', path: commitPath(randomUUID()), body: c, who: DEVICE, signed: true },
    { name: 'reportUsage', method: 'PUT', path: usagePath(sourceId()), body: { rows: [usageRow()] }, who: DEVICE },
    { name: 'registerPasskey', method: 'POST', path: '/v1/account/passkeys', body: { response: { clientDataJSON: 'e30' }, statement }, who: BROWSER },
    { name: 'revokeBrowser', method: 'POST', path: `/v1/browsers/${randomUUID()}/revoke`, body: { reason: 'lost laptop' }, who: BROWSER },
    { name: 'changeUnlock', method: 'PUT', path: '/v1/account/unlock', body: { statements: [statement, statement] }, who: BROWSER },
  ];
}

/** Asserts the error envelope of section 7 as the reference writes it. */
export function isErrorEnvelope(r: Res): boolean {
  const j = r.json as { ok?: unknown; data?: unknown; meta?: { request_id?: unknown }; error?: { code?: unknown; message?: unknown } } | undefined;
  return (
    j !== undefined &&
    j.ok === false &&
    typeof j.data === 'object' &&
    typeof j.meta?.request_id === 'string' &&
    typeof j.error?.code === 'string' &&
    typeof j.error?.message === 'string'
  );
}

export const CONCURRENT = 64;

/** Creates an artifact, then sends CONCURRENT signed updates on its head at once. Returns the statuses and the winners' results. */
export async function raceOnOneBase(ref: RunningReference, type: 'update' | 'rename' | 'delete' = 'update'): Promise<{ statuses: number[]; seqs: number[] }> {
  const pouch = randomUUID();
  const a = op(ref);
  const created = await commit(ref, pouch, commitBody([a]));
  if (created.status !== 200) throw new Error(`setup commit failed: ${created.text}`);
  const bodies = Array.from({ length: CONCURRENT }, () =>
    commitBody([op(ref, { type, artifact_id: a['artifact_id'] as string, base_revision_id: a['revision_id'] as string })]),
  );
  const rs = await Promise.all(bodies.map((b) => commit(ref, pouch, b)));
  return { statuses: rs.map((r) => r.status), seqs: rs.filter((r) => r.status === 200).map((r) => r.json.data.results[0].seq as number) };
}


/** The status of a call, for demos that compare codes. */
export const status = (r: Promise<Res>): Promise<number> => r.then((x) => x.status);
/** A limit's maximum from the spec model. */
export const max = (l: keyof typeof LIMITS): number => LIMITS[l].max!;

/** The correct reference, endpoint by endpoint: what the spec's words (and the registry's defaults) require. */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64u, fromB64u } from '../../src/crypto/base64url.ts';
import { P256_N } from '../../src/crypto/service-signature.ts';
import { MAX_BODY_BYTES, startReference, type RunningReference } from '../../src/reference/index.ts';
import { CPU_TIMING_HEADER, ENDPOINT_BY_ID, LIMITS, issuesOf, schemasOf, type EndpointId } from '../../src/spec/index.ts';
import {
  BROWSER,
  DEVICE,
  JSON_HEADERS,
  authHeaders,
  call,
  commit,
  commitBody,
  commitPath,
  isErrorEnvelope,
  keyEnvelope,
  op,
  reportUsage,
  send,
  sign,
  sourceId,
  statement,
  usagePath,
  usageRow,
  validRequests,
  type Res,
} from './helpers.ts';

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference();
});
afterAll(async () => {
  await ref.close();
});

const b64chars = (n: number): string => 'A'.repeat(n);

describe('every endpoint', () => {
  it('accepts a valid request and answers the success envelope of 2.1 with the data of section 4', async () => {
    for (const v of validRequests(ref)) {
      const extra: Record<string, string> = v.signed ? { 'service-signature': sign(ref, v.body) } : {};
      const r = await call(ref, v.method, v.path, v.body, v.who, extra);
      expect(r.status, `${v.name}: ${r.text}`).toBe(200);
      expect(issuesOf(schemasOf(ENDPOINT_BY_ID[v.name as EndpointId]).envelope, r.json), v.name).toEqual([]);
      expect(r.json.ok).toBe(true);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('states its CPU time on a request in Server-Timing when the request asks for it, and only then', async () => {
    const v = validRequests(ref).find((r) => !r.signed);
    if (!v) throw new Error('validRequests lists an unsigned request');
    const asked = await call(ref, v.method, v.path, v.body, v.who, { [CPU_TIMING_HEADER]: 'cpu' });
    const plain = await call(ref, v.method, v.path, v.body, v.who);
    expect(asked.headers['server-timing']).toMatch(/^cpu;dur=\d+\.\d{3}$/);
    expect(plain.headers['server-timing']).toBeUndefined();
  });

  it('rejects missing and wrong credentials with 401 and the error envelope', async () => {
    for (const v of validRequests(ref)) {
      const none = await call(ref, v.method, v.path, v.body, 'anonymous');
      expect(none.status, v.name).toBe(401);
      expect(isErrorEnvelope(none)).toBe(true);
      const wrong = await call(ref, v.method, v.path, v.body, 'anonymous', { authorization: 'Bearer not-a-real-token-000000' });
      expect(wrong.status, v.name).toBe(401);
    }
  });

  it('rejects the wrong member kind with 403', async () => {
    for (const v of validRequests(ref)) {
      if (v.name === 'commitOperations') continue; // browsers may commit, unsigned
      const other = v.who === DEVICE ? BROWSER : DEVICE;
      const r = await call(ref, v.method, v.path, v.body, other);
      expect(r.status, v.name).toBe(403);
      expect(isErrorEnvelope(r)).toBe(true);
    }
  });

  it('ignores unknown fields', async () => {
    for (const v of validRequests(ref)) {
      const body = { ...(v.body as object), x_unknown: { nested: [1, 2] } };
      const extra: Record<string, string> = v.signed ? { 'service-signature': sign(ref, body) } : {};
      const r = await call(ref, v.method, v.path, body, v.who, extra);
      expect(r.status, v.name).toBe(200);
    }
  });

  it('answers 404 for an unknown path and 405 for a wrong method, with the error envelope', async () => {
    const a = await send(ref.url, { path: '/v1/nothing', headers: authHeaders(ref, BROWSER), body: '{}' });
    expect(a.status).toBe(404);
    expect(isErrorEnvelope(a)).toBe(true);
    const b = await send(ref.url, { method: 'GET', path: '/v1/account/unlock', headers: authHeaders(ref, BROWSER) });
    expect(b.status).toBe(405);
    expect(b.headers['allow']).toBe('PUT');
  });
});

describe('malformed requests', () => {
  const revokePath = (): string => `/v1/browsers/${randomUUID()}/revoke`;
  const post = (body: string | Uint8Array, headers: Record<string, string> = JSON_HEADERS): Promise<Res> =>
    send(ref.url, { path: revokePath(), headers: { ...headers, ...authHeaders(ref, BROWSER) }, body });

  it.each([
    ['invalid JSON', '{"reason": '],
    ['empty body', ''],
    ['a JSON array', '[]'],
    ['JSON null', 'null'],
    ['duplicate keys', '{"reason":"a","reason":"b"}'],
    ['duplicate keys spelled differently', '{"reason":"a","\\u0072eason":"b"}'],
    ['nesting deeper than 64', `{"x":${'['.repeat(65)}${']'.repeat(65)}}`],
    ['nesting 200000 deep', `{"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`],
    ['a byte-order mark', '\ufeff{}'],
  ])('rejects %s with 400', async (_name, body) => {
    const r = await post(body);
    expect(r.status).toBe(400);
    expect(isErrorEnvelope(r)).toBe(true);
    expect(r.json.error.message.length).toBeGreaterThan(5);
  });

  it('rejects invalid UTF-8 with 400', async () => {
    const r = await post(new Uint8Array([0x7b, 0x22, 0x72, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]));
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('invalid_utf8');
  });

  it('rejects a missing or non-JSON content type with 415', async () => {
    expect((await post('{}', {})).status).toBe(415);
    expect((await post('{}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post('{}', { 'content-type': 'application/jsonx' })).status).toBe(415);
    expect((await post('{}', { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
  });

  it('rejects a declared body over the cap with 413 without reading it', async () => {
    const r = await send(ref.url, { path: revokePath(), headers: { ...JSON_HEADERS, ...authHeaders(ref, BROWSER), 'content-length': String(MAX_BODY_BYTES + 1) }, body: '' }).catch(
      (e: Error) => e,
    );
    expect(r instanceof Error ? r.message : r.status).toBe(413);
  });

  it('rejects a streamed (chunked) body over the cap with 413 and keeps serving', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(new URL(revokePath(), ref.url), { method: 'POST', headers: { ...JSON_HEADERS, ...authHeaders(ref, BROWSER) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', (e) => reject(e));
      const chunk = Buffer.alloc(1 << 20, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (sent <= MAX_BODY_BYTES + chunk.length) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(status).toBe(413);
    const after = await call(ref, 'PUT', '/v1/account/unlock', { statements: [] }, BROWSER);
    expect(after.status).toBe(200);
  });

  it('rejects bad path ids with 400', async () => {
    const body = commitBody([op(ref)]);
    for (const bad of ['not-a-uuid', '6f1c2a34-5b6d-0e7f-8a9b-0c1d2e3f4a5b', '6f1c2a34-5b6d-4e7f-7a9b-0c1d2e3f4a5b', '%ZZ']) {
      const r = await commit(ref, bad, body);
      expect(r.status, bad).toBe(400);
      expect(r.json.error.code).toBe('invalid_path');
    }
    for (const bad of ['ABCDEF0123456789abcdef0123456789', 'abc', 'g'.repeat(32)]) {
      expect((await reportUsage(ref, bad, [usageRow()])).status, bad).toBe(400);
    }
  });
});

describe('4.1 approve a cli-auth request', () => {
  const path = (id: string): string => `/v1/cli-auth/requests/${id}/approve`;
  const body = () => ({ statement, welcome: 'd2VsY29tZQ', key_envelopes: [keyEnvelope(ref)] });

  it('creates a device and answers the same device_id when the same request is approved again', async () => {
    const id = randomUUID();
    const a = await call(ref, 'POST', path(id), body(), BROWSER);
    const b = await call(ref, 'POST', path(id), body(), BROWSER);
    expect(a.status).toBe(200);
    expect(a.json.data.device_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.json.data.device_id).toBe(a.json.data.device_id);
    const c = await call(ref, 'POST', path(randomUUID()), body(), BROWSER);
    expect(c.json.data.device_id).not.toBe(a.json.data.device_id);
  });

  it('refuses a request another account approved', async () => {
    const id = randomUUID();
    expect((await call(ref, 'POST', path(id), body(), BROWSER)).status).toBe(200);
    expect((await call(ref, 'POST', path(id), body(), { account: 'secondary', kind: 'browser' })).status).toBe(409);
  });

  it('rejects missing and mistyped fields', async () => {
    const { welcome: _w, ...noWelcome } = body();
    expect((await call(ref, 'POST', path(randomUUID()), noWelcome, BROWSER)).status).toBe(400);
    expect((await call(ref, 'POST', path(randomUUID()), { ...body(), key_envelopes: {} }, BROWSER)).status).toBe(400);
    expect((await call(ref, 'POST', path(randomUUID()), { ...body(), key_envelopes: [{ ...keyEnvelope(ref), member_id: 'x' }] }, BROWSER)).status).toBe(400);
  });

  it('does not apply the roster-only limits outside the roster (2.3, 2.4)', async () => {
    const long = { statement: '+/'.repeat(LIMITS.rosterStatementLength.max!), signature: '=' };
    const env = { ...keyEnvelope(ref), key_gen: 0, hpke_enc: '/'.repeat(LIMITS.rosterHpkeEncLength.max! + 1) };
    const r = await call(ref, 'POST', path(randomUUID()), { statement: long, welcome: 'w', key_envelopes: [env] }, BROWSER);
    expect(r.status, r.text).toBe(200);
  });
});

describe('4.2 commit operations', () => {
  const results = (r: Res): { seq: number; high_water: number; revision_id: string }[] => r.json.data.results;

  it('applies a create and numbers it with seq 1 and high_water 1', async () => {
    const o = op(ref);
    const r = await commit(ref, randomUUID(), commitBody([o]));
    expect(r.status, r.text).toBe(200);
    expect(results(r)).toEqual([{ status: 'applied', artifact_id: o['artifact_id'], revision_id: o['revision_id'], seq: 1, high_water: 1 }]);
  });

  it('chains ops of one batch; seq rises per op, high_water is the highest seq after the batch', async () => {
    const pouch = randomUUID();
    const a = op(ref);
    const b = op(ref, { type: 'update', artifact_id: a['artifact_id'] as string, base_revision_id: a['revision_id'] as string });
    const c = op(ref, { type: 'rename', artifact_id: a['artifact_id'] as string, base_revision_id: b['revision_id'] as string });
    const r = await commit(ref, pouch, commitBody([a, b, c]));
    expect(r.status, r.text).toBe(200);
    expect(results(r).map((x) => [x.seq, x.high_water])).toEqual([[1, 3], [2, 3], [3, 3]]);
    const d = op(ref, { type: 'delete', artifact_id: a['artifact_id'] as string, base_revision_id: c['revision_id'] as string });
    expect(results(await commit(ref, pouch, commitBody([d])))[0]).toMatchObject({ seq: 4, high_water: 4 });
  });

  it('rejects a stale base, a create of an existing artifact and a reused revision id with 409, applying nothing', async () => {
    const pouch = randomUUID();
    const a = op(ref);
    await commit(ref, pouch, commitBody([a]));
    const b = op(ref, { type: 'update', artifact_id: a['artifact_id'] as string, base_revision_id: a['revision_id'] as string });
    expect((await commit(ref, pouch, commitBody([b]))).status).toBe(200);
    const stale = op(ref, { type: 'update', artifact_id: a['artifact_id'] as string, base_revision_id: a['revision_id'] as string });
    const staleR = await commit(ref, pouch, commitBody([stale]));
    expect(staleR.status).toBe(409);
    expect(isErrorEnvelope(staleR)).toBe(true);
    expect((await commit(ref, pouch, commitBody([op(ref, { artifact_id: a['artifact_id'] as string })]))).status).toBe(409);
    expect((await commit(ref, pouch, commitBody([op(ref, { revision_id: a['revision_id'] as string })]))).status).toBe(409);
    expect((await commit(ref, pouch, commitBody([op(ref, { type: 'update', base_revision_id: randomUUID() })]))).status).toBe(409);
    expect((await commit(ref, pouch, commitBody([op(ref, { base_revision_id: randomUUID() })]))).status).toBe(409);
    // Nothing of the rejected requests was applied: the next op is seq 3.
    const next = op(ref, { type: 'update', artifact_id: a['artifact_id'] as string, base_revision_id: b['revision_id'] as string });
    expect(results(await commit(ref, pouch, commitBody([next])))[0]!.seq).toBe(3);
  });

  it('is atomic: a batch with one conflicting op applies nothing', async () => {
    const pouch = randomUUID();
    const a = op(ref);
    await commit(ref, pouch, commitBody([a]));
    const fresh = op(ref);
    const bad = op(ref, { artifact_id: a['artifact_id'] as string });
    expect((await commit(ref, pouch, commitBody([fresh, bad]))).status).toBe(409);
    const again = await commit(ref, pouch, commitBody([fresh]));
    expect(again.status).toBe(200);
    expect(results(again)[0]!.seq).toBe(2);
  });

  it('answers a repeated operation_id with the first result without applying again', async () => {
    const pouch = randomUUID();
    const body = commitBody([op(ref), op(ref)]);
    const first = await commit(ref, pouch, body);
    const second = await commit(ref, pouch, body);
    expect(second.status).toBe(200);
    expect(second.json.data).toEqual(first.json.data);
    expect(second.json.meta.request_id).not.toBe(first.json.meta.request_id);
    expect(results(await commit(ref, pouch, commitBody([op(ref)])))[0]!.seq).toBe(3);
    // The same operation_id naming other ops is refused.
    const other = commitBody([op(ref)], body['operation_id'] as string);
    expect((await commit(ref, pouch, other)).status).toBe(409);
  });

  it('requires a valid Service-Signature of the calling device (section 5)', async () => {
    const pouch = randomUUID();
    const body = commitBody([op(ref)]);
    expect((await commit(ref, pouch, body, { signature: null })).status).toBe(401);
    expect((await commit(ref, pouch, body, { signature: 'abc' })).status).toBe(401);
    expect((await commit(ref, pouch, body, { signature: sign(ref, commitBody([op(ref)])) })).status).toBe(401);
    // Signed by the other account's device with its own kid: kid is not the caller.
    expect((await commit(ref, pouch, body, { signature: sign(ref, body, 'secondary') })).status).toBe(401);
    const ok = await commit(ref, pouch, body);
    expect(ok.status).toBe(200);
  });

  it('accepts a high-S signature and a non-canonical wire form of the signed body', async () => {
    const pouch = randomUUID();
    const body = commitBody([op(ref)]);
    const [h, , s] = sign(ref, body).split('.') as [string, string, string];
    const sig = fromB64u(s);
    const sValue = BigInt('0x' + Buffer.from(sig.subarray(32)).toString('hex'));
    const flipped = (P256_N - sValue).toString(16).padStart(64, '0');
    const high = `${h}..${b64u(Buffer.concat([Buffer.from(sig.subarray(0, 32)), Buffer.from(flipped, 'hex')]))}`;
    const r = await call(ref, 'POST', commitPath(pouch), body, DEVICE, { 'service-signature': high });
    expect(r.status, r.text).toBe(200);
    const body2 = commitBody([op(ref)]);
    const wire = JSON.stringify({ ops: body2['ops'], epoch: body2['epoch'], operation_id: body2['operation_id'] }, null, 2);
    const r2 = await call(ref, 'POST', commitPath(pouch), wire, DEVICE, { 'service-signature': sign(ref, body2) });
    expect(r2.status, r2.text).toBe(200);
  });

  it('lets a browser commit without a signature, and keeps other accounts out', async () => {
    const pouch = randomUUID();
    expect((await commit(ref, pouch, commitBody([op(ref)]), { kind: 'browser' })).status).toBe(200);
    const intruder = await commit(ref, pouch, commitBody([op(ref)]), { account: 'secondary' });
    expect(intruder.status).toBe(403);
    expect(results(await commit(ref, pouch, commitBody([op(ref)])))[0]!.seq).toBe(2);
  });

  it('accepts every limit of 2.5 and section 8 at its maximum and rejects one beyond', async () => {
    const pouch = randomUUID();
    const many = (n: number) => Array.from({ length: n }, () => op(ref));
    expect((await commit(ref, pouch, commitBody(many(LIMITS.opsPerCommit.max!)))).status).toBe(200);
    expect((await commit(ref, pouch, commitBody(many(LIMITS.opsPerCommit.max! + 1)))).status).toBe(400);
    expect((await commit(ref, pouch, commitBody([]))).status).toBe(400);
    const blobs = (n: number) => Array.from({ length: n }, (_, i) => `blob-${i}`);
    expect((await commit(ref, pouch, commitBody([op(ref, { blob_ids: blobs(LIMITS.blobIdsPerOp.max!) })]))).status).toBe(200);
    expect((await commit(ref, pouch, commitBody([op(ref, { blob_ids: blobs(LIMITS.blobIdsPerOp.max! + 1) })]))).status).toBe(400);
    expect((await commit(ref, pouch, commitBody([op(ref, { envelope: b64chars(LIMITS.envelopeLength.max!) })]))).status).toBe(200);
    expect((await commit(ref, pouch, commitBody([op(ref, { envelope: b64chars(LIMITS.envelopeLength.max! + 1) })]))).status).toBe(400);
    expect((await commit(ref, pouch, commitBody([op(ref, { envelope: '' })]))).status).toBe(200);
    expect((await commit(ref, pouch, commitBody([op(ref, { envelope: 'a+b' })]))).status).toBe(400);
    expect((await commit(ref, pouch, commitBody([op(ref, { signature: b64chars(LIMITS.opSignatureLength.max! + 1) })]))).status).toBe(400);
    expect((await commit(ref, pouch, commitBody([op(ref, { key_gen: LIMITS.keyGen.max })]))).status).toBe(200);
    expect((await commit(ref, pouch, commitBody([op(ref, { key_gen: 0 })]))).status).toBe(400);
    expect((await commit(ref, pouch, commitBody([op(ref, { key_gen: 1.5 })]))).status).toBe(400);
    expect((await commit(ref, pouch, commitBody([op(ref, { name_index: b64chars(LIMITS.nameIndexLength.max!) })]))).status).toBe(200);
    expect((await commit(ref, pouch, commitBody([op(ref, { name_index: b64chars(LIMITS.nameIndexLength.max! - 1) })]))).status).toBe(400);
    expect((await commit(ref, pouch, commitBody([op(ref, { type: 'move' })]))).status).toBe(400);
    expect((await commit(ref, pouch, commitBody([op(ref, { artifact_id: '00000000-0000-0000-0000-000000000000' })]))).status).toBe(200);
    expect((await commit(ref, pouch, commitBody([op(ref, { artifact_id: 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF' })]))).status).toBe(200);
    expect((await commit(ref, pouch, commitBody([op(ref, { artifact_id: randomUUID().toUpperCase() })]))).status).toBe(200);
    expect((await commit(ref, pouch, commitBody([op(ref, { artifact_id: '6f1c2a34-5b6d-9e7f-8a9b-0c1d2e3f4a5b' })]))).status).toBe(400);
    const { base_revision_id: _b, ...noBase } = op(ref);
    expect((await commit(ref, pouch, commitBody([noBase]))).status).toBe(400);
  });
});

describe('4.3 report usage', () => {
  const stored = async (id: string, rows: unknown[]): Promise<number> => {
    const r = await reportUsage(ref, id, rows);
    expect(r.status, r.text).toBe(200);
    return r.json.data.stored as number;
  };

  it('keeps the larger total per row, never adds up, and a re-send changes nothing', async () => {
    const id = sourceId();
    expect(await stored(id, [usageRow({ input: 10 })])).toBe(1);
    expect(await stored(id, [usageRow({ input: 10 })])).toBe(0);
    expect(await stored(id, [usageRow({ input: 3 })])).toBe(0);
    expect(await stored(id, [usageRow({ input: 12 })])).toBe(1); // a sum (10 + 3 + …) would already be above 12
    // stored total is now 12 + 5 = 17: an equal total does not replace it, a larger one does
    expect(await stored(id, [usageRow({ input: 0, output: 0, cache_read: 17, cache_write: 0 })])).toBe(0);
    expect(await stored(id, [usageRow({ input: 0, output: 0, cache_read: 18, cache_write: 0 })])).toBe(1);
  });

  it('keys rows by (day, assistant, model) and per source', async () => {
    const id = sourceId();
    expect(await stored(id, [usageRow(), usageRow({ model: 'model-b' }), usageRow({ day: '2026-03-02' }), usageRow({ assistant: 'other' })])).toBe(4);
    expect(await stored(sourceId(), [usageRow()])).toBe(1);
    // the same key twice in one request: counted once, the larger total kept
    const id2 = sourceId();
    expect(await stored(id2, [usageRow({ input: 1 }), usageRow({ input: 50 })])).toBe(1);
    expect(await stored(id2, [usageRow({ input: 49 })])).toBe(0);
  });

  it('compares exact totals even beyond 2^53', async () => {
    const id = sourceId();
    const max = LIMITS.usageCounter.max!;
    expect(await stored(id, [usageRow({ input: max, output: max, cache_read: max, cache_write: max - 1 })])).toBe(1);
    expect(await stored(id, [usageRow({ input: max, output: max, cache_read: max, cache_write: max })])).toBe(1);
  });

  it('validates rows by 2.7 and the limits of section 8', async () => {
    const id = sourceId();
    const rows = (n: number) => Array.from({ length: n }, (_, i) => usageRow({ model: `m${i}` }));
    expect((await reportUsage(ref, id, rows(LIMITS.usageRowsPerRequest.max!))).status).toBe(200);
    expect((await reportUsage(ref, id, rows(LIMITS.usageRowsPerRequest.max! + 1))).status).toBe(400);
    for (const bad of [
      { day: '2026-02-30' },
      { day: '1999-01-01' },
      { day: '2026-3-01' },
      { assistant: 'Claude' },
      { assistant: '' },
      { assistant: 'a'.repeat(LIMITS.assistantLength.max! + 1) },
      { model: '' },
      { model: 'm'.repeat(LIMITS.modelLength.max! + 1) },
      { input: LIMITS.usageCounter.max! + 1 },
      { output: 1.5 },
      { cache_read: '1' },
      { cache_write: null },
    ]) {
      expect((await reportUsage(ref, id, [usageRow(bad)])).status, JSON.stringify(bad)).toBe(400);
    }
    expect((await reportUsage(ref, id, [usageRow({ model: '😀'.repeat(LIMITS.modelLength.max!) })])).status).toBe(200);
    expect((await reportUsage(ref, id, [usageRow({ input: -5 })])).status).toBe(200); // usage-counters-negative: accepted
    expect((await reportUsage(ref, id, [usageRow({ day: '2028-02-29' })])).status).toBe(200);
    const noRows = await call(ref, 'PUT', usagePath(id), {}, DEVICE);
    expect(noRows.status).toBe(400);
  });
});

describe('4.4 register a passkey', () => {
  it('answers an object with the new passkey id', async () => {
    const r = await call(ref, 'POST', '/v1/account/passkeys', { response: { id: 'x', type: 'public-key' }, label: 'YubiKey', statement, key_envelopes: [keyEnvelope(ref)] }, BROWSER);
    expect(r.status).toBe(200);
    expect(typeof r.json.data.passkey_id).toBe('string');
  });
  it('rejects a response that is not an object and a missing statement', async () => {
    expect((await call(ref, 'POST', '/v1/account/passkeys', { response: [], statement }, BROWSER)).status).toBe(400);
    expect((await call(ref, 'POST', '/v1/account/passkeys', { response: 'x', statement }, BROWSER)).status).toBe(400);
    expect((await call(ref, 'POST', '/v1/account/passkeys', { response: {} }, BROWSER)).status).toBe(400);
  });
});

describe('4.5 revoke a browser', () => {
  const path = (id: string = randomUUID()): string => `/v1/browsers/${id}/revoke`;
  const roster = (statements: number, envelopes = 0) => ({
    statements: Array.from({ length: statements }, () => statement),
    key_envelopes: Array.from({ length: envelopes }, () => keyEnvelope(ref)),
  });

  it('revokes any browser id; rotation is pending unless the roster brings key envelopes', async () => {
    const a = await call(ref, 'POST', path(), {}, BROWSER);
    expect(a.json.data).toEqual({ revoked: true, rotation_pending: true });
    const b = await call(ref, 'POST', path(), { roster: roster(1, 1) }, BROWSER);
    expect(b.json.data).toEqual({ revoked: true, rotation_pending: false });
  });

  it('applies the roster limits of 2.3, 2.4, 2.8 and the reason limit', async () => {
    const ok = (body: unknown) => call(ref, 'POST', path(), body, BROWSER).then((r) => r.status);
    expect(await ok({ reason: 'r'.repeat(LIMITS.reasonLength.max!) })).toBe(200);
    expect(await ok({ reason: 'r'.repeat(LIMITS.reasonLength.max! + 1) })).toBe(400);
    expect(await ok({ roster: roster(LIMITS.rosterStatements.max!) })).toBe(200);
    expect(await ok({ roster: roster(LIMITS.rosterStatements.max! + 1) })).toBe(400);
    expect(await ok({ roster: roster(0) })).toBe(400);
    expect(await ok({ roster: roster(1, LIMITS.rosterKeyEnvelopes.max!) })).toBe(200);
    expect(await ok({ roster: roster(1, LIMITS.rosterKeyEnvelopes.max! + 1) })).toBe(400);
    expect(await ok({ roster: { statements: [{ statement: b64chars(LIMITS.rosterStatementLength.max!), signature: 'x' }] } })).toBe(200);
    expect(await ok({ roster: { statements: [{ statement: b64chars(LIMITS.rosterStatementLength.max! + 1), signature: 'x' }] } })).toBe(400);
    expect(await ok({ roster: { statements: [{ statement: 'a+b', signature: 'x' }] } })).toBe(400);
    expect(await ok({ roster: { statements: [statement], key_envelopes: [{ ...keyEnvelope(ref), key_gen: 0 }] } })).toBe(400);
    expect(await ok({ roster: { statements: [statement], key_envelopes: [{ ...keyEnvelope(ref), ciphertext: b64chars(LIMITS.rosterCiphertextLength.max! + 1) }] } })).toBe(400);
  });

  it('refuses another account\'s member (403) and the caller itself (409)', async () => {
    expect((await call(ref, 'POST', path(ref.fixture.secondary.browser.memberId), {}, BROWSER)).status).toBe(403);
    expect((await call(ref, 'POST', path(ref.fixture.primary.browser.memberId), {}, BROWSER)).status).toBe(409);
    expect((await call(ref, 'PUT', '/v1/account/unlock', { statements: [] }, BROWSER)).status).toBe(200);
  });
});

describe('4.6 change the master password', () => {
  it('answers a head_seq that rises with every change, per account', async () => {
    const r1 = await call(ref, 'PUT', '/v1/account/unlock', { statements: [statement, statement] }, { account: 'secondary', kind: 'browser' });
    const r2 = await call(ref, 'PUT', '/v1/account/unlock', { statements: [statement, statement], key_envelopes: [keyEnvelope(ref)] }, { account: 'secondary', kind: 'browser' });
    expect(r1.json.data.head_seq).toBe(1);
    expect(r2.json.data.head_seq).toBe(2);
  });
  it('rejects a missing statements array', async () => {
    expect((await call(ref, 'PUT', '/v1/account/unlock', { key_envelopes: [] }, BROWSER)).status).toBe(400);
    expect((await call(ref, 'PUT', '/v1/account/unlock', { statements: [{ statement: 1, signature: 'x' }] }, BROWSER)).status).toBe(400);
  });
});

/**
 * One test per fault of the catalogue: the same requests against the correct reference and against
 * a reference with only that fault switched on give different observable HTTP behaviour.
 */
import { createPublicKey, randomUUID, type JsonWebKey } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64u, fromB64u } from '../../src/crypto/base64url.ts';
import { es256Sign, P256_N, payloadOf, protectedHeaderSegment, signingDigest, signingInput } from '../../src/crypto/service-signature.ts';
import { FAULTS, MAX_BODY_BYTES, STALL_MS, STALL_PERIOD_MS, STORE_POOL_SIZE, startReference, type FaultName, type RunningReference } from '../../src/reference/index.ts';
import { LIMITS, MAX_SAFE } from '../../src/spec/index.ts';
import { SIGNATURE_ATTACK_BY_ID, type AttackContext } from '../../src/crypto/attacks.ts';
import {
  BROWSER,
  DEVICE,
  JSON_HEADERS,
  authHeaders,
  call,
  commit,
  commitBody,
  commitPath,
  deviceKey,
  keyEnvelope,
  op,
  raceOnOneBase,
  reportUsage,
  send,
  sign,
  sourceId,
  statement,
  usageRow,
  status,
  usagePath,
  max,
  type Res,
} from './helpers.ts';

interface Demo {
  /** Runs requests against a fresh reference and returns what was observed. */
  observe(ref: RunningReference): Promise<unknown>;
  correct: unknown;
  /** The observation with the fault on; a function for observations that are not one exact value. */
  faulty: unknown | ((observed: unknown) => boolean);
}

const A = (n: number): string => 'A'.repeat(n);
const many = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** A request written by hand whose body is held back until `release`. */
interface HeldRequest {
  /** Settles once the server has taken the request in (see `heldRequest`). */
  readonly taken: Promise<void>;
  /** The final status (0 if the connection closed without one). */
  readonly answered: Promise<number>;
  release(body: string): void;
  destroy(): void;
}

/**
 * Sends `line` and `headers` with `Expect: 100-continue`: Node's server writes 100 Continue as it hands
 * the request to its handler, in the same turn (the reference sets no checkContinue listener), so
 * `taken` is a state of the server's, not a guess at how long it takes to get there.
 */
function heldRequest(url: string, line: string, headers: Readonly<Record<string, string>>): HeldRequest {
  const { port, hostname } = new URL(url);
  const head = `${line} HTTP/1.1\r\n${Object.entries({ ...headers, expect: '100-continue' }).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  let seen = '';
  let onTaken: () => void = () => undefined;
  let onAnswer: (status: number) => void = () => undefined;
  let onGone: (e: Error) => void = () => undefined;
  const taken = new Promise<void>((resolve, reject) => {
    onTaken = resolve;
    onGone = reject;
  });
  taken.catch(() => undefined);
  const answered = new Promise<number>((resolve) => {
    onAnswer = resolve;
  });
  const s: Socket = connect(Number(port), hostname, () => s.write(head));
  s.on('data', (chunk: Buffer) => {
    seen += chunk.toString('latin1');
    const statuses = [...seen.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
    if (statuses.includes(100)) onTaken();
    const final = statuses.find((c) => c >= 200);
    if (final !== undefined) onAnswer(final);
  });
  s.on('error', () => undefined);
  s.on('close', () => {
    onGone(new Error(`${line}: the connection closed before the server took the request in`));
    onAnswer(0);
  });
  return { taken, answered, release: (body) => void s.write(body), destroy: () => void s.destroy() };
}
const revoke = (ref: RunningReference, body: unknown): Promise<number> => status(call(ref, 'POST', `/v1/browsers/${randomUUID()}/revoke`, body, BROWSER));
const unlock = (ref: RunningReference): Promise<Res> => call(ref, 'PUT', '/v1/account/unlock', { statements: [statement] }, BROWSER);
const commitOps = (ref: RunningReference, ops: Record<string, unknown>[], pouch: string = randomUUID()): Promise<number> => status(commit(ref, pouch, commitBody(ops)));
const stored = async (ref: RunningReference, id: string, row: Record<string, unknown>): Promise<number> => (await reportUsage(ref, id, [usageRow(row)])).json.data.stored;

function withHighS(header: string): string {
  const [h, , s] = header.split('.') as [string, string, string];
  const sig = Buffer.from(fromB64u(s));
  const sv = BigInt('0x' + sig.subarray(32).toString('hex'));
  const high = sv > P256_N / 2n ? sv : P256_N - sv;
  return `${h}..${b64u(Buffer.concat([sig.subarray(0, 32), Buffer.from(high.toString(16).padStart(64, '0'), 'hex')]))}`;
}

/**
 * A cost fault only costs time, so what is observed is how a request's cost grows from an eighth of
 * a dimension's limit to the whole: the fastest CPU time of this process over four interleaved
 * rounds each, after a warm-up. Linear work grows at most 8× (less with a fixed part), quadratic work
 * up to 64×; growth beyond 16×, twice what linear work can do, is called superlinear. The bound is a ratio of the test's own measurements,
 * never milliseconds; the cost probe's fuller judgement (more sizes, a linear model, a confirmation)
 * is what kills these faults in test/properties/defect-killers.test.ts. `send` answers the HTTP
 * status, `expected` the one a request of the dimension must get to be measured.
 */
async function costGrowth(limit: number, expected: number, send: (size: number) => Promise<number>): Promise<string> {
  const eighth = Math.round(limit / 8);
  const cpuOf = async (size: number): Promise<number> => {
    const cpu = process.cpuUsage();
    const code = await send(size);
    const used = process.cpuUsage(cpu);
    if (code !== expected) throw new Error(`a request of size ${size} was answered ${code}, not ${expected}`);
    return used.user + used.system;
  };
  await cpuOf(eighth);
  await cpuOf(limit);
  let small = Infinity;
  let whole = Infinity;
  for (let round = 0; round < 4; round++) {
    small = Math.min(small, await cpuOf(eighth));
    whole = Math.min(whole, await cpuOf(limit));
  }
  return whole > 16 * small ? 'superlinear' : 'linear';
}

/** Create an artifact, then return it with its pouch. */
async function seeded(ref: RunningReference): Promise<{ pouch: string; a: Record<string, unknown> }> {
  const pouch = randomUUID();
  const a = op(ref);
  expect(await commitOps(ref, [a], pouch)).toBe(200);
  return { pouch, a };
}

/** A body sent as raw text (a bad body, or one of unusual but valid spelling) as the browser, to revoke a fresh browser id. */
const revokeRaw = (ref: RunningReference, text: string | Uint8Array, headers: Record<string, string> = {}): Promise<number> =>
  status(send(ref.url, { method: 'POST', path: `/v1/browsers/${randomUUID()}/revoke`, headers: { ...JSON_HEADERS, ...authHeaders(ref, BROWSER), ...headers }, body: text }));

/** A device commit built by one attack of the signature catalogue, over a fresh valid one-op body. */
function attackContext(ref: RunningReference): AttackContext {
  const privateKey = deviceKey(ref);
  return { body: commitBody([op(ref)]), pouchId: randomUUID(), kid: ref.fixture.primary.device.deviceId, privateKey, publicJwk: createPublicKey(privateKey).export({ format: 'jwk' }) as JsonWebKey };
}
function sendAttack(ref: RunningReference, id: string, c: AttackContext = attackContext(ref)): Promise<number> {
  const r = SIGNATURE_ATTACK_BY_ID.get(id)!.apply(c);
  const headers: Record<string, string> = { ...JSON_HEADERS, ...authHeaders(ref, DEVICE), ...(r.header === undefined ? {} : { 'service-signature': r.header }) };
  return status(send(ref.url, { method: 'POST', path: commitPath(r.pouchId), headers, body: r.rawBody ?? JSON.stringify(r.body) }));
}

/** Rounds of `n` concurrent reports of one row, largest input first; how many rounds then held a row smaller than the largest. */
async function usageRaces(ref: RunningReference, rounds = 6, n = 16): Promise<number> {
  let lost = 0;
  for (let k = 0; k < rounds; k++) {
    const id = sourceId();
    await Promise.all(Array.from({ length: n }, (_, i) => reportUsage(ref, id, [usageRow({ input: 1000 - i })])));
    if ((await stored(ref, id, { input: 1000 })) !== 0) lost++;
  }
  return lost;
}

const DEMOS: Record<FaultName, Demo> = {
  'ops-limit-off-by-one': { observe: (ref) => commitOps(ref, many(max('opsPerCommit') + 1, () => op(ref))), correct: 400, faulty: 200 },
  'blob-ids-off-by-one': { observe: (ref) => commitOps(ref, [op(ref, { blob_ids: many(max('blobIdsPerOp') + 1, () => randomUUID()) })]), correct: 400, faulty: 200 },
  'envelope-length-exclusive': { observe: (ref) => commitOps(ref, [op(ref, { envelope: A(max('envelopeLength')) })]), correct: 200, faulty: 400 },
  'ops-limit-exclusive': { observe: (ref) => commitOps(ref, many(max('opsPerCommit'), () => op(ref))), correct: 200, faulty: 400 },
  'roster-statements-off-by-one': { observe: (ref) => revoke(ref, { roster: { statements: many(max('rosterStatements') + 1, () => statement) } }), correct: 400, faulty: 200 },
  'roster-key-envelopes-exclusive': {
    observe: (ref) => revoke(ref, { roster: { statements: [statement], key_envelopes: many(max('rosterKeyEnvelopes'), () => keyEnvelope(ref)) } }),
    correct: 200,
    faulty: 400,
  },
  'reason-length-exclusive': { observe: (ref) => revoke(ref, { reason: 'r'.repeat(max('reasonLength')) }), correct: 200, faulty: 400 },
  'usage-rows-off-by-one': { observe: (ref) => status(reportUsage(ref, sourceId(), many(max('usageRowsPerRequest') + 1, () => usageRow({ model: randomUUID() })))), correct: 400, faulty: 200 },
  'key-gen-zero-accepted': { observe: (ref) => commitOps(ref, [op(ref, { key_gen: LIMITS.keyGen.min! - 1 })]), correct: 400, faulty: 200 },
  'length-in-utf16': { observe: (ref) => status(reportUsage(ref, sourceId(), [usageRow({ model: '😀'.repeat(max('modelLength')) })])), correct: 200, faulty: 400 },
  'day-pattern-only': { observe: (ref) => status(reportUsage(ref, sourceId(), [usageRow({ day: '2026-02-30' })])), correct: 400, faulty: 200 },
  'uuid-any-version': { observe: (ref) => commitOps(ref, [op(ref, { artifact_id: '6f1c2a34-5b6d-0e7f-1a9b-0c1d2e3f4a5b' })]), correct: 400, faulty: 200 },
  'uuid-nil-rejected': { observe: (ref) => commitOps(ref, [op(ref, { artifact_id: '00000000-0000-0000-0000-000000000000' })]), correct: 200, faulty: 400 },
  'uuid-lowercase-only': { observe: (ref) => commitOps(ref, [op(ref, { artifact_id: randomUUID().toUpperCase() })]), correct: 200, faulty: 400 },
  'path-id-unvalidated': { observe: (ref) => status(commit(ref, 'not-a-pouch', commitBody([op(ref)]))), correct: 400, faulty: 200 },
  'roster-limits-everywhere': {
    observe: (ref) => status(call(ref, 'POST', `/v1/cli-auth/requests/${randomUUID()}/approve`, { statement: { statement: 'a+b/c=', signature: 'x' }, welcome: 'w', key_envelopes: [] }, BROWSER)),
    correct: 200,
    faulty: 400,
  },
  'usage-partial-store': {
    // A report whose second row is invalid is refused; then its first row alone on the same source: new (1) unless the refusal stored it (0).
    observe: async (ref) => {
      const id = sourceId();
      const refused = await reportUsage(ref, id, [usageRow({ input: 10 }), usageRow({ input: -1.5 })]);
      return [refused.status, await stored(ref, id, { input: 10 })];
    },
    correct: [400, 1],
    faulty: [400, 0],
  },
  'usage-summed': {
    observe: async (ref) => {
      const id = sourceId();
      return [await stored(ref, id, { input: 10 }), await stored(ref, id, { input: 10 })];
    },
    correct: [1, 0],
    faulty: [1, 1],
  },
  'usage-last-write-wins': {
    observe: async (ref) => {
      const id = sourceId();
      return [await stored(ref, id, { input: 10 }), await stored(ref, id, { input: 3 }), await stored(ref, id, { input: 5 })];
    },
    correct: [1, 0, 0],
    faulty: [1, 1, 1],
  },
  'usage-per-field-max': {
    observe: async (ref) => {
      const id = sourceId();
      return [await stored(ref, id, { input: 10, output: 0 }), await stored(ref, id, { input: 0, output: 5 })];
    },
    correct: [1, 0],
    faulty: [1, 1],
  },
  'stale-base-accepted': {
    observe: async (ref) => {
      const { pouch, a } = await seeded(ref);
      const upd = () => op(ref, { type: 'update', artifact_id: a['artifact_id'] as string, base_revision_id: a['revision_id'] as string });
      return [await commitOps(ref, [upd()], pouch), await commitOps(ref, [upd()], pouch)];
    },
    correct: [200, 409],
    faulty: [200, 200],
  },
  'per-op-result-unshaped': {
    // A stale update: refused whole when correct; the fault serves per-op statuses, and its refused op's result lacks what 2.6 requires.
    observe: async (ref) => {
      const { pouch, a } = await seeded(ref);
      const r = await commit(ref, pouch, commitBody([op(ref, { type: 'update', artifact_id: a['artifact_id'] as string, base_revision_id: randomUUID() })]));
      return r.status === 200 ? Object.keys(r.json.data.results[0]).sort() : r.status;
    },
    correct: 409,
    faulty: ['artifact_id', 'status'],
  },
  'browser-stale-base-accepted': {
    // The same stale update from the device and from the browser: the device's is refused either way, the browser's only when correct.
    observe: async (ref) => {
      const { pouch, a } = await seeded(ref);
      const upd = () => op(ref, { type: 'update', artifact_id: a['artifact_id'] as string, base_revision_id: a['revision_id'] as string });
      await commitOps(ref, [upd()], pouch);
      return [await commitOps(ref, [upd()], pouch), await status(commit(ref, pouch, commitBody([upd()]), { kind: 'browser' }))];
    },
    correct: [409, 409],
    faulty: [409, 200],
  },
  'create-overwrites': {
    observe: async (ref) => {
      const { pouch, a } = await seeded(ref);
      return commitOps(ref, [op(ref, { artifact_id: a['artifact_id'] as string })], pouch);
    },
    correct: 409,
    faulty: 200,
  },
  'revision-reuse-accepted': {
    observe: async (ref) => {
      const { pouch, a } = await seeded(ref);
      return commitOps(ref, [op(ref, { revision_id: a['revision_id'] as string })], pouch);
    },
    correct: 409,
    faulty: 200,
  },
  'usage-day-today-refused': { observe: (ref) => status(reportUsage(ref, sourceId(), [usageRow({ day: new Date().toISOString().slice(0, 10) })])), correct: 200, faulty: 400 },
  'revision-batch-unchecked': {
    // One batch uses a revision id twice in one artifact: refused per pouch, and per artifact; the fault serves per artifact and applies it.
    observe: (ref) => {
      const a = op(ref);
      const r = a['revision_id'] as string;
      return commitOps(ref, [a, op(ref, { type: 'update', artifact_id: a['artifact_id'] as string, revision_id: r, base_revision_id: r })]);
    },
    correct: 409,
    faulty: 200,
  },
  'revision-owner-last': {
    // B takes A's revision id, then A reuses it: per pouch both are refused; the fault serves per artifact, and forgets A.
    observe: async (ref) => {
      const { pouch, a } = await seeded(ref);
      const r = a['revision_id'] as string;
      const other = await commitOps(ref, [op(ref, { revision_id: r })], pouch);
      return [other, await commitOps(ref, [op(ref, { type: 'update', artifact_id: a['artifact_id'] as string, revision_id: r, base_revision_id: r })], pouch)];
    },
    correct: [409, 409],
    faulty: [200, 200],
  },
  'partial-batch': {
    observe: async (ref) => {
      const { pouch, a } = await seeded(ref);
      const fresh = op(ref);
      const first = await commitOps(ref, [fresh, op(ref, { artifact_id: a['artifact_id'] as string })], pouch);
      return [first, await commitOps(ref, [fresh], pouch)];
    },
    correct: [409, 200],
    faulty: [409, 409],
  },
  'no-batch-chaining': {
    observe: (ref) => {
      const a = op(ref);
      return commitOps(ref, [a, op(ref, { type: 'update', artifact_id: a['artifact_id'] as string, base_revision_id: a['revision_id'] as string })]);
    },
    correct: 200,
    faulty: 409,
  },
  'operation-id-ignored': {
    observe: async (ref) => {
      const pouch = randomUUID();
      const body = commitBody([op(ref)]);
      return [await status(commit(ref, pouch, body)), await status(commit(ref, pouch, body))];
    },
    correct: [200, 200],
    faulty: [200, 409],
  },
  'operation-id-global': {
    // The first account commits under an operation_id; the second account's device commits its own create, to its own pouch, under the same id.
    observe: async (ref) => {
      const operationId = randomUUID();
      const mine = op(ref);
      await commit(ref, randomUUID(), commitBody([mine], operationId));
      const r = await commit(ref, randomUUID(), commitBody([op(ref)], operationId), { account: 'secondary' });
      return [r.status, JSON.stringify(r.json).includes(mine['artifact_id'] as string)];
    },
    correct: [200, false],
    faulty: [200, true],
  },
  'artifacts-keyed-by-id': {
    // An update on the head of an artifact of pouch A, sent to pouch B of the same account; then the update on that head sent to A.
    observe: async (ref) => {
      const { pouch, a } = await seeded(ref);
      const upd = () => op(ref, { type: 'update', artifact_id: a['artifact_id'] as string, base_revision_id: a['revision_id'] as string });
      return [await commitOps(ref, [upd()]), await commitOps(ref, [upd()], pouch)];
    },
    correct: [409, 200],
    faulty: [200, 409],
  },
  'seq-per-batch': {
    observe: async (ref) => (await commit(ref, randomUUID(), commitBody([op(ref), op(ref)]))).json.data.results.map((r: { seq: number }) => r.seq),
    correct: [1, 2],
    faulty: [1, 1],
  },
  'high-water-stale': {
    observe: async (ref) => (await commit(ref, randomUUID(), commitBody([op(ref), op(ref)]))).json.data.results.map((r: { high_water: number }) => r.high_water),
    correct: [2, 2],
    faulty: [0, 0],
  },
  'check-then-act-race': {
    observe: async (ref) => {
      let winners = 0;
      for (let round = 0; round < 3 && winners <= 1; round++) winners = (await raceOnOneBase(ref)).statuses.filter((s) => s === 200).length;
      return winners;
    },
    correct: 1,
    faulty: (w: unknown) => (w as number) > 1,
  },
  'envelope-empty-refused': { observe: (ref) => commitOps(ref, [op(ref, { envelope: '' })]), correct: 200, faulty: 400 },
  'quadratic-blob-ids': { observe: (ref) => commitOps(ref, [op(ref, { blob_ids: ['b1', 'b2', 'b1'] })]), correct: 200, faulty: 400 },
  'signature-not-verified': {
    observe: (ref) => status(commit(ref, randomUUID(), commitBody([op(ref)]), { signature: sign(ref, commitBody([op(ref)])) })),
    correct: 401,
    faulty: 200,
  },
  'signature-never-verifies': { observe: (ref) => status(commit(ref, randomUUID(), commitBody([op(ref)]))), correct: 200, faulty: 403 },
  'signature-header-optional': { observe: (ref) => status(commit(ref, randomUUID(), commitBody([op(ref)]), { signature: null })), correct: 401, faulty: 200 },
  'signature-zero-accepted': {
    observe: (ref) => status(commit(ref, randomUUID(), commitBody([op(ref)]), { signature: `${protectedHeaderSegment(ref.fixture.primary.device.deviceId)}..${b64u(new Uint8Array(64))}` })),
    correct: 401,
    faulty: 200,
  },
  'signature-alg-none': {
    observe: (ref) => status(commit(ref, randomUUID(), commitBody([op(ref)]), { signature: `${b64u(JSON.stringify({ alg: 'none', kid: ref.fixture.primary.device.deviceId }))}..` })),
    correct: 401,
    faulty: 200,
  },
  'signature-kid-unbound': {
    observe: (ref) => {
      const body = commitBody([op(ref)]);
      return status(commit(ref, randomUUID(), body, { signature: sign(ref, body, 'secondary') }));
    },
    correct: 401,
    faulty: 200,
  },
  'signature-raw-bytes': {
    observe: (ref) => {
      const body = commitBody([op(ref)]);
      return status(call(ref, 'POST', commitPath(randomUUID()), JSON.stringify(body, null, 1), DEVICE, { 'service-signature': sign(ref, body) }));
    },
    correct: 200,
    faulty: 401,
  },
  'signature-partial-body': {
    // A member added after signing, then a legitimately signed body that uses an optional member.
    observe: async (ref) => {
      const body = commitBody([op(ref)]);
      const tampered = commitBody([{ ...(body['ops'] as object[])[0], merge_parent_id: randomUUID() }], body['operation_id'] as string);
      const legit = commitBody([op(ref, { conflict_id: randomUUID() })]);
      return [await status(commit(ref, randomUUID(), tampered, { signature: sign(ref, body) })), await status(commit(ref, randomUUID(), legit))];
    },
    correct: [401, 200],
    faulty: [200, 401],
  },
  'signature-low-s-only': {
    observe: (ref) => {
      const body = commitBody([op(ref)]);
      return status(commit(ref, randomUUID(), body, { signature: withHighS(sign(ref, body)) }));
    },
    correct: 200,
    faulty: 401,
  },
  'auth-ignored': { observe: (ref) => status(call(ref, 'PUT', '/v1/account/unlock', { statements: [] }, 'anonymous')), correct: 401, faulty: 200 },
  'revoke-keeps-sessions': {
    observe: async (ref) => {
      const spare = ref.fixture.primary.revocableBrowsers![0]!;
      await call(ref, 'POST', `/v1/browsers/${spare.memberId}/revoke`, {}, BROWSER);
      const path = `/v1/browsers/${randomUUID()}/revoke`;
      return status(send(ref.url, { method: 'POST', path, headers: { ...JSON_HEADERS, authorization: `Bearer ${spare.token}` }, body: '{}' }));
    },
    correct: 401,
    faulty: 200,
  },
  'cross-account-access': {
    observe: async (ref) => {
      const { pouch } = await seeded(ref);
      return status(commit(ref, pouch, commitBody([op(ref)]), { account: 'secondary' }));
    },
    correct: 403,
    faulty: 200,
  },
  'separate-pouch-leak': {
    // The second account updates the first account's artifact at its head; then the owner updates it.
    observe: async (ref) => {
      const { pouch, a } = await seeded(ref);
      const upd = () => op(ref, { type: 'update', artifact_id: a['artifact_id'] as string, base_revision_id: a['revision_id'] as string });
      return [await status(commit(ref, pouch, commitBody([upd()]), { account: 'secondary' })), await commitOps(ref, [upd()], pouch)];
    },
    correct: [403, 200],
    faulty: [200, 409],
  },
  'refuse-everything': { observe: async (ref) => { const r = await reportUsage(ref, sourceId(), [usageRow({})]); return [r.status, r.json.ok]; }, correct: [200, true], faulty: [400, true] },
  'envelope-missing-request-id': { observe: async (ref) => typeof (await unlock(ref)).json.meta.request_id, correct: 'string', faulty: 'undefined' },
  'envelope-wrong-types': { observe: async (ref) => typeof (await unlock(ref)).json.data.head_seq, correct: 'number', faulty: 'string' },
  'approve-camel-case': {
    observe: async (ref) =>
      Object.keys((await call(ref, 'POST', `/v1/cli-auth/requests/${randomUUID()}/approve`, { statement, welcome: 'w', key_envelopes: [] }, BROWSER)).json.data),
    correct: ['device_id'],
    faulty: ['deviceId'],
  },
  'passkey-data-null': { observe: async (ref) => (await call(ref, 'POST', '/v1/account/passkeys', { response: {}, statement }, BROWSER)).json.data === null, correct: false, faulty: true },
  'unlock-head-seq-stuck': {
    observe: async (ref) => {
      const first = (await unlock(ref)).json.data.head_seq as number;
      return (await unlock(ref)).json.data.head_seq - first;
    },
    correct: 1,
    faulty: 0,
  },
  'revoke-rotation-pending-missing': {
    observe: async (ref) => Object.keys((await call(ref, 'POST', `/v1/browsers/${randomUUID()}/revoke`, {}, BROWSER)).json.data).sort(),
    correct: ['revoked', 'rotation_pending'],
    faulty: ['revoked'],
  },
  'revoke-rotation-pending-string': { observe: async (ref) => typeof (await call(ref, 'POST', `/v1/browsers/${randomUUID()}/revoke`, {}, BROWSER)).json.data.rotation_pending, correct: 'boolean', faulty: 'string' },
  'head-seq-not-integer': { observe: async (ref) => typeof (await unlock(ref)).json.data.head_seq, correct: 'number', faulty: 'string' },
  'body-cap-500': {
    observe: (ref) =>
      send(ref.url, { method: 'PUT', path: '/v1/account/unlock', headers: { ...JSON_HEADERS, ...authHeaders(ref, BROWSER), 'content-length': String(MAX_BODY_BYTES + 1), connection: 'close' }, body: '' })
        .then((r) => r.status, (e: Error) => e.message),
    correct: 413,
    faulty: 500,
  },
  'malformed-json-500': { observe: (ref) => status(call(ref, 'PUT', '/v1/account/unlock', '{"statements": [', BROWSER)), correct: 400, faulty: 500 },
  'deep-nesting-crash': {
    observe: async (ref) => {
      const outcome = (p: Promise<Res>) => p.then((r) => r.status, () => 'no answer');
      const deep = `{"statements":[],"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
      return [await outcome(call(ref, 'PUT', '/v1/account/unlock', deep, BROWSER)), await outcome(unlock(ref))];
    },
    correct: [400, 200],
    faulty: ['no answer', 'no answer'],
  },
  'content-type-unchecked': {
    observe: (ref) => status(send(ref.url, { method: 'PUT', path: '/v1/account/unlock', headers: { 'content-type': 'text/plain', ...authHeaders(ref, BROWSER) }, body: '{"statements":[]}' })),
    correct: 415,
    faulty: 200,
  },
  'invalid-utf8-accepted': {
    observe: (ref) =>
      status(send(ref.url, { path: `/v1/browsers/${randomUUID()}/revoke`, headers: { ...JSON_HEADERS, ...authHeaders(ref, BROWSER) }, body: Buffer.from([...Buffer.from('{"reason":"'), 0xff, 0xfe, ...Buffer.from('"}')]) })),
    correct: 400,
    faulty: 200,
  },
  'duplicate-keys-last-wins': { observe: (ref) => status(call(ref, 'POST', `/v1/browsers/${randomUUID()}/revoke`, '{"reason":"a","reason":"b"}', BROWSER)), correct: 400, faulty: 200 },
  'stall-periodic': {
    // Sends just after a window opens (measured from the server's start); a stalled answer comes no
    // earlier than the window's end. A wake-up too late on a loaded machine is no sample and is
    // skipped. Held means most of three samples waited for the window's end: a request that a loaded
    // machine delivers after the window has closed is not held by the fault, and a plain answer a
    // loaded machine delays past it looks held, so one sample either way decides nothing.
    observe: async (ref) => {
      const held: boolean[] = [];
      for (let attempt = 0; attempt < 12 && held.length < 3; attempt++) {
        const since = Date.now() - ref.startedAt;
        const nextWindow = since - (since % STALL_PERIOD_MS) + STALL_PERIOD_MS;
        await sleep(nextWindow - since + 2);
        const k = Math.floor((Date.now() - ref.startedAt) / STALL_PERIOD_MS);
        if ((Date.now() - ref.startedAt) % STALL_PERIOD_MS >= STALL_MS / 2) continue; // woke too late on a loaded machine
        await unlock(ref);
        held.push(Date.now() >= ref.startedAt + k * STALL_PERIOD_MS + STALL_MS);
      }
      return held.length < 3 ? `${held.length} sample(s): the other wake-ups came too late` : held.filter(Boolean).length >= 2;
    },
    correct: false,
    faulty: true,
  },
  // histories: races only concurrent commits show.
  'check-then-act-rename-delete': {
    // Renames racing on one base: one wins on the correct reference; with the fault, several (a few rounds, since a race may miss).
    observe: async (ref) => {
      let winners = 0;
      for (let round = 0; round < 3 && winners <= 1; round++) winners = (await raceOnOneBase(ref, 'rename')).statuses.filter((s) => s === 200).length;
      return winners;
    },
    correct: 1,
    faulty: (w: unknown) => (w as number) > 1,
  },
  'batch-split-under-load': {
    // A batch updating A and B sent together with single updates of B on the same base: only one of them may apply B's update.
    observe: async (ref) => {
      let winners = 0;
      for (let round = 0; round < 5 && winners <= 1; round++) {
        const pouch = randomUUID();
        const [a, b] = [op(ref), op(ref)];
        if ((await commit(ref, pouch, commitBody([a, b]))).status !== 200) throw new Error('setup commit failed');
        const upd = (x: Record<string, unknown>) => op(ref, { type: 'update', artifact_id: x['artifact_id'] as string, base_revision_id: x['revision_id'] as string });
        const bodies = [commitBody([upd(a), upd(b)]), ...many(7, () => commitBody([upd(b)]))];
        winners = (await Promise.all(bodies.map((body) => status(commit(ref, pouch, body))))).filter((s) => s === 200).length;
      }
      return winners;
    },
    correct: 1,
    faulty: (w: unknown) => (w as number) > 1,
  },
  // selftests
  'seq-snowflake': {
    observe: async (ref) => (await commit(ref, randomUUID(), commitBody([op(ref)]))).json.data.results.map((r: { seq: number; high_water: number }) => [r.seq, r.high_water].every((n) => Number.isSafeInteger(n))),
    correct: [true],
    faulty: [false],
  },
  'signature-header-literal': {
    // A valid ES256 JWS of the body whose protected header lists kid before alg.
    observe: (ref) => {
      const body = commitBody([op(ref)]);
      const header = b64u(`{"kid":${JSON.stringify(ref.fixture.primary.device.deviceId)},"alg":"ES256"}`);
      const sig = es256Sign(signingInput(header, payloadOf(signingDigest(body, new Uint8Array(0)))), deviceKey(ref));
      return status(commit(ref, randomUUID(), body, { signature: `${header}..${b64u(sig)}` }));
    },
    correct: 200,
    faulty: 401,
  },
  'auth-scheme-500': {
    observe: (ref) => status(call(ref, 'PUT', '/v1/account/unlock', { statements: [] }, 'anonymous', { authorization: 'Basic dXNlcjpwYXNz' })),
    correct: 401,
    faulty: 500,
  },
  // runner: a body that is no JSON takes the (embedded) server down: the request is dropped and the next one finds nothing listening.
  'dies-on-input': {
    observe: async (ref) => {
      const outcome = (p: Promise<Res>) => p.then((r) => r.status, (e: NodeJS.ErrnoException) => (e.code === 'ECONNREFUSED' || (e.cause as NodeJS.ErrnoException | undefined)?.code === 'ECONNREFUSED' ? 'refused' : 'no answer'));
      return [await outcome(call(ref, 'PUT', '/v1/account/unlock', '{"statements": [', BROWSER)), await outcome(unlock(ref))];
    },
    correct: [400, 200],
    faulty: ['no answer', 'refused'],
  },
  // stateful: create, update, delete, then a restore on the update (an earlier revision, not the delete at the head).
  'restore-any-revision': {
    observe: async (ref) => {
      const { pouch, a } = await seeded(ref);
      const artifact_id = a['artifact_id'] as string;
      const upd = op(ref, { type: 'update', artifact_id, base_revision_id: a['revision_id'] as string });
      const del = op(ref, { type: 'delete', artifact_id, base_revision_id: upd['revision_id'] as string });
      const restore = op(ref, { type: 'restore', artifact_id, base_revision_id: upd['revision_id'] as string });
      return [await commitOps(ref, [upd], pouch), await commitOps(ref, [del], pouch), await commitOps(ref, [restore], pouch)];
    },
    correct: [200, 200, 409],
    faulty: [200, 200, 200],
  },
  // coverage: one variant of one field.
  'lax-pattern': { observe: (ref) => commitOps(ref, [op(ref, { signature: 'c2lnbmF0dXJl=' })]), correct: 400, faulty: 200 },
  'nullable-missing-rewritten': {
    // The device's commit without base_revision_id fails its signature (the verifier hashes the rewritten body); the browser's is taken.
    observe: async (ref) => {
      const { base_revision_id: _, ...create } = op(ref);
      const { base_revision_id: __, ...other } = op(ref);
      return [await commitOps(ref, [create]), await status(commit(ref, randomUUID(), commitBody([other]), { kind: 'browser' }))];
    },
    correct: [400, 400],
    faulty: [401, 200],
  },
  'optional-member-required': {
    observe: async (ref) => {
      const { merge_parent_id: _, ...bare } = op(ref);
      return [await commitOps(ref, [bare]), await commitOps(ref, [{ ...op(ref), merge_parent_id: null }])];
    },
    correct: [200, 200],
    faulty: [400, 200],
  },
  'nullable-missing-as-null': {
    observe: (ref) => {
      const { base_revision_id: _, ...create } = op(ref);
      return commitOps(ref, [create]);
    },
    correct: 400,
    faulty: 200,
  },
  // cost: the fault only costs time, so what is observed is the cost probe's verdict on the envelope
  // dimension (fastest CPU time of this process per size over interleaved rounds, fitted growth,
  // confirmed once), never a timing threshold of the test's own.
  'quadratic-envelope': {
    observe: (ref) => costGrowth(max('envelopeLength'), 200, (size) => commitOps(ref, [op(ref, { envelope: A(size), blob_ids: ['b1'] })])),
    correct: 'linear',
    faulty: 'superlinear',
  },
  // A refusal's cost: an envelope of valid characters but its last.
  'envelope-regex-backtracking': {
    observe: (ref) => costGrowth(max('envelopeLength'), 400, (size) => commitOps(ref, [op(ref, { envelope: `${A(size - 1)}.` })])),
    correct: 'linear',
    faulty: 'superlinear',
  },
  // The members of 4.4's free-form response object.
  'member-names-quadratic': {
    observe: (ref) =>
      costGrowth(2 ** 13, 200, (size) =>
        status(call(ref, 'POST', '/v1/account/passkeys', { response: Object.fromEntries(many(size, (i) => [`k${i.toString(36)}`, 0])), statement }, BROWSER)),
      ),
    correct: 'linear',
    faulty: 'superlinear',
  },
  // Distinct rows of one report, to a fresh source each time.
  'quadratic-usage-rows': {
    observe: (ref) => costGrowth(max('usageRowsPerRequest'), 200, (size) => status(reportUsage(ref, sourceId(), many(size, (i) => usageRow({ assistant: `a${i.toString(36)}` }))))),
    correct: 'linear',
    faulty: 'superlinear',
  },
  'store-pool-queue': {
    // STORE_POOL_SIZE requests whose bodies are held back hold every store connection with the fault;
    // one more request then waits in line until one of them goes. Decided by the order of two answers,
    // never by a timer: once the extra request is in the server's hands, one stuck request is let go.
    // The correct server has answered the extra one by then; with the fault it comes second.
    observe: async (ref) => {
      const host = new URL(ref.url).host;
      const stuck = many(STORE_POOL_SIZE, () => heldRequest(ref.url, 'PUT /v1/account/unlock', { ...JSON_HEADERS, ...authHeaders(ref, BROWSER), host, 'content-length': '100' }));
      try {
        await Promise.all(stuck.map((r) => r.taken));
        const extra = heldRequest(ref.url, 'POST /nowhere', { host, 'content-length': '0' });
        await extra.taken;
        const order: string[] = [];
        const released = stuck[0]!;
        released.release(' '.repeat(100));
        await Promise.all([extra.answered.then(() => order.push('the extra request')), released.answered.then(() => order.push('the released one'))]);
        return { answeredFirst: order[0], extra: await extra.answered };
      } finally {
        for (const r of stuck) r.destroy();
      }
    },
    correct: { answeredFirst: 'the extra request', extra: 404 },
    faulty: { answeredFirst: 'the released one', extra: 404 },
  },
  // mutation: a duplicate the default run of the suite never placed (docs/mutation.md).
  'duplicate-keys-first-only': {
    observe: async (ref) => {
      const revoke = (body: string) => status(call(ref, 'POST', `/v1/browsers/${randomUUID()}/revoke`, body, BROWSER));
      return [await revoke('{"reason":"a","reason":"b"}'), await revoke('{"reason":"a\\"}","x":{"k":1,"k":1}}')];
    },
    correct: [400, 400],
    faulty: [400, 200],
  },
  'create-base-ignored': {
    observe: async (ref) => {
      const { pouch, a } = await seeded(ref);
      return commitOps(ref, [op(ref, { base_revision_id: a['revision_id'] as string })], pouch);
    },
    correct: 409,
    faulty: 200,
  },
  // defects (docs/defects.md): what lenient JSON parsers accept.
  'json-comments': { observe: (ref) => revokeRaw(ref, '{/* c */"reason":"a"}'), correct: 400, faulty: 200 },
  'json-trailing-garbage': { observe: (ref) => revokeRaw(ref, '{"reason":"a"} "x"'), correct: 400, faulty: 200 },
  'json-raw-control-chars': { observe: (ref) => revokeRaw(ref, '{"reason":"a\tb"}'), correct: 400, faulty: 200 },
  'json-lenient-numbers': {
    observe: (ref) => status(call(ref, 'PUT', usagePath(sourceId()), JSON.stringify({ rows: [usageRow({ input: 10, output: 5 })] }).replace('"input":10', '"input":010').replace('"output":5', '"output":+5'), DEVICE)),
    correct: 400,
    faulty: 200,
  },
  'json-huge-number-500': { observe: (ref) => revokeRaw(ref, `{"reason":${'9'.repeat(5000)}}`), correct: 400, faulty: 500 },
  'lone-surrogate-500': { observe: (ref) => revokeRaw(ref, '{"reason":"\\ud800"}'), correct: 200, faulty: 500 },
  'integer-overflow-saturated': {
    observe: (ref) => status(call(ref, 'PUT', usagePath(sourceId()), JSON.stringify({ rows: [usageRow({ input: 7 })] }).replace('"input":7', '"input":1e400'), DEVICE)),
    correct: 400,
    faulty: 200,
  },
  'usage-key-uri-encoded': {
    observe: (ref) => status(call(ref, 'PUT', usagePath(sourceId()), JSON.stringify({ rows: [usageRow({ model: 'm@SURROGATE@' })] }).replace('@SURROGATE@', '\\ud800'), DEVICE)),
    correct: 200,
    faulty: 500,
  },
  'duplicate-keys-escaped': { observe: (ref) => revokeRaw(ref, '{"reason":"a","\\u0072eason":"b"}'), correct: 400, faulty: 200 },
  'content-type-exact': { observe: (ref) => revokeRaw(ref, '{"reason":"a"}', { 'content-type': 'application/json; charset=utf-8' }), correct: 200, faulty: 415 },
  // A valid revoke body padded with white space (JSON allows it) to just over 30,000,000 bytes: cheap to build, no signature.
  'body-cap-30mb': {
    observe: (ref) => {
      const body = JSON.stringify({ reason: 'lost laptop' });
      return revokeRaw(ref, `${body}${' '.repeat(30_000_001 - body.length)}`);
    },
    correct: 200,
    faulty: 413,
  },
  'body-cap-1mib': { observe: (ref) => commitOps(ref, [op(ref, { envelope: A(max('envelopeLength')) }), op(ref, { envelope: A(max('envelopeLength')) })]), correct: 200, faulty: 413 },
  'commit-unlisted-member-refused': {
    // An unlisted member at the top of a commit, in one of its ops, and at the top of a usage report (ignored there).
    observe: async (ref) => [
      await status(commit(ref, randomUUID(), { ...commitBody([op(ref)]), comment: 'x' })),
      await commitOps(ref, [op(ref, { future_field: 1 })]),
      await status(call(ref, 'PUT', usagePath(sourceId()), { rows: [usageRow()], comment: 'x' }, DEVICE)),
    ],
    correct: [200, 200, 200],
    faulty: [400, 400, 200],
  },
  'retry-after-503-maximal': {
    // The maximal envelope refused as "busy" again and again; one character shorter, served.
    observe: async (ref) => {
      const maximal = async () => {
        const r = await commit(ref, randomUUID(), commitBody([op(ref, { envelope: A(max('envelopeLength')) })]));
        return `${r.status} ${r.headers['retry-after'] ?? '-'}`;
      };
      return [await maximal(), await maximal(), await commitOps(ref, [op(ref, { envelope: A(max('envelopeLength') - 1) })])];
    },
    correct: ['200 -', '200 -', 200],
    faulty: ['503 1', '503 1', 200],
  },
  // validators and binders
  'field-names-case-insensitive': { observe: (ref) => status(call(ref, 'PUT', usagePath(sourceId()), { ROWS: [usageRow()] }, DEVICE)), correct: 400, faulty: 200 },
  'charset-ascii-range': { observe: (ref) => commitOps(ref, [op(ref, { envelope: 'AB`C^D' })]), correct: 400, faulty: 200 },
  'pattern-trailing-newline': { observe: (ref) => status(reportUsage(ref, sourceId(), [usageRow({ day: '2026-03-01\n' })])), correct: 400, faulty: 200 },
  'uuid-parsed-leniently': {
    observe: (ref) => revokeRaw(ref, JSON.stringify({ roster: { statements: [statement], key_envelopes: [{ ...keyEnvelope(ref), pouch_id: `{${randomUUID()}}` }] } })),
    correct: 400,
    faulty: 200,
  },
  'integer-string-coerced': { observe: (ref) => status(reportUsage(ref, sourceId(), [usageRow({ input: '5' })])), correct: 400, faulty: 200 },
  'integer-float-truncated': { observe: (ref) => status(reportUsage(ref, sourceId(), [usageRow({ input: 1.5 })])), correct: 400, faulty: 200 },
  // usage arithmetic and concurrency
  'usage-total-double': {
    // Totals 2^53 and 2^53 + 1: equal as doubles.
    observe: async (ref) => {
      const id = sourceId();
      return [await stored(ref, id, { input: MAX_SAFE, output: 1 }), await stored(ref, id, { input: MAX_SAFE, output: 2 })];
    },
    correct: [1, 1],
    faulty: [1, 0],
  },
  'usage-merge-total-bounded': {
    observe: async (ref) => {
      const id = sourceId();
      const big = [usageRow({ input: MAX_SAFE, output: MAX_SAFE })];
      return [await status(reportUsage(ref, id, big)), await status(reportUsage(ref, id, big))];
    },
    correct: [200, 200],
    faulty: [200, 400],
  },
  'usage-total-bounded': { observe: (ref) => status(reportUsage(ref, sourceId(), [usageRow({ input: MAX_SAFE, output: MAX_SAFE })])), correct: 200, faulty: 400 },
  'usage-check-then-act': { observe: (ref) => usageRaces(ref), correct: 0, faulty: (lost: unknown) => typeof lost === 'number' && lost > 0 },
  // Service-Signature: the attack each shortcut lets through.
  'signature-crit-ignored': { observe: (ref) => sendAttack(ref, 'crit.unknown'), correct: 401, faulty: 200 },
  'signature-b64-without-crit': { observe: (ref) => sendAttack(ref, 'b64.false-without-crit'), correct: 401, faulty: 200 },
  'signature-embedded-jwk': { observe: (ref) => sendAttack(ref, 'key.embedded-jwk'), correct: 401, faulty: 200 },
  'signature-hmac-public-key': { observe: (ref) => sendAttack(ref, 'alg.hs256-pem'), correct: 401, faulty: 200 },
  'signature-der-accepted': { observe: (ref) => sendAttack(ref, 'sig.der'), correct: 401, faulty: 200 },
  'signature-lenient-base64': { observe: (ref) => sendAttack(ref, 'sig.padded'), correct: 401, faulty: 200 },
  'signature-attached-payload': { observe: (ref) => sendAttack(ref, 'jws.attached-other-body'), correct: 401, faulty: 200 },
  'signature-x5c-trusted': { observe: (ref) => sendAttack(ref, 'key.x5c'), correct: 401, faulty: 200 },
  'signature-kid-path': { observe: (ref) => sendAttack(ref, 'kid.path-traversal'), correct: 401, faulty: 200 },
  // A kid of no enrolled device, and one that is not a string, both signed by the caller's key.
  'signature-kid-fallback': { observe: async (ref) => [await sendAttack(ref, 'kid.wrong'), await sendAttack(ref, 'kid.number')], correct: [401, 401], faulty: [200, 200] },
  'signature-cache-by-header': {
    observe: async (ref) => {
      const c = attackContext(ref);
      return [await sendAttack(ref, 'ok.original', c), await sendAttack(ref, 'body.changed-after-acceptance', c)];
    },
    correct: [200, 401],
    faulty: [200, 200],
  },
};

let correct: RunningReference;
beforeAll(async () => {
  correct = await startReference();
});
afterAll(async () => {
  await correct.close();
});

describe('every fault changes observable HTTP behaviour', () => {
  it('has a demonstration for every fault of the catalogue, and at least 30 faults', () => {
    expect(FAULTS.length).toBeGreaterThanOrEqual(30);
    expect(Object.keys(DEMOS).sort()).toEqual(FAULTS.map((f) => f.name).sort());
  });

  it.each(FAULTS.map((f) => [f.name]))('%s', async (name) => {
    const demo = DEMOS[name as FaultName];
    const faulty = await startReference({ faults: [name] });
    try {
      expect(faulty.faults).toEqual([name]);
      const good = await demo.observe(correct);
      const bad = await demo.observe(faulty);
      expect(good).toEqual(demo.correct);
      if (typeof demo.faulty === 'function') expect((demo.faulty as (o: unknown) => boolean)(bad), `observed ${JSON.stringify(bad)}`).toBe(true);
      else expect(bad).toEqual(demo.faulty);
    } finally {
      await faulty.close();
    }
  });
});

describe('fault switches', () => {
  it('rejects unknown fault names with a message listing the known ones', async () => {
    await expect(startReference({ faults: ['no-such-fault'] })).rejects.toThrow(/unknown fault "no-such-fault"; known: ops-limit-off-by-one, /);
  });
  it('documents an area, a description and at least one expected killer for every fault', () => {
    for (const f of FAULTS) {
      expect(f.area.length, f.name).toBeGreaterThan(0);
      expect(f.description.length, f.name).toBeGreaterThan(10);
      expect(f.expectedKillers.length, f.name).toBeGreaterThan(0);
    }
  });
  it('switches faults per instance: two servers side by side behave differently', async () => {
    const a = await startReference({ faults: ['auth-ignored'] });
    const b = await startReference();
    try {
      const anon = (ref: RunningReference) => status(call(ref, 'PUT', '/v1/account/unlock', { statements: [] }, 'anonymous'));
      expect([await anon(a), await anon(b)]).toEqual([200, 401]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

/**
 * One test per reading the reference serves: the same requests against the default reference and
 * against a reference switched to that reading give the HTTP behaviour the registry's meaning of
 * each says (and the default does not). Then the combinations of the commit readings, faults
 * combined with readings (the fault's defect still shows), and the typed API.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64u, fromB64u } from '../../src/crypto/base64url.ts';
import { P256_N, signServiceSignature } from '../../src/crypto/service-signature.ts';
import {
  ALTERNATIVES,
  FAULTS,
  FAULT_READING_CONFLICTS,
  FaultSet,
  LISTED_IDS,
  READING_SITES,
  ReadingSet,
  SWITCHABLE,
  faultReadingConflict,
  keyOf,
  parseReadingArgs,
  startReference,
  type FaultName,
  type ReadingKey,
  type RunningReference,
} from '../../src/reference/index.ts';
import { ASSUMPTIONS, type Readings } from '../../src/spec/index.ts';
import {
  BROWSER,
  DEVICE,
  authHeaders,
  call,
  commit,
  commitBody,
  commitPath,
  deviceKey,
  isErrorEnvelope,
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
  max,
  type Res,
} from './helpers.ts';

interface Demo {
  observe(ref: RunningReference): Promise<unknown>;
  /** What the default reference answers. */
  byDefault: unknown;
  /** What the reference switched to the reading answers. */
  switched: unknown;
}

const commitOps = (ref: RunningReference, ops: Record<string, unknown>[], pouch: string = randomUUID()): Promise<Res> => commit(ref, pouch, commitBody(ops));
const unlock = (ref: RunningReference, statements: unknown[]): Promise<Res> => call(ref, 'PUT', '/v1/account/unlock', { statements }, BROWSER);
const approve = (ref: RunningReference, id: string, who = BROWSER): Promise<Res> =>
  call(ref, 'POST', `/v1/cli-auth/requests/${id}/approve`, { statement, welcome: 'w', key_envelopes: [keyEnvelope(ref)] }, who);
const revoke = (ref: RunningReference, id: string, who = BROWSER): Promise<number> => status(call(ref, 'POST', `/v1/browsers/${id}/revoke`, {}, who));
const stored = async (ref: RunningReference, id: string, rows: Record<string, unknown>[]): Promise<number> => (await reportUsage(ref, id, rows.map((r) => usageRow(r)))).json.data.stored;
const statuses = (r: Res): unknown => r.json?.data?.results?.map((x: { status: string }) => x.status);
const usageStatus = (ref: RunningReference, row: Record<string, unknown>): Promise<number> => status(reportUsage(ref, sourceId(), [usageRow(row)]));

/** The same commit sent twice with one operation_id: the first status, then the replay's status and error code. */
async function replayTwice(ref: RunningReference): Promise<unknown> {
  const pouch = randomUUID();
  const body = commitBody([op(ref)]);
  const first = await status(commit(ref, pouch, body));
  const again = await commit(ref, pouch, body);
  return [first, again.status, again.json?.error?.code];
}

/** Create an artifact, then return it with its pouch. */
async function seeded(ref: RunningReference): Promise<{ pouch: string; a: Record<string, unknown> }> {
  const pouch = randomUUID();
  const a = op(ref);
  expect((await commitOps(ref, [a], pouch)).status).toBe(200);
  return { pouch, a };
}
const updateOf = (ref: RunningReference, a: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  op(ref, { type: 'update', artifact_id: a['artifact_id'] as string, base_revision_id: a['revision_id'] as string, ...extra });

/** Whether a commit applied all its ops, under either conflict-behaviour. */
const appliedAll = (r: Res): boolean => r.status === 200 && (statuses(r) as string[]).every((x) => x === 'applied');

/**
 * A batch of a fresh create and a create of an existing artifact: its status, its result statuses
 * (or 0 without results), and whether the fresh create applied (a second create of it is refused).
 */
async function freshAndConflicting(ref: RunningReference): Promise<[number, unknown, boolean]> {
  const { pouch, a } = await seeded(ref);
  const fresh = op(ref);
  const r = await commitOps(ref, [fresh, op(ref, { artifact_id: a['artifact_id'] as string })], pouch);
  const again = await commitOps(ref, [op(ref, { artifact_id: fresh['artifact_id'] as string })], pouch);
  return [r.status, statuses(r) ?? 0, !appliedAll(again)];
}

function withHighS(header: string): string {
  const [h, , s] = header.split('.') as [string, string, string];
  const sig = Buffer.from(fromB64u(s));
  const sv = BigInt('0x' + sig.subarray(32).toString('hex'));
  const high = sv > P256_N / 2n ? sv : P256_N - sv;
  return `${h}..${b64u(Buffer.concat([sig.subarray(0, 32), Buffer.from(high.toString(16).padStart(64, '0'), 'hex')]))}`;
}

const signedAs = (ref: RunningReference, body: unknown, form: Parameters<typeof signServiceSignature>[0] extends infer A ? Partial<A> : never): string =>
  signServiceSignature({ body, kid: ref.fixture.primary.device.deviceId, privateKey: deviceKey(ref), ...form });

/** The two kid-binding probes discovery sends: another device's key and kid; the caller's key under a kid of nobody. */
async function kidProbes(ref: RunningReference): Promise<number[]> {
  const other = commitBody([op(ref)]);
  const nobody = commitBody([op(ref)]);
  return [
    await status(commit(ref, randomUUID(), other, { signature: sign(ref, other, 'secondary') })),
    await status(commit(ref, randomUUID(), nobody, { signature: signedAs(ref, nobody, { kid: randomUUID() }) })),
  ];
}

const conflictStatusDemo = (code: number): Demo => ({
  observe: async (ref) => {
    const { pouch, a } = await seeded(ref);
    return status(commitOps(ref, [op(ref, { artifact_id: a['artifact_id'] as string })], pouch));
  },
  byDefault: 409,
  switched: code,
});

const utcToday = (): string => new Date().toISOString().slice(0, 10);

const DEMOS: Partial<Record<ReadingKey, Demo>> = {
  'canonical-json=raw-bytes': {
    // The body sent pretty-printed: signed over its JCS form, then over its bytes as sent.
    observe: async (ref) => {
      const body = commitBody([op(ref)]);
      const raw = Buffer.from(JSON.stringify(body, null, 1));
      const post = (sig: string) => status(send(ref.url, { path: commitPath(randomUUID()), headers: { 'content-type': 'application/json', ...authHeaders(ref, DEVICE), 'service-signature': sig }, body: raw }));
      return [await post(signedAs(ref, body, {})), await post(signedAs(ref, body, { canonical: 'raw-bytes', rawBody: raw }))];
    },
    byDefault: [200, 401],
    switched: [401, 200],
  },
  'canonical-json=sorted-compact': {
    // A lone surrogate in a blob id: JCS refuses it, JSON.stringify with sorted keys escapes it.
    observe: async (ref) => {
      const body = commitBody([op(ref, { blob_ids: ['\ud800'] })]);
      return [await status(commit(ref, randomUUID(), body, { signature: signedAs(ref, body, { canonical: 'sorted-compact' }) })), await status(commitOps(ref, [op(ref)]))];
    },
    byDefault: [401, 200],
    switched: [200, 200],
  },
  'jws-form=b64-text-payload': {
    observe: async (ref) => {
      const body = commitBody([op(ref)]);
      const body2 = commitBody([op(ref)]);
      return [await status(commit(ref, randomUUID(), body)), await status(commit(ref, randomUUID(), body2, { signature: signedAs(ref, body2, { jwsForm: 'b64-text-payload' }) }))];
    },
    byDefault: [200, 401],
    switched: [401, 200],
  },
  // Another enrolled device's key under its own kid; then the caller's own key under a kid of no enrolled device.
  'kid-binding=unbound': {
    observe: (ref) => kidProbes(ref),
    byDefault: [401, 401],
    switched: [200, 401],
  },
  'kid-binding=caller-key': {
    observe: (ref) => kidProbes(ref),
    byDefault: [401, 401],
    switched: [401, 200],
  },
  'high-s-accepted=rejected': {
    observe: (ref) => {
      const body = commitBody([op(ref)]);
      return status(commit(ref, randomUUID(), body, { signature: withHighS(sign(ref, body)) }));
    },
    byDefault: 200,
    switched: 401,
  },
  'signature-required-callers=everyone': {
    // A browser holds no signing key in the fixture: its commits cannot be signed, so they are all refused.
    observe: async (ref) => [await status(commit(ref, randomUUID(), commitBody([op(ref)]), { kind: 'browser' })), await status(commitOps(ref, [op(ref)]))],
    byDefault: [200, 200],
    switched: [401, 200],
  },
  'caller-kinds=any-member': {
    observe: async (ref) => [
      await status(call(ref, 'PUT', '/v1/account/unlock', { statements: [statement] }, DEVICE)),
      await status(reportUsage(ref, sourceId(), [usageRow()], BROWSER)),
    ],
    byDefault: [403, 403],
    switched: [200, 200],
  },
  'credentials-required=open': {
    observe: async (ref) => [await status(call(ref, 'PUT', '/v1/account/unlock', { statements: [] }, 'anonymous')), await status(call(ref, 'PUT', '/v1/account/unlock', { statements: [] }, BROWSER, { authorization: 'Bearer wrong-token-0123456789' }))],
    byDefault: [401, 401],
    switched: [200, 200],
  },
  'cross-account-isolation=separate-pouch': {
    // The second account: a create in the first account's pouch id, then an update of its artifact; then the owner's update.
    observe: async (ref) => {
      const { pouch, a } = await seeded(ref);
      const created = await commit(ref, pouch, commitBody([op(ref)]), { account: 'secondary' });
      const foreign = await status(commit(ref, pouch, commitBody([updateOf(ref, a)]), { account: 'secondary' }));
      const owner = await commitOps(ref, [updateOf(ref, a)], pouch);
      return [created.status, created.json.data?.results?.[0]?.seq, foreign, owner.status, owner.json.data.results[0].seq];
    },
    byDefault: [403, undefined, 403, 200, 2],
    switched: [200, 1, 409, 200, 2],
  },
  'error-response=envelope-ok-false': {
    observe: async (ref) => isErrorEnvelope(await call(ref, 'PUT', '/v1/account/unlock', { statements: [] }, 'anonymous')),
    byDefault: true,
    switched: true,
  },
  'error-response=ok-false-any-status': {
    // A refusal of the request's content comes as a 200 with ok false; what a gateway refuses keeps its 4xx.
    observe: async (ref) => {
      const r = await call(ref, 'PUT', '/v1/usage/sources/0123456789abcdef0123456789abcdef', { rows: 'not a list' }, DEVICE);
      const anon = await call(ref, 'PUT', '/v1/account/unlock', { statements: [] }, 'anonymous');
      return [r.status, r.json?.ok, anon.status];
    },
    byDefault: [400, false, 401],
    switched: [200, false, 401],
  },
  'error-response=any-4xx': {
    observe: async (ref) => {
      const r = await call(ref, 'PUT', '/v1/account/unlock', { statements: [] }, 'anonymous');
      return [r.status, String(r.headers['content-type']).split(';')[0], r.json === undefined];
    },
    byDefault: [401, 'application/json', false],
    switched: [401, 'text/plain', true],
  },
  'conflict-behaviour=per-op-status': {
    observe: freshAndConflicting,
    byDefault: [409, 0, false],
    switched: [200, ['aborted', 'conflict'], false],
  },
  'conflict-status=any-4xx': conflictStatusDemo(409),
  'conflict-status=409': conflictStatusDemo(409),
  'conflict-status=412': conflictStatusDemo(412),
  'conflict-status=400': conflictStatusDemo(400),
  'batch-atomicity=per-op': {
    // With whole-request rejection: 4xx, and data.results lists the op that did apply.
    observe: freshAndConflicting,
    byDefault: [409, 0, false],
    switched: [409, ['applied'], true],
  },
  'batch-chaining=pre-batch-heads': {
    // A create and an update of the same artifact in one batch: the update names the create's revision.
    observe: async (ref) => {
      const created = op(ref);
      const next = op(ref, { type: 'update', artifact_id: created['artifact_id'] as string, base_revision_id: created['revision_id'] as string });
      return commitOps(ref, [created, next]).then((r) => r.status);
    },
    byDefault: 200,
    switched: 409,
  },
  'operation-id-idempotency=replay-rejected': {
    observe: replayTwice,
    byDefault: [200, 200, undefined],
    switched: [200, 409, 'operation_id_replayed'],
  },
  'operation-id-idempotency=not-deduplicated': {
    // Evaluated again, the replayed create meets the artifact its first attempt created.
    observe: replayTwice,
    byDefault: [200, 200, undefined],
    switched: [200, 409, 'conflict'],
  },
  'revision-id-unique=per-artifact': {
    observe: async (ref) => {
      const { pouch, a } = await seeded(ref);
      const rev = a['revision_id'] as string;
      return [await status(commitOps(ref, [op(ref, { revision_id: rev })], pouch)), await status(commitOps(ref, [updateOf(ref, a, { revision_id: rev })], pouch))];
    },
    byDefault: [409, 409],
    switched: [200, 409],
  },
  'seq-semantics=global': {
    observe: async (ref) => {
      const one = await commitOps(ref, [op(ref), op(ref)]);
      const two = await commitOps(ref, [op(ref)]);
      const seqs = [...one.json.data.results, ...two.json.data.results].map((r: { seq: number }) => r.seq);
      return [seqs[1]! - seqs[0]!, seqs[2]! - seqs[1]!, two.json.data.results[0].high_water - seqs[2]!];
    },
    byDefault: [1, -1, 0],
    switched: [1, 1, 0],
  },
  'pouch-existence=must-exist': {
    observe: async (ref) => {
      const listed = ref.fixture.pouchIds![0]!;
      const profile = ref.profile as { pouchIds: string[] };
      return [await status(commitOps(ref, [op(ref)])), await status(commitOps(ref, [op(ref)], listed)), profile.pouchIds.length, await status(commit(ref, listed, commitBody([op(ref)]), { account: 'secondary' }))];
    },
    // The profile lists the fixture's pouches whatever the reading (a staging profile lists its device's pouches).
    byDefault: [200, 200, LISTED_IDS, 403],
    switched: [404, 200, LISTED_IDS, 403],
  },
  'usage-row-key=day-assistant': {
    // Same day and assistant, three models: totals 10, 20, then 5.
    observe: async (ref) => {
      const id = sourceId();
      return [await stored(ref, id, [{ model: 'a', input: 10 }]), await stored(ref, id, [{ model: 'b', input: 20 }]), await stored(ref, id, [{ model: 'c', input: 5 }])];
    },
    byDefault: [1, 1, 1],
    switched: [1, 1, 0],
  },
  'usage-stored-meaning=rows-held': {
    observe: async (ref) => {
      const id = sourceId();
      return [await stored(ref, id, [{ model: 'a' }, { model: 'b' }]), await stored(ref, id, [{ model: 'a' }])];
    },
    byDefault: [2, 0],
    switched: [2, 2],
  },
  'usage-stored-meaning=rows-accepted': {
    observe: async (ref) => {
      const id = sourceId();
      return [await stored(ref, id, [{ model: 'a' }, { model: 'b' }]), await stored(ref, id, [{ model: 'a' }])];
    },
    byDefault: [2, 0],
    switched: [2, 1],
  },
  'usage-counters-negative=rejected': {
    observe: async (ref) => [await usageStatus(ref, { input: -1 }), await usageStatus(ref, { input: 0 })],
    byDefault: [200, 200],
    switched: [400, 200],
  },
  'usage-day-window=not-future': {
    observe: async (ref) => [await usageStatus(ref, { day: '2099-12-31' }), await usageStatus(ref, { day: utcToday() })],
    byDefault: [200, 200],
    switched: [400, 200],
  },
  'day-calendar-valid=pattern-only': {
    observe: async (ref) => [await usageStatus(ref, { day: '2026-02-30' }), await usageStatus(ref, { day: '2026-13-01' })],
    byDefault: [400, 400],
    switched: [200, 200],
  },
  'characters-are-code-points=utf16': {
    observe: async (ref) => [await usageStatus(ref, { model: '😀'.repeat(max('modelLength')) }), await usageStatus(ref, { model: 'é'.repeat(max('modelLength')) })],
    byDefault: [200, 200],
    switched: [400, 200],
  },
  'characters-are-code-points=bytes': {
    observe: async (ref) => [
      await usageStatus(ref, { model: '😀'.repeat(max('modelLength')) }),
      await usageStatus(ref, { model: 'é'.repeat(max('modelLength')) }),
      await usageStatus(ref, { model: 'm'.repeat(max('modelLength')) }),
    ],
    byDefault: [200, 200, 200],
    switched: [400, 400, 200],
  },
  'empty-lists=rejected': {
    // Required lists without a stated minimum are refused empty; optional ones (4.6 key_envelopes, the roster's, "default empty") are not.
    observe: async (ref) => [
      await status(commitOps(ref, [op(ref, { blob_ids: [] })])),
      await status(reportUsage(ref, sourceId(), [])),
      await status(unlock(ref, [])),
      await status(call(ref, 'POST', `/v1/cli-auth/requests/${randomUUID()}/approve`, { statement, welcome: 'w', key_envelopes: [] }, BROWSER)),
      await status(call(ref, 'PUT', '/v1/account/unlock', { statements: [statement], key_envelopes: [] }, BROWSER)),
      await status(call(ref, 'POST', `/v1/browsers/${randomUUID()}/revoke`, { roster: { statements: [statement], key_envelopes: [] } }, BROWSER)),
      await status(commitOps(ref, [op(ref, { blob_ids: ['b1'] })])),
    ],
    byDefault: [200, 200, 200, 200, 200, 200, 200],
    switched: [400, 400, 400, 400, 200, 200, 200],
  },
  'unknown-fields-ignored=rejected': {
    // Unknown members at the top, inside an op, inside a statement; and inside the free-form 4.4 response (always accepted).
    observe: async (ref) => [
      await status(call(ref, 'PUT', '/v1/account/unlock', { statements: [statement], extra: 1 }, BROWSER)),
      await status(commitOps(ref, [op(ref, { future_field: 'x' })])),
      await status(unlock(ref, [{ ...statement, note: 'n' }])),
      await status(call(ref, 'POST', '/v1/account/passkeys', { response: { anything: { at: ['all'] } }, statement }, BROWSER)),
    ],
    byDefault: [200, 200, 200, 200],
    switched: [400, 400, 400, 200],
  },
  'duplicate-keys=last-wins': {
    observe: (ref) => status(call(ref, 'POST', `/v1/browsers/${randomUUID()}/revoke`, '{"reason":"a","reason":"b"}', BROWSER)),
    byDefault: 400,
    switched: 200,
  },
  'content-type-json-only=sniffed': {
    observe: (ref) => status(send(ref.url, { method: 'PUT', path: '/v1/account/unlock', headers: { 'content-type': 'text/plain', ...authHeaders(ref, BROWSER) }, body: '{"statements":[]}' })),
    byDefault: 415,
    switched: 200,
  },
  'cli-request-exists=profile-ids': {
    observe: async (ref) => {
      const listed = ref.fixture.cliRequestIds![0]!;
      const one = await approve(ref, listed);
      const two = await approve(ref, listed);
      return [await status(approve(ref, randomUUID())), one.status, one.json.data.device_id === two.json.data.device_id, (ref.profile as { cliRequestIds: string[] }).cliRequestIds.length];
    },
    byDefault: [200, 200, true, 0],
    switched: [404, 200, false, LISTED_IDS],
  },
  'browser-exists=profile-ids': {
    observe: async (ref) => {
      const [b1, b2] = ref.fixture.browserIds!;
      return [
        await revoke(ref, randomUUID()),
        await revoke(ref, b1!),
        await revoke(ref, b1!),
        await revoke(ref, b2!, { account: 'secondary', kind: 'browser' }),
        (ref.profile as { browserIds: string[] }).browserIds.length,
      ];
    },
    byDefault: [200, 200, 200, 200, 0],
    switched: [404, 200, 200, 403, LISTED_IDS],
  },
  'head-seq-semantics=per-statement': {
    observe: async (ref) => {
      const h = [];
      for (const n of [2, 0, 1]) h.push((await unlock(ref, Array.from({ length: n }, () => statement))).json.data.head_seq as number);
      return [h[1]! - h[0]!, h[2]! - h[1]!];
    },
    byDefault: [1, 1],
    switched: [0, 1],
  },
};

/** Every key a demo must exist for: each alternative, and `any-4xx` asked by name where the reference's default behaviour is one of several it allows. */
const EXPECTED_KEYS: ReadingKey[] = [...ALTERNATIVES.map(keyOf), 'error-response=any-4xx', 'conflict-status=any-4xx'];

const readingOf = (key: ReadingKey): Readings => {
  const eq = key.indexOf('=');
  return { [key.slice(0, eq)]: key.slice(eq + 1) } as Readings;
};

let byDefault: RunningReference;
beforeAll(async () => {
  byDefault = await startReference();
});
afterAll(async () => {
  await byDefault.close();
});

describe('every reading changes HTTP behaviour as its registry meaning says', () => {
  it('has a demonstration for every alternative of every assumption a server decides', () => {
    expect(SWITCHABLE.length).toBeGreaterThanOrEqual(25);
    expect(Object.keys(DEMOS).sort()).toEqual([...EXPECTED_KEYS].sort());
  });

  it.each(EXPECTED_KEYS.map((k) => [k]))('%s', async (key) => {
    const demo = DEMOS[key as ReadingKey]!;
    const ref = await startReference({ readings: readingOf(key as ReadingKey) });
    try {
      expect(ref.readings).toEqual(key.endsWith('=any-4xx') ? {} : readingOf(key as ReadingKey));
      expect(await demo.observe(byDefault)).toEqual(demo.byDefault);
      expect(await demo.observe(ref)).toEqual(demo.switched);
    } finally {
      await ref.close();
    }
  });
});

describe('conflicts under the four combinations of conflict-behaviour and batch-atomicity', () => {
  const combos: [Readings, unknown][] = [
    [{}, [409, 0, false]],
    [{ 'conflict-behaviour': 'per-op-status' }, [200, ['aborted', 'conflict'], false]],
    [{ 'batch-atomicity': 'per-op' }, [409, ['applied'], true]],
    [{ 'conflict-behaviour': 'per-op-status', 'batch-atomicity': 'per-op' }, [200, ['applied', 'conflict'], true]],
  ];
  it.each(combos.map(([r, want]) => [JSON.stringify(r), r, want] as const))('%s', async (_, readings, want) => {
    const ref = await startReference({ readings });
    try {
      expect(await freshAndConflicting(ref)).toEqual(want);
    } finally {
      await ref.close();
    }
  });

  it('per-op-status: an applied op has its seq, a refused one seq 0, and a replay of the batch answers the same results', async () => {
    const ref = await startReference({ readings: { 'conflict-behaviour': 'per-op-status', 'batch-atomicity': 'per-op' } });
    try {
      const { pouch, a } = await seeded(ref);
      const body = commitBody([op(ref), op(ref, { artifact_id: a['artifact_id'] as string })]);
      const r = await commit(ref, pouch, body);
      expect(r.json.data.results.map((x: { seq: number }) => x.seq)).toEqual([2, 0]);
      expect(r.json.data.results.map((x: { high_water: number }) => x.high_water)).toEqual([2, 2]);
      expect((await commit(ref, pouch, body)).json.data).toEqual(r.json.data);
    } finally {
      await ref.close();
    }
  });

  it('per-op with reject-request: the 4xx carries the applied results, and a replay does not apply again', async () => {
    const ref = await startReference({ readings: { 'batch-atomicity': 'per-op', 'conflict-status': '412' } });
    try {
      const { pouch, a } = await seeded(ref);
      const fresh = op(ref);
      const body = commitBody([fresh, op(ref, { artifact_id: a['artifact_id'] as string })]);
      const r = await commit(ref, pouch, body);
      expect(r.status).toBe(412);
      expect(r.json.ok).toBe(false);
      expect(r.json.data.results).toEqual([{ status: 'applied', artifact_id: fresh['artifact_id'], revision_id: fresh['revision_id'], seq: 2, high_water: 2 }]);
      const replay = await commit(ref, pouch, body);
      expect([replay.status, replay.json.data]).toEqual([412, r.json.data]);
      const next = await commitOps(ref, [op(ref)], pouch);
      expect(next.json.data.results[0].seq).toBe(3);
    } finally {
      await ref.close();
    }
  });

  it('per-op-status with atomic batches: a conflict leaves nothing applied, and the operation_id can be retried', async () => {
    const ref = await startReference({ readings: { 'conflict-behaviour': 'per-op-status' } });
    try {
      const { pouch, a } = await seeded(ref);
      const operationId = randomUUID();
      const bad = await commit(ref, pouch, commitBody([op(ref), op(ref, { artifact_id: a['artifact_id'] as string })], operationId));
      expect(statuses(bad)).toEqual(['aborted', 'conflict']);
      const retried = await commit(ref, pouch, commitBody([op(ref)], operationId));
      expect([retried.status, statuses(retried), retried.json.data.results[0].seq]).toEqual([200, ['applied'], 2]);
    } finally {
      await ref.close();
    }
  });
});

describe('faults combined with readings still show their defect', () => {
  /** What `f` observes of a reference served with these faults and readings, closed after. */
  const served = async <T>(o: { faults?: FaultName[]; readings: Readings }, f: (ref: RunningReference) => Promise<T>): Promise<T> => {
    const ref = await startReference(o);
    try {
      return await f(ref);
    } finally {
      await ref.close();
    }
  };
  const withBoth = async <T>(fault: FaultName, readings: Readings, f: (ref: RunningReference) => Promise<T>): Promise<T> => {
    expect(faultReadingConflict(fault, readings)).toBeUndefined();
    return served({ faults: [fault], readings }, f);
  };
  const perOpStatus: Readings = { 'conflict-behaviour': 'per-op-status' };

  it('stale-base-accepted under per-op-status: a stale update is applied', async () => {
    const observed = await withBoth('stale-base-accepted', perOpStatus, async (ref) => {
      const { pouch, a } = await seeded(ref);
      await commitOps(ref, [updateOf(ref, a)], pouch);
      return statuses(await commitOps(ref, [updateOf(ref, a)], pouch));
    });
    expect(observed).toEqual(['applied']);
  });

  it('partial-batch under per-op-status: the batch is reported not applied, yet its first op stays applied', async () => {
    const observed = await withBoth('partial-batch', perOpStatus, freshAndConflicting);
    expect(observed).toEqual([200, ['aborted', 'conflict'], true]);
  });

  it('check-then-act-race under per-op-status: concurrent updates on one base can all be applied', async () => {
    const observed = await withBoth('check-then-act-race', perOpStatus, async (ref) => {
      let winners = 0;
      for (let round = 0; round < 3 && winners <= 1; round++) winners = (await raceOnOneBase(ref)).seqs.length;
      return winners;
    });
    expect(observed).toBeGreaterThan(1);
  });

  it('separate-pouch-leak: the second account changes the first account\'s artifact, where a correct separate-pouch server refuses', async () => {
    const observe = async (ref: RunningReference) => {
      const { pouch, a } = await seeded(ref);
      const foreign = await status(commit(ref, pouch, commitBody([updateOf(ref, a)]), { account: 'secondary' }));
      return [foreign, await status(commitOps(ref, [updateOf(ref, a)], pouch))];
    };
    expect(await served({ readings: { 'cross-account-isolation': 'separate-pouch' } }, observe)).toEqual([409, 200]);
    expect(await withBoth('separate-pouch-leak', {}, observe)).toEqual([200, 409]);
  });

  it('revision-owner-last: artifact A reuses its own revision id once B has used it, where a correct per-artifact server refuses', async () => {
    const observe = async (ref: RunningReference) => {
      const { pouch, a } = await seeded(ref);
      const r = a['revision_id'] as string;
      const other = await status(commitOps(ref, [op(ref, { revision_id: r })], pouch));
      return [other, await status(commitOps(ref, [updateOf(ref, a, { revision_id: r })], pouch))];
    };
    expect(await served({ readings: { 'revision-id-unique': 'per-artifact' } }, observe)).toEqual([200, 409]);
    expect(await withBoth('revision-owner-last', {}, observe)).toEqual([200, 200]);
  });

  it('operation-id-ignored with conflict-status=412: the retried commit is refused with 412', async () => {
    const observed = await withBoth('operation-id-ignored', { 'conflict-status': '412' }, async (ref) => {
      const pouch = randomUUID();
      const body = commitBody([op(ref)]);
      return [await status(commit(ref, pouch, body)), await status(commit(ref, pouch, body))];
    });
    expect(observed).toEqual([200, 412]);
  });

  it('usage-summed keyed by day and assistant: a re-sent row is added up', async () => {
    const observed = await withBoth('usage-summed', { 'usage-row-key': 'day-assistant' }, async (ref) => {
      const id = sourceId();
      await stored(ref, id, [{ input: 10 }]);
      // Another model on the same day and assistant is the same row under this key: re-sent, a correct server changes nothing.
      return stored(ref, id, [{ input: 10, model: 'other' }]);
    });
    expect(observed).toBe(1);
  });

  it('a fault that is a reading switches that reading on, and refuses to run with another value of it', async () => {
    const ref = await startReference({ faults: ['auth-ignored'] });
    try {
      expect(ref.readings).toEqual({ 'credentials-required': 'open' });
    } finally {
      await ref.close();
    }
    await expect(startReference({ faults: ['auth-ignored'], readings: { 'credentials-required': 'rejected' } })).rejects.toThrow(
      'fault "auth-ignored" needs credentials-required=open, but the chosen readings say credentials-required=rejected',
    );
    expect(faultReadingConflict('auth-ignored', { 'credentials-required': 'rejected' })).toMatch(/is the reading credentials-required=open/);
    expect(faultReadingConflict('separate-pouch-leak', { 'cross-account-isolation': 'refused' })).toMatch(/needs the reading cross-account-isolation=separate-pouch/);
  });

  it('every fault that departs from a reading is that reading, and the conflict table names real faults and readings', () => {
    // Defects of behaviour the spec is silent on that are no reading of their own (seq counted per batch…).
    const silentDefects = [
      'revision-reuse-accepted',
      'partial-batch',
      'seq-per-batch',
      'high-water-stale',
      'unlock-head-seq-stuck',
      'duplicate-keys-first-only',
      'create-base-ignored',
      'duplicate-keys-escaped',
      'content-type-exact',
      'body-cap-1mib',
      'body-cap-30mb',
      'artifacts-keyed-by-id',
      'revision-owner-last',
      'revision-batch-unchecked',
      'signature-kid-fallback',
      'commit-unlisted-member-refused',
    ];
    for (const f of FAULTS) {
      if (f.reading) expect(f.deviatesFrom, f.name).toBe(f.reading.name);
      else expect(f.deviatesFrom !== undefined, f.name).toBe(silentDefects.includes(f.name));
      if (f.reading) expect(ALTERNATIVES.map(keyOf), f.name).toContain(keyOf(f.reading));
    }
    expect(FAULTS.filter((f) => f.reading).map((f) => f.name).sort()).toEqual(
      ['auth-ignored', 'content-type-unchecked', 'day-pattern-only', 'duplicate-keys-last-wins', 'length-in-utf16', 'no-batch-chaining', 'operation-id-ignored', 'signature-kid-unbound', 'signature-low-s-only', 'signature-raw-bytes'].sort(),
    );
    for (const c of FAULT_READING_CONFLICTS) {
      expect(ALTERNATIVES.map(keyOf)).toContain(keyOf(c.reading));
      expect(faultReadingConflict(c.fault, { [c.reading.name]: c.reading.value } as Readings)).toBe(c.why);
    }
  });
});

describe('reading switches', () => {
  it('refuse unknown names and values with the registry\'s message', async () => {
    await expect(startReference({ readings: { 'no-such': 'x' } as unknown as Readings })).rejects.toThrow(/unknown assumption "no-such"; known: canonical-json, /);
    await expect(startReference({ readings: { 'conflict-behaviour': 'maybe' } as unknown as Readings })).rejects.toThrow(
      'assumption "conflict-behaviour" has no reading "maybe"; choose one of: reject-request, per-op-status',
    );
    expect(() => parseReadingArgs(['seq-semantics'])).toThrow('reading "seq-semantics" is not NAME=VALUE');
    expect(() => parseReadingArgs(['seq-semantics=global,seq-semantics=per-pouch'])).toThrow('reading "seq-semantics" given twice');
    expect(parseReadingArgs(['seq-semantics=global, usage-stored-meaning=rows-held', 'empty-lists=rejected'])).toEqual({
      'seq-semantics': 'global',
      'usage-stored-meaning': 'rows-held',
      'empty-lists': 'rejected',
    });
  });

  it('say where each assumption is decided, and every server-decided one in the reference', () => {
    for (const a of ASSUMPTIONS) expect(READING_SITES[a.name] === 'harness', a.name).toBe(a.decidedBy === 'harness');
  });

  it('record what the server asked for: a commit that applies asks no reading of how conflicts are refused; one that conflicts does', async () => {
    const ref = await startReference({ port: 0 });
    try {
      const pouch = randomUUID();
      const a = op(ref);
      expect((await commitOps(ref, [a], pouch)).status).toBe(200);
      const applied = ref.consultedReadings();
      expect(applied.has('canonical-json')).toBe(true);
      expect(applied.has('conflict-status')).toBe(false);
      // The same create again: a conflict, refused as conflict-status says.
      expect((await commitOps(ref, [{ ...a, revision_id: randomUUID() }], pouch)).status).toBe(409);
      expect(ref.consultedReadings().has('conflict-status')).toBe(true);
    } finally {
      await ref.close();
    }
  });

  it('answer typed questions; misspelled names and values do not compile', () => {
    const r = new ReadingSet({ 'conflict-behaviour': 'per-op-status' });
    const behaviour: 'reject-request' | 'per-op-status' = r.of('conflict-behaviour');
    expect(behaviour).toBe('per-op-status');
    expect(r.of('batch-atomicity')).toBe('atomic');
    expect(r.is('seq-semantics', 'per-pouch')).toBe(true);
    expect(r.chosenOf('error-response')).toBeUndefined();
    // @ts-expect-error: no such assumption
    expect(() => r.of('conflict-behavior')).not.toThrow();
    // @ts-expect-error: not a reading of conflict-behaviour
    expect(r.is('conflict-behaviour', 'per-op')).toBe(false);
    // @ts-expect-error: a Readings value is typed by its own assumption's choices
    const wrong: Readings = { 'seq-semantics': 'per-request' };
    expect(wrong).toBeDefined();
    const faults = new FaultSet(['partial-batch']);
    expect(faults.has('partial-batch')).toBe(true);
    // @ts-expect-error: FaultName is a literal union, not string
    expect(faults.has('partial-batch-typo')).toBe(false);
    // @ts-expect-error: misspelled fault name
    const name: FaultName = 'auth-ignore';
    expect(name).toBe('auth-ignore');
  });
});

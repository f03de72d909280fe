import { createServer, type Server } from 'node:http';
import { canonicalize } from '../../src/crypto/canonical.ts';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDeviceKey, publicKeyFromJwk } from '../../src/crypto/keys.ts';
import { verifyServiceSignature, type CanonicalForm, type JwsForm } from '../../src/crypto/service-signature.ts';
import { TargetClient, type CallOptions } from '../../src/target/client.ts';
import { parseProfile, type Profile } from '../../src/target/profile.ts';

const DEVICE_ID = '3f0e8a52-6c1d-4b7e-9a2f-0c5d8e7b6a14';
const key = generateDeviceKey();
const publicKey = publicKeyFromJwk(key.publicJwk);

interface Arrival {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Bytes received so far (grows while the body arrives). */
  received: number;
  ended: boolean;
}
const arrivals: Arrival[] = [];
let server: Server;
let base: string;

const ENVELOPE = { ok: true, data: { results: [] }, meta: { request_id: 'r' } };

beforeAll(async () => {
  server = createServer((req, res) => {
    const a: Arrival = { headers: req.headers, body: Buffer.alloc(0), received: 0, ended: false };
    arrivals.push(a);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      chunks.push(c);
      a.received += c.length;
    });
    req.on('end', () => {
      a.ended = true;
      a.body = Buffer.concat(chunks);
      const text = JSON.stringify(ENVELOPE);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

function profileWith(assumptions: Record<string, string> = {}): Profile {
  return parseProfile(
    {
      baseUrl: base,
      accounts: {
        primary: {
          browser: { headers: { authorization: 'Bearer b' } },
          device: { headers: { authorization: 'Bearer d' }, deviceId: DEVICE_ID, privateJwk: key.privateJwk as { kty: string } },
        },
      },
      timeouts: { requestMs: 5000 },
      connections: 8,
      assumptions,
    },
    { env: {} },
  );
}

const COMMIT_BODY = {
  operation_id: '8a6c4e2b-1d3f-4a5b-8c7d-9e0f1a2b3c4d',
  epoch: '8a6c4e2b-1d3f-4a5b-8c7d-9e0f1a2b3c4e',
  ops: [{ type: 'create', note: 'é ☃', z: 1, a: [true, null, 1.5] }],
};

/** Calls commitOperations and verifies what the server received, as a server would. */
async function sendAndVerify(client: TargetClient, o: Partial<CallOptions>, form: { canonical?: CanonicalForm; jwsForm?: JwsForm } = {}) {
  const ex = await client.call({ endpoint: 'commitOperations', params: { pouchId: '8a6c4e2b-1d3f-4a5b-8c7d-9e0f1a2b3c4f' }, body: COMMIT_BODY, ...o });
  const got = arrivals.at(-1)!;
  let parsed: unknown;
  try {
    parsed = JSON.parse(got.body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const header = got.headers['service-signature'];
  const result = verifyServiceSignature({
    header: typeof header === 'string' ? header : undefined,
    rawBody: got.body,
    parsedBody: parsed,
    keyFor: (kid) => (kid === DEVICE_ID ? publicKey : undefined),
    expectedKid: DEVICE_ID,
    ...form,
  });
  return { ex, header, result };
}

describe('Service-Signature', () => {
  it('a device commit is signed so that the real verifier accepts it', async () => {
    const c = new TargetClient(profileWith());
    try {
      const { ex, header, result } = await sendAndVerify(c, {});
      expect(ex.verdict).toBe('accepted');
      expect(header).toMatch(/^[\w-]+\.\.[\w-]+$/);
      expect(ex.request.headers['service-signature']).toBe(header);
      expect(result).toEqual({ ok: true, kid: DEVICE_ID });
    } finally {
      await c.close();
    }
  });

  it('the profile assumptions choose the canonical and JWS forms', async () => {
    const c = new TargetClient(profileWith({ 'canonical-json': 'raw-bytes', 'jws-form': 'b64-text-payload' }));
    try {
      const rawBody = '{ "z": 1,\n  "a": "x" }';
      const right = await sendAndVerify(c, { rawBody }, { canonical: 'raw-bytes', jwsForm: 'b64-text-payload' });
      expect(right.result.ok).toBe(true);
      const wrong = await sendAndVerify(c, { rawBody }, {});
      expect(wrong.result.ok).toBe(false);
    } finally {
      await c.close();
    }
  });

  it('a raw body is signed over its parsed form; a non-JSON raw body goes unsigned under rfc8785', async () => {
    const c = new TargetClient(profileWith());
    try {
      const reordered = await sendAndVerify(c, { rawBody: '{"b":2,   "a":[1,2]}' });
      expect(reordered.result.ok).toBe(true);
      const notJson = await sendAndVerify(c, { rawBody: '{"b":' });
      expect(notJson.header).toBeUndefined();
    } finally {
      await c.close();
    }
  });

  it('omit, an explicit header, and a browser caller', async () => {
    const c = new TargetClient(profileWith());
    try {
      expect((await sendAndVerify(c, { signature: 'omit' })).header).toBeUndefined();
      expect((await sendAndVerify(c, { signature: { header: 'a..b' } })).header).toBe('a..b');
      expect((await sendAndVerify(c, { signature: { header: undefined } })).header).toBeUndefined();
      expect((await sendAndVerify(c, { as: { member: 'browser' } })).header).toBeUndefined();
      expect((await sendAndVerify(c, { headers: { 'service-signature': undefined } })).header).toBeUndefined();
    } finally {
      await c.close();
    }
  });
});

describe('gate', () => {
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('holds the last byte until the gate opens', async () => {
    const c = new TargetClient(profileWith());
    try {
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      let held!: () => void;
      const heldP = new Promise<void>((r) => (held = r));
      const before = arrivals.length;
      const p = c.call({ endpoint: 'commitOperations', params: { pouchId: 'p' }, body: COMMIT_BODY, gate, onHeld: held });
      await heldP;
      // Give the bytes already written every chance to arrive.
      for (let i = 0; i < 50 && (arrivals.length === before || arrivals.at(-1)!.received < Buffer.byteLength(canonicalize(COMMIT_BODY)) - 1); i++) await wait(10);
      await wait(100);
      const a = arrivals.at(-1)!;
      expect(arrivals.length).toBe(before + 1);
      expect(a.received).toBe(Buffer.byteLength(canonicalize(COMMIT_BODY)) - 1);
      expect(a.ended).toBe(false);
      open();
      const ex = await p;
      expect(ex.verdict).toBe('accepted');
      expect(a.ended).toBe(true);
      expect(a.body.toString()).toBe(canonicalize(COMMIT_BODY));
      expect(a.headers['content-length']).toBe(String(a.body.length));
      expect(a.headers['transfer-encoding']).toBeUndefined();
    } finally {
      await c.close();
    }
  });

  it('releases N held requests together', async () => {
    const c = new TargetClient(profileWith());
    const N = 6;
    try {
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      const helds: Promise<void>[] = [];
      const before = arrivals.length;
      const calls = Array.from({ length: N }, (_, i) => {
        let held!: () => void;
        helds.push(new Promise<void>((r) => (held = r)));
        return c.call({ endpoint: 'commitOperations', params: { pouchId: `p${i}` }, body: { ...COMMIT_BODY, i }, gate, onHeld: held });
      });
      await Promise.all(helds);
      await wait(100);
      const mine = arrivals.slice(before);
      expect(mine.length).toBe(N);
      expect(mine.every((a) => !a.ended)).toBe(true);
      open();
      const exs = await Promise.all(calls);
      expect(exs.map((e) => e.verdict)).toEqual(Array(N).fill('accepted'));
      expect(mine.every((a) => a.ended)).toBe(true);
      // Each request stays correctly signed over its whole body.
      for (const a of mine) {
        const r = verifyServiceSignature({
          header: a.headers['service-signature'] as string,
          rawBody: a.body,
          parsedBody: JSON.parse(a.body.toString()),
          keyFor: () => publicKey,
          expectedKid: DEVICE_ID,
        });
        expect(r.ok).toBe(true);
      }
    } finally {
      await c.close();
    }
  });

  it('a gate that never opens ends at the time bound', async () => {
    const c = new TargetClient(profileWith());
    try {
      const ex = await c.call({ endpoint: 'commitOperations', params: { pouchId: 'p' }, body: COMMIT_BODY, gate: new Promise<void>(() => {}), timeoutMs: 200 });
      expect(ex.verdict).toBe('transport-error');
      expect(ex.reason).toBe('not completed: the gate did not open within 200 ms');
    } finally {
      await c.close();
    }
  });

  it('a rejected gate abandons the request', async () => {
    const c = new TargetClient(profileWith());
    try {
      const ex = await c.call({ endpoint: 'commitOperations', params: { pouchId: 'p' }, body: COMMIT_BODY, gate: Promise.reject(new Error('x')) });
      expect(ex.verdict).toBe('transport-error');
      expect(ex.reason).toBe('not sent: the gate promise was rejected');
    } finally {
      await c.close();
    }
  });
});

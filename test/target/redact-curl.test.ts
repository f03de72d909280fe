import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDeviceKey } from '../../src/crypto/keys.ts';
import { TargetClient, type CallOptions, type Exchange } from '../../src/target/client.ts';
import { shellQuote, toCurl } from '../../src/target/curl.ts';
import { parseProfile, type Profile } from '../../src/target/profile.ts';
import { redact, redactBytes } from '../../src/target/redact.ts';
import { formatExchange } from '../../src/target/render.ts';
import { curlTests } from './need-curl.ts';

const TOKEN = 'tok-9f8e7d6c5b4a';
const DEVICE_ID = '3f0e8a52-6c1d-4b7e-9a2f-0c5d8e7b6a14';
const key = generateDeviceKey();

const { withCurl, requireCurl } = curlTests('test/target/redact-curl.test.ts', 'the 3 tests that replay curl lines');

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}
const seen: Seen[] = [];
let server: Server;
let base: string;
let profile: Profile;
let client: TargetClient;

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    // Raw bytes as latin1, so a non-ASCII value compares byte for byte.
    out[req.rawHeaders[i]!.toLowerCase()] = req.rawHeaders[i + 1]!;
  }
  return out;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: headersOf(req), body: Buffer.concat(chunks) });
      const text = JSON.stringify({ ok: true, data: { stored: 0 }, meta: { request_id: 'r' } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  profile = parseProfile(
    {
      baseUrl: base,
      accounts: {
        primary: {
          device: { headers: { authorization: `Bearer ${TOKEN}` }, deviceId: DEVICE_ID, privateJwk: key.privateJwk as { kty: string } },
        },
      },
      connections: 2,
    },
    { env: {} },
  );
  client = new TargetClient(profile);
});

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('redact', () => {
  it('masks every occurrence, the longer secret first', () => {
    expect(redact('abc abcdef abc', ['abc', 'abcdef'])).toBe('*** *** ***');
  });
  it('masks JSON-escaped, base64url and percent-encoded forms', () => {
    const s = 'p"a\\ss/wörd+';
    expect(redact(JSON.stringify({ x: s }), [s])).toBe('{"x":"***"}');
    expect(redact(`t=${Buffer.from(s).toString('base64url')}`, [s])).toBe('t=***');
    expect(redact(`q=${encodeURIComponent(s)}&`, [s])).toBe('q=***&');
  });
  it('ignores empty secrets and leaves other text alone', () => {
    expect(redact('nothing here', ['', 'zzz'])).toBe('nothing here');
  });
  it('masks bytes of a non-UTF-8 body', () => {
    const body = Buffer.concat([Buffer.from([0xff, 0x00]), Buffer.from('Bearer wörd'), Buffer.from([0xfe])]);
    expect(Buffer.from(redactBytes(body, ['wörd'])).equals(Buffer.concat([Buffer.from([0xff, 0x00]), Buffer.from('Bearer ***'), Buffer.from([0xfe])]))).toBe(true);
  });
});

describe('toCurl', () => {
  it('quotes single quotes for sh', () => {
    const out = execFileSync('sh', ['-c', `printf %s ${shellQuote("it's a 'test'\n$HOME `x`")}`]).toString();
    expect(out).toBe("it's a 'test'\n$HOME `x`");
  });

  const runCurl = (line: string): Promise<string> =>
    new Promise((resolve, reject) => {
      execFile('sh', ['-c', line], { timeout: 10_000, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' } }, (err, stdout) =>
        err ? reject(err) : resolve(stdout),
      );
    });

  /** Sends `o` with the client, replays its curl line, and checks the server saw the same request. */
  async function roundTrip(o: Partial<CallOptions>): Promise<Exchange> {
    requireCurl();
    const ex = await client.call({ endpoint: 'reportUsage', params: { sourceId: 'abc' }, body: { rows: [] }, ...o });
    expect(ex.verdict).toBe('accepted');
    const original = seen.at(-1)!;
    const line = toCurl(ex, []);
    await runCurl(line);
    const replay = seen.at(-1)!;
    expect(replay).not.toBe(original);
    expect(replay.method).toBe(original.method);
    expect(replay.url).toBe(original.url);
    expect(replay.body.equals(original.body)).toBe(true);
    const strip = (h: Record<string, string>) => {
      const { host: _h, connection: _c, ...rest } = h;
      return rest;
    };
    expect(strip(replay.headers)).toEqual(strip(original.headers));
    return ex;
  }

  withCurl('reproduces a JSON body with quotes, newlines and non-ASCII text (needs curl)', async () => {
    const ex = await roundTrip({ body: { rows: [], s: "it's \"q\"\n\t$x `y` ☃ é" }, headers: { 'x-empty': '' } });
    expect(toCurl(ex, [])).toContain('--data-binary \'');
  });

  withCurl('reproduces binary bytes, %, backslashes and a leading @ through printf (needs curl)', async () => {
    const bytes = Buffer.from([0x40, 0x00, 0xff, 0x25, 0x5c, 0x27, 0x0d, 0x0a, 0x7f, 0xc3, 0x28, 0x41]);
    const ex = await roundTrip({ rawBody: new Uint8Array(bytes) });
    expect(toCurl(ex, [])).toMatch(/^printf '.*' \| curl /);
  });

  withCurl('names a body over the bound as a file to write first; written there, the line reproduces the request (needs curl)', async () => {
    requireCurl();
    const big = 'x'.repeat(20_000);
    const ex = await client.call({ endpoint: 'reportUsage', params: { sourceId: 'abc' }, body: { rows: [], big } });
    const original = seen.at(-1)!;
    const line = toCurl(ex, [], { maxBodyBytes: 8_000 });
    expect(line).not.toContain(big.slice(0, 8_000));
    expect(line).toContain(`# the ${ex.request.body.byteLength}-byte request body is not written here (over 8000 bytes): write it to body-${ex.id}.bin first`);
    const dir = await mkdtemp(join(tmpdir(), 'pouchproof-curl-'));
    try {
      await writeFile(join(dir, `body-${ex.id}.bin`), ex.request.body);
      await runCurl(`cd '${dir}' && ${line}`);
      expect(seen.at(-1)!.body.equals(original.body)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  withCurl('reproduces a body beginning with @, an empty body, header removal and a latin-1 header (needs curl)', async () => {
    await roundTrip({ rawBody: '@/etc/passwd' });
    await roundTrip({ body: undefined, headers: { 'content-type': undefined } });
    await roundTrip({ headers: { 'x-latin': 'caf\u00e9' } });
  });

  it('masks every secret, in headers and in the body, and says so', async () => {
    const ex = await client.call({
      endpoint: 'commitOperations',
      params: { pouchId: DEVICE_ID },
      body: { token: TOKEN, d: key.privateJwk.d, jwk: key.privateJwk },
    });
    const line = toCurl(ex, profile.secrets);
    for (const s of [TOKEN, key.privateJwk.d!, JSON.stringify(key.privateJwk)]) expect(line).not.toContain(s);
    expect(line).toContain("-H 'authorization: ***'");
    expect(line).toMatch(/^# exchange #\d+ \(commitOperations\); values shown as \*\*\* are secrets/);
    expect(line).toContain('"token":"***"');
    expect(line).toContain("-H 'service-signature: "); // derived, not a secret
    const rendered = formatExchange(ex, profile.secrets);
    for (const s of [TOKEN, key.privateJwk.d!]) expect(rendered).not.toContain(s);
    expect(rendered).toMatch(/^#\d+ commitOperations: POST .* → 200: protocol-error \(200 response breaks the 4.2 response schema: data.results: required\)/);
    expect(rendered).toContain('> authorization: ***');
  });

  it('a line without secrets has no comment', async () => {
    const ex = await client.call({ endpoint: 'reportUsage', params: { sourceId: 'x' }, body: { rows: [] }, as: 'anonymous' });
    expect(toCurl(ex, profile.secrets)).toMatch(/^curl -sS -i --http1\.1 -X 'PUT' /);
  });
});

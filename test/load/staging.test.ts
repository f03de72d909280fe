/**
 * The load engine's own connections take the profile's route as the conformance client does: its
 * TLS block (private CA, client certificate), its headers (under a request's own), and its proxy
 * (a CONNECT tunnel for an https target, absolute form for a plain one; never for loopback). A
 * target that cannot be reached as configured is one line before any load is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioByName } from '../../scenarios/index.ts';
import { runLoad } from '../../src/load/launch.ts';
import { TargetUnreachableError } from '../../src/target/connect-probe.ts';
import type { LoadRequest } from '../../src/load/scenario.ts';
import { Sender } from '../../src/load/http1/sender.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { parseProfile, type Profile } from '../../src/target/profile.ts';
import { CLIENT_PASSPHRASE, TLS_DIR, connectProxy, httpServer, httpsServer, type TestProxy, type Running } from '../target/staging-servers.ts';

const req = (headers: Record<string, string> = { 'content-type': 'application/json' }): LoadRequest => ({ method: 'PUT', path: '/v1/usage/sources/x', headers, body: '{"rows":[]}', kind: 'k' });

const opened: Array<{ close(): Promise<void> }> = [];
let ref: RunningReference;
let proxy: TestProxy;
beforeAll(async () => {
  [ref, proxy] = await Promise.all([startReference(), connectProxy({ credentials: 'load:pw-7781' })]);
  opened.push(ref, proxy);
});
afterAll(async () => {
  for (const o of opened.splice(0)) await o.close();
});

const viaProxy = (): string => proxy.url.replace('http://', 'http://load:pw-7781@');
const tlsProfile = (url: string, tls: Record<string, unknown>, more: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}): Profile =>
  parseProfile({ baseUrl: url, tls, timeouts: { requestMs: 5000, connectMs: 3000 }, ...more }, { baseDir: TLS_DIR, env });

async function sendOne(url: string, profile: Profile, headers?: Record<string, string>) {
  const s = new Sender(url, 1, 5000, undefined, profile);
  try {
    return await s.request(req(headers)).then(
      (r) => r,
      (e: Error) => e,
    );
  } finally {
    await s.close();
  }
}

describe('TLS on the engine\'s own connections', () => {
  let mtls: Running;
  beforeAll(async () => {
    mtls = await httpsServer({ requireClientCert: true });
    opened.push(mtls);
  });

  it('verifies against tls.ca and presents the client certificate (its key encrypted, with the passphrase)', async () => {
    const p = tlsProfile(mtls.url, { ca: { file: 'ca.cert.pem' }, cert: { file: 'client.cert.pem' }, key: { file: 'client.key.enc.pem' }, passphrase: CLIENT_PASSPHRASE });
    const r = await sendOne(mtls.url, p);
    expect(r).toMatchObject({ status: 200 });
    expect(mtls.seen.at(-1)?.clientCn).toBe('pouchproof-client');
  });

  it('without a client certificate: one line naming tls.cert and tls.key', async () => {
    const r = await sendOne(mtls.url, tlsProfile(mtls.url, { ca: { file: 'ca.cert.pem' } }));
    expect(r).toBeInstanceOf(Error);
    expect((r as Error).message).toBe(`127.0.0.1:${mtls.port} requires a client certificate: set tls.cert and tls.key in the profile`);
  });

  it('a run is refused before any load when the target cannot be reached as configured (here: an untrusted certificate)', async () => {
    const server = await httpsServer();
    opened.push(server);
    const run = runLoad({
      scenario: await loadScenarioByName('usage-flood'),
      target: { profile: tlsProfile(server.url, { ca: { file: 'other-ca.cert.pem' } }), embedded: false, close: async () => undefined },
      durationMs: 500,
      workers: 0,
    });
    // A target that cannot be reached is exit 3, not pouchproof's own input (4).
    await expect(run).rejects.toThrow(TargetUnreachableError);
    await expect(run).rejects.toThrow(new RegExp(`^cannot reach the target https://127\\.0\\.0\\.1:${server.port}: the certificate of 127\\.0\\.0\\.1:${server.port} is not trusted \\(.+\\): set tls\\.ca in the profile`));
    expect(server.seen).toHaveLength(0);
  });
});

describe('profile-wide headers on the engine\'s requests', () => {
  it('are written on every request; a request\'s own header of the same name wins', async () => {
    const server = await httpServer();
    opened.push(server);
    const p = parseProfile({ baseUrl: server.url, headers: { 'X-Route': 'blue', Authorization: 'Bearer wide' } });
    await sendOne(server.url, p, { 'content-type': 'application/json', authorization: 'Bearer own' });
    await sendOne(server.url, p);
    expect(server.seen.map((s) => [s.headers['x-route'], s.headers.authorization])).toEqual([
      ['blue', 'Bearer own'],
      ['blue', 'Bearer wide'],
    ]);
  });
});

describe('through a proxy', () => {
  it('an https target: through a CONNECT tunnel, TLS verified end to end', async () => {
    const server = await httpsServer();
    opened.push(server);
    const url = `https://staging.pouchproof.test:${server.port}`;
    const before = proxy.connects.length;
    const r = await sendOne(url, tlsProfile(url, { ca: { file: 'ca.cert.pem' } }, { proxy: viaProxy() }));
    expect(r).toMatchObject({ status: 200 });
    expect(proxy.connects.slice(before)).toEqual([{ target: `staging.pouchproof.test:${server.port}`, allowed: true }]);
    expect(server.seen.at(-1)?.headers.host).toBe(`staging.pouchproof.test:${server.port}`);
  });

  it('a proxy that refuses the tunnel: one line, no credentials in it', async () => {
    const server = await httpsServer();
    opened.push(server);
    const url = `https://staging.pouchproof.test:${server.port}`;
    const r = await sendOne(url, tlsProfile(url, { ca: { file: 'ca.cert.pem' } }, { proxy: proxy.url }));
    expect((r as Error).message).toBe(`the proxy ${proxy.url} answered 407 to CONNECT staging.pouchproof.test:${server.port}: it asks for credentials; give them in the proxy URL (http://user:password@host:port)`);
  });

  it('a plain target: a whole run in absolute form through the proxy, which must be allowed (--allow-remote) and is named', async () => {
    const baseUrl = `http://staging.pouchproof.test:${new URL(ref.url).port}`;
    const profile = parseProfile({ ...ref.profile, baseUrl, proxy: viaProxy() }, { env: {} });
    const target = { profile, embedded: false, close: async () => undefined };
    const scenario = await loadScenarioByName('usage-flood');
    await expect(runLoad({ scenario, target, durationMs: 500, workers: 0 })).rejects.toThrow(
      /^staging\.pouchproof\.test:\d+ is reached through the proxy http:\/\/\*\*\*@127\.0\.0\.1:\d+ \(the profile's proxy\); pass --allow-remote to load it$/,
    );
    const lines: string[] = [];
    const before = proxy.forwarded.length;
    // In a worker thread: the profile's route travels with the job.
    const out = await runLoad({ scenario, target, durationMs: 1000, workers: 1, connections: 2, allowRemote: true, onProgress: (l) => lines.push(l) });
    expect(out.result.totals.ok).toBeGreaterThan(0);
    expect(out.result.totals.ok).toBeLessThanOrEqual(proxy.forwarded.length - before);
    expect(proxy.forwarded.slice(before).every((f) => f.startsWith(`PUT ${baseUrl}/v1/usage/sources/`))).toBe(true);
    expect(proxy.auth.at(-1)).toBe(`Basic ${Buffer.from('load:pw-7781').toString('base64')}`);
    expect(lines[0]).toMatch(/^through the proxy http:\/\/\*\*\*@127\.0\.0\.1:\d+ \(the profile's proxy\): its latency and capacity are part of every figure/);
    expect(out.secrets).toContain('pw-7781');
  });

  it('load to loopback never goes through the proxy, whatever HTTP_PROXY says', async () => {
    const profile = parseProfile(ref.profile, { env: { HTTP_PROXY: viaProxy(), HTTPS_PROXY: viaProxy() } });
    expect(profile.proxy).toBeUndefined();
    const before = proxy.forwarded.length + proxy.connects.length;
    const out = await runLoad({ scenario: await loadScenarioByName('usage-flood'), target: { profile, embedded: false, close: async () => undefined }, durationMs: 500, workers: 0, connections: 1 });
    expect(out.result.totals.ok).toBeGreaterThan(0);
    expect(proxy.forwarded.length + proxy.connects.length).toBe(before);
  });
});

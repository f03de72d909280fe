/**
 * A staging target as a platform team points pouchproof at it: TLS with a private CA, mutual TLS
 * (a client certificate, its key possibly encrypted), the name to verify, a proxy (the profile's or
 * the environment's, with NO_PROXY), and headers a gateway requires. Against node:https servers on
 * the committed test certificates and a proxy written in the test (staging-servers.ts).
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordExchange } from '../../src/check/run/exchange-record.ts';
import { TargetClient, type Exchange } from '../../src/target/client.ts';
import { toCurl } from '../../src/target/curl.ts';
import { probeConnection } from '../../src/target/connect-probe.ts';
import { parseProfile, type Profile } from '../../src/target/profile.ts';
import { curlTests } from './need-curl.ts';
import { CLIENT_PASSPHRASE, TLS_DIR, TLS_FILE, connectProxy, httpServer, httpsServer, pem, type TestProxy, type Running } from './staging-servers.ts';

const SOURCE = 'ab'.repeat(16);
const opened: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const o of opened.splice(0)) await o.close();
});

function profile(json: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Profile {
  return parseProfile({ timeouts: { requestMs: 5000, connectMs: 3000 }, ...json }, { baseDir: TLS_DIR, env });
}

async function usage(p: Profile): Promise<Exchange> {
  const c = new TargetClient(p);
  try {
    return await c.call({ endpoint: 'reportUsage', params: { sourceId: SOURCE }, body: { rows: [] } });
  } finally {
    await c.close();
  }
}

const CA = { ca: { file: 'ca.cert.pem' } };
const CLIENT = { cert: { file: 'client.cert.pem' }, key: { file: 'client.key.pem' } };

describe('TLS against a private CA', () => {
  let server: Running;
  beforeAll(async () => {
    server = await httpsServer();
    opened.push(server);
  });

  it('verifies the server against tls.ca (besides the bundled roots) and is accepted', async () => {
    const ex = await usage(profile({ baseUrl: server.url, tls: CA }));
    expect(ex.verdict, ex.reason).toBe('accepted');
    expect(server.seen.at(-1)?.url).toBe(`/v1/usage/sources/${SOURCE}`);
  });

  it('without tls.ca the certificate is not trusted: one line naming the field, and so says the connection probe', async () => {
    const p = profile({ baseUrl: server.url });
    const ex = await usage(p);
    expect(ex.verdict).toBe('transport-error');
    expect(ex.reason).toMatch(new RegExp(`^the certificate of 127\\.0\\.0\\.1:${server.port} is not trusted \\(.+\\): set tls\\.ca in the profile to the CA that signed it$`));
    const probe = await probeConnection(p, 3000);
    expect(probe).toEqual({ ok: false, reason: ex.reason, refused: false });
    expect(await probeConnection(profile({ baseUrl: server.url, tls: CA }), 3000)).toEqual({ ok: true, reason: 'connected (TLS)', refused: false });
  });

  it('trusting another CA is the same refusal', async () => {
    const ex = await usage(profile({ baseUrl: server.url, tls: { ca: { file: 'other-ca.cert.pem' } } }));
    expect(ex.reason).toMatch(/is not trusted .*: set tls\.ca in the profile/);
  });

  it('tls.ca from the environment or inline works alike', async () => {
    expect((await usage(profile({ baseUrl: server.url, tls: { ca: { env: 'STAGING_CA' } } }, { STAGING_CA: pem('ca.cert.pem') }))).verdict).toBe('accepted');
    expect((await usage(profile({ baseUrl: server.url, tls: { ca: pem('ca.cert.pem') } }))).verdict).toBe('accepted');
  });

  it('tls.minVersion is honoured: a server that stops at TLS 1.2 is refused under TLSv1.3', async () => {
    const old = await httpsServer({ maxVersion: 'TLSv1.2' });
    opened.push(old);
    expect((await usage(profile({ baseUrl: old.url, tls: { ...CA, minVersion: 'TLSv1.2' } }))).verdict).toBe('accepted');
    const ex = await usage(profile({ baseUrl: old.url, tls: { ...CA, minVersion: 'TLSv1.3' } }));
    expect(ex.reason).toMatch(/share no TLS version .*: check tls\.minVersion in the profile$/);
  });
});

describe('the name to verify, and an expired certificate', () => {
  it('a certificate for another name: one line suggesting tls.servername; with it set to a name the certificate carries, accepted', async () => {
    const server = await httpsServer({ cert: 'wrong-name' });
    opened.push(server);
    const ex = await usage(profile({ baseUrl: server.url, tls: CA }));
    expect(ex.verdict).toBe('transport-error');
    expect(ex.reason).toMatch(/^the certificate of 127\.0\.0\.1:\d+ is not valid for that name \(it names DNS:elsewhere\.pouchproof\.test\): set tls\.servername in the profile to a name it carries$/);
    expect((await probeConnection(profile({ baseUrl: server.url, tls: CA }), 3000)).reason).toBe(ex.reason);
    const named = await usage(profile({ baseUrl: server.url, tls: { ...CA, servername: 'elsewhere.pouchproof.test' } }));
    expect(named.verdict, named.reason).toBe('accepted');
    // The request still names the base URL's host: only the TLS name changed.
    expect(server.seen.at(-1)?.headers.host).toBe(`127.0.0.1:${server.port}`);
  });

  it('an expired certificate: one line saying so, never skipped', async () => {
    const server = await httpsServer({ cert: 'expired' });
    opened.push(server);
    const ex = await usage(profile({ baseUrl: server.url, tls: CA }));
    expect(ex.reason).toMatch(/^the certificate of 127\.0\.0\.1:\d+ has expired \(certificate has expired\): the target must renew it/);
  });
});

describe('mutual TLS', () => {
  let server: Running;
  beforeAll(async () => {
    server = await httpsServer({ requireClientCert: true });
    opened.push(server);
  });

  it('a server that requires a client certificate refuses a client without one, in one line naming tls.cert and tls.key (and the probe says it first)', async () => {
    const p = profile({ baseUrl: server.url, tls: CA });
    const ex = await usage(p);
    expect(ex.verdict).toBe('transport-error');
    expect(ex.reason).toBe(`127.0.0.1:${server.port} requires a client certificate: set tls.cert and tls.key in the profile`);
    expect(await probeConnection(p, 3000)).toEqual({ ok: false, reason: ex.reason, refused: false });
    expect(server.seen).toHaveLength(0);
  });

  it('accepts the client with its certificate, and with its encrypted key and passphrase', async () => {
    const plain = await usage(profile({ baseUrl: server.url, tls: { ...CA, ...CLIENT } }));
    expect(plain.verdict, plain.reason).toBe('accepted');
    expect(server.seen.at(-1)?.clientCn).toBe('pouchproof-client');
    const encrypted = profile({ baseUrl: server.url, tls: { ...CA, cert: { file: 'client.cert.pem' }, key: { file: 'client.key.enc.pem' }, passphrase: { env: 'TLS_PASS' } } }, { TLS_PASS: CLIENT_PASSPHRASE });
    expect((await usage(encrypted)).verdict).toBe('accepted');
    expect(await probeConnection(encrypted, 3000)).toMatchObject({ ok: true });
    // The key and the passphrase are secrets of the profile; certificates are public.
    expect(encrypted.secrets).toContain(CLIENT_PASSPHRASE);
    expect(encrypted.secrets).toContain(pem('client.key.enc.pem').replace(/\n$/, ''));
    expect(encrypted.secrets.some((s) => s.includes('BEGIN CERTIFICATE'))).toBe(false);
  });
});

describe('the tls block is checked when the profile is read: one line naming the field', () => {
  const base = 'https://staging.example.test';
  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a tls block on an http target', { baseUrl: 'http://staging.example.test', tls: CA }, /^tls: the base URL is http/],
    ['a certificate without its key', { tls: { cert: { file: 'client.cert.pem' } } }, /^tls\.key: a client certificate needs both tls\.cert and tls\.key$/],
    ['a passphrase without a key', { tls: { passphrase: 'x' } }, /^tls\.passphrase: there is no tls\.key to decrypt$/],
    ['an encrypted key without its passphrase', { tls: { cert: { file: 'client.cert.pem' }, key: { file: 'client.key.enc.pem' } } }, /^tls\.key: the key is encrypted: set tls\.passphrase$/],
    ['a wrong passphrase', { tls: { cert: { file: 'client.cert.pem' }, key: { file: 'client.key.enc.pem' }, passphrase: 'wrong' } }, /^tls\.passphrase: does not decrypt tls\.key$/],
    ['a key that is not the certificate\'s', { tls: { cert: { file: 'client.cert.pem' }, key: { file: 'server.key.pem' } } }, /^tls\.key: is not the key of tls\.cert/],
    ['a CA file that holds no certificate', { tls: { ca: { file: 'client.passphrase' } } }, /^tls\.ca: holds no PEM certificate/],
    ['a missing CA file', { tls: { ca: { file: 'nope.pem' } } }, /^tls\.ca: cannot read file "nope\.pem" \(ENOENT\)$/],
    ['an unset variable', { tls: { ca: { env: 'NOPE' } } }, /^tls\.ca: environment variable NOPE is not set$/],
    ['a servername with a port', { tls: { servername: 'staging.example.test:443' } }, /^tls\.servername: expected a DNS name/],
    ['an unknown minVersion', { tls: { minVersion: 'TLSv1.1' } }, /^tls\.minVersion: expected TLSv1\.2 or TLSv1\.3/],
    ['a switch to turn verification off', { tls: { rejectUnauthorized: false } }, /^tls\.rejectUnauthorized: unknown field$/],
  ];
  for (const [what, json, message] of bad) {
    it(what, () => {
      expect(() => profile({ baseUrl: base, ...json })).toThrow(message);
    });
  }

  it('never quotes the key or the passphrase', () => {
    try {
      profile({ baseUrl: base, tls: { cert: { file: 'client.cert.pem' }, key: { file: 'client.key.enc.pem' }, passphrase: 'hunter2-not-it' } });
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).not.toContain('hunter2');
      expect((e as Error).message).not.toContain('PRIVATE KEY');
    }
  });
});

describe('a proxy: the profile\'s, or the environment\'s', () => {
  let plain: Running;
  let secure: Running;
  let proxy: TestProxy;
  beforeAll(async () => {
    [plain, secure, proxy] = await Promise.all([httpServer(), httpsServer(), connectProxy({ credentials: 'ci-user:pr0xy-s3cret' })]);
    opened.push(plain, secure, proxy);
  });
  // The proxy maps every name to 127.0.0.1: these targets exist only through it.
  const staging = (s: Running, scheme: string): string => `${scheme}://staging.pouchproof.test:${s.port}`;
  const withAuth = (): string => proxy.url.replace('http://', 'http://ci-user:pr0xy-s3cret@');

  it('a plain http target goes through the proxy in absolute form, with the proxy credentials', async () => {
    const before = proxy.forwarded.length;
    const p = profile({ baseUrl: staging(plain, 'http'), proxy: withAuth() });
    expect(p.proxy).toEqual({ url: withAuth(), from: 'profile' });
    const ex = await usage(p);
    expect(ex.verdict, ex.reason).toBe('accepted');
    expect(proxy.forwarded.slice(before)).toEqual([`PUT http://staging.pouchproof.test:${plain.port}/v1/usage/sources/${SOURCE}`]);
    expect(plain.seen.at(-1)?.headers.host).toBe(`staging.pouchproof.test:${plain.port}`);
    expect(plain.seen.at(-1)?.headers['proxy-authorization']).toBeUndefined();
    expect(p.secrets).toEqual(expect.arrayContaining(['pr0xy-s3cret', 'ci-user:pr0xy-s3cret']));
  });

  it('an https target goes through a CONNECT tunnel (HTTPS_PROXY from the environment), TLS verified end to end', async () => {
    const before = proxy.connects.length;
    const p = profile({ baseUrl: staging(secure, 'https'), tls: CA }, { HTTPS_PROXY: withAuth() });
    expect(p.proxy?.from).toBe('HTTPS_PROXY');
    const ex = await usage(p);
    expect(ex.verdict, ex.reason).toBe('accepted');
    expect(proxy.connects.slice(before)).toEqual([{ target: `staging.pouchproof.test:${secure.port}`, allowed: true }]);
    expect(await probeConnection(p, 3000)).toEqual({ ok: true, reason: 'connected (TLS)', refused: false });
    expect(proxy.connects.length).toBe(before + 2);
  });

  it('a proxy that asks for credentials says so in one line, for the client and the probe alike', async () => {
    const p = profile({ baseUrl: staging(secure, 'https'), tls: CA }, { https_proxy: proxy.url });
    const ex = await usage(p);
    expect(ex.verdict).toBe('transport-error');
    expect(ex.reason).toBe(`the proxy ${proxy.url} answered 407 to CONNECT staging.pouchproof.test:${secure.port}: it asks for credentials; give them in the proxy URL (http://user:password@host:port)`);
    expect((await probeConnection(p, 3000)).reason).toBe(ex.reason);
    const forwarded = await usage(profile({ baseUrl: staging(plain, 'http') }, { http_proxy: proxy.url }));
    expect(forwarded.reason).toMatch(/^the proxy http:\/\/127\.0\.0\.1:\d+ answered 407/);
  });

  it('NO_PROXY and a loopback target bypass it; lower case wins; http targets read HTTP_PROXY only', () => {
    const env = { HTTPS_PROXY: 'http://proxy.corp:3128', HTTP_PROXY: 'http://plain.corp:3128' };
    expect(profile({ baseUrl: 'https://staging.pouchproof.test' }, env).proxy).toEqual({ url: 'http://proxy.corp:3128', from: 'HTTPS_PROXY' });
    expect(profile({ baseUrl: 'http://staging.pouchproof.test' }, env).proxy).toEqual({ url: 'http://plain.corp:3128', from: 'HTTP_PROXY' });
    expect(profile({ baseUrl: 'https://staging.pouchproof.test' }, { ...env, https_proxy: 'corp-proxy:8080' }).proxy).toEqual({ url: 'http://corp-proxy:8080', from: 'https_proxy' });
    for (const noProxy of ['pouchproof.test', '.pouchproof.test', '*.pouchproof.test', 'staging.pouchproof.test:443', 'other.test, staging.pouchproof.test', '*']) {
      expect(profile({ baseUrl: 'https://staging.pouchproof.test' }, { ...env, NO_PROXY: noProxy }).proxy, noProxy).toBeUndefined();
    }
    expect(profile({ baseUrl: 'https://staging.pouchproof.test' }, { ...env, NO_PROXY: 'staging.pouchproof.test:8443' }).proxy).toBeDefined();
    expect(profile({ baseUrl: 'https://10.1.2.3' }, { ...env, no_proxy: '10.0.0.0/8' }).proxy).toBeUndefined();
    expect(profile({ baseUrl: 'https://11.1.2.3' }, { ...env, no_proxy: '10.0.0.0/8' }).proxy).toBeDefined();
    // The profile's own proxy is bypassed by NO_PROXY too, as curl does.
    expect(profile({ baseUrl: 'https://staging.pouchproof.test', proxy: 'http://p:1' }, { NO_PROXY: 'pouchproof.test' }).proxy).toBeUndefined();
    for (const local of ['http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080', 'http://api.localhost']) {
      expect(profile({ baseUrl: local }, env).proxy, local).toBeUndefined();
    }
  });

  it('a bad proxy setting is one line naming where it came from', () => {
    expect(() => profile({ baseUrl: 'https://staging.pouchproof.test', proxy: 'socks5://p:1080' })).toThrow(/^proxy: scheme must be http or https, not socks5/);
    expect(() => profile({ baseUrl: 'https://staging.pouchproof.test' }, { HTTPS_PROXY: 'http://p:3128/some/path' })).toThrow(/^HTTPS_PROXY: must be http:\/\/host:port/);
    expect(() => profile({ baseUrl: 'https://staging.pouchproof.test', proxy: { env: 'NOPE' } })).toThrow(/^proxy: environment variable NOPE is not set$/);
  });
});

describe('profile-wide headers (a gateway\'s routing header)', () => {
  it('are sent on every request; an identity\'s own header of the same name wins; values are secrets', async () => {
    const server = await httpServer();
    opened.push(server);
    const p = parseProfile({
      baseUrl: server.url,
      headers: { 'X-Env-Route': { env: 'ROUTE' }, authorization: 'Bearer gateway-wide' },
      accounts: { primary: { browser: { headers: { authorization: 'Bearer browser-own' } } } },
    }, { env: { ROUTE: 'staging-blue-7f3a' } });
    expect(p.headers).toEqual({ 'x-env-route': 'staging-blue-7f3a', authorization: 'Bearer gateway-wide' });
    expect(p.secrets).toEqual(expect.arrayContaining(['staging-blue-7f3a', 'Bearer gateway-wide']));
    const c = new TargetClient(p);
    try {
      await c.call({ endpoint: 'reportUsage', params: { sourceId: SOURCE }, body: { rows: [] } });
      await c.call({ endpoint: 'revokeBrowser', params: { id: '3f0e8a52-6c1d-4b7e-9a2f-0c5d8e7b6a14' }, body: {} });
    } finally {
      await c.close();
    }
    expect(server.seen.map((s) => s.headers['x-env-route'])).toEqual(['staging-blue-7f3a', 'staging-blue-7f3a']);
    // reportUsage has no device identity here: the profile-wide value; revokeBrowser is the browser's: its own.
    expect(server.seen.map((s) => s.headers.authorization)).toEqual(['Bearer gateway-wide', 'Bearer browser-own']);
  });

  it('refuses headers pouchproof writes itself, naming why', () => {
    expect(() => parseProfile({ baseUrl: 'http://127.0.0.1:9', headers: { 'Content-Length': '1' } })).toThrow(/^headers\.Content-Length: not allowed as a profile-wide header: pouchproof frames every request itself$/);
    expect(() => parseProfile({ baseUrl: 'http://127.0.0.1:9', headers: { 'proxy-authorization': 'Basic x' } })).toThrow(/put the proxy's credentials in the proxy URL/);
    expect(() => parseProfile({ baseUrl: 'http://127.0.0.1:9', headers: { host: 'x' } })).toThrow(/tls\.servername/);
  });
});

describe('the response bound of the profile', () => {
  it('limits.responseBytes is read and bounded', () => {
    expect(parseProfile({ baseUrl: 'http://127.0.0.1:9', limits: { responseBytes: 1 << 20 } }).limits).toEqual({ responseBytes: 1 << 20 });
    expect(() => parseProfile({ baseUrl: 'http://127.0.0.1:9', limits: { responseBytes: 10 } })).toThrow(/^limits\.responseBytes: must be at least 1024$/);
  });
});


const { withCurl, requireCurl } = curlTests('test/target/staging.test.ts', 'the test that runs a TLS curl line');

describe('curl repro lines: TLS files by their paths, never their contents; the proxy and headers masked', () => {
  it('names the CA, certificate and key files with --cacert, --cert and --key, and the TLS name with --connect-to', async () => {
    const server = await httpsServer({ requireClientCert: true });
    opened.push(server);
    const p = profile({ baseUrl: server.url, tls: { ...CA, ...CLIENT, servername: 'localhost', minVersion: 'TLSv1.2' } });
    const ex = await usage(p);
    expect(ex.verdict, ex.reason).toBe('accepted');
    const line = toCurl(ex, p.secrets);
    expect(line).toContain(`--cacert '${TLS_FILE('ca.cert.pem')}'`);
    expect(line).toContain(`--cert '${TLS_FILE('client.cert.pem')}'`);
    expect(line).toContain(`--key '${TLS_FILE('client.key.pem')}'`);
    expect(line).toContain('--tlsv1.2');
    expect(line).toContain(`'https://localhost:${server.port}/v1/usage/sources/${SOURCE}'`);
    expect(line).toContain(`--connect-to 'localhost:${server.port}:127.0.0.1:${server.port}'`);
    expect(line).toContain(`-H 'host: 127.0.0.1:${server.port}'`);
    expect(line).not.toMatch(/BEGIN|PRIVATE KEY/);
    expect(line).not.toMatch(/^#/);
  });

  withCurl('the line runs as it is against the mutual-TLS server (needs curl)', async () => {
    requireCurl();
    const server = await httpsServer({ requireClientCert: true });
    opened.push(server);
    const p = profile({ baseUrl: server.url, tls: { ...CA, ...CLIENT } });
    const line = toCurl(await usage(p), p.secrets);
    const out = await new Promise<string>((resolve, reject) => execFile('sh', ['-c', line], { timeout: 20_000 }, (e, stdout, stderr) => (e ? reject(new Error(`${e.message}: ${stderr}`)) : resolve(stdout))));
    expect(out).toMatch(/^HTTP\/1\.1 200/);
    expect(server.seen.map((x) => x.clientCn)).toEqual(['pouchproof-client', 'pouchproof-client']);
  });

  it('material from the environment or inline gets a placeholder path and a comment; the passphrase is masked', async () => {
    const server = await httpsServer();
    opened.push(server);
    const p = profile(
      { baseUrl: server.url, tls: { ca: pem('ca.cert.pem'), cert: { env: 'CLIENT_CERT' }, key: { file: 'client.key.enc.pem' }, passphrase: { env: 'TLS_PASS' } } },
      { CLIENT_CERT: pem('client.cert.pem'), TLS_PASS: CLIENT_PASSPHRASE },
    );
    const line = toCurl(await usage(p), p.secrets);
    expect(line).toMatch(/^# exchange #\d+ \(reportUsage\); values shown as \*\*\* are secrets from the profile: fill them in to run\n/m);
    expect(line).toContain('# tls.ca is given inline in the profile: write it to tls-ca.pem first\n');
    expect(line).toContain('# tls.cert came from the environment variable CLIENT_CERT: write it to tls-cert.pem first\n');
    expect(line).toContain("--cacert 'tls-ca.pem'");
    expect(line).toContain("--cert 'tls-cert.pem'");
    expect(line).toContain(`--key '${TLS_FILE('client.key.enc.pem')}'`);
    expect(line).toContain("--pass '***'");
    expect(line).not.toContain(CLIENT_PASSPHRASE);
    expect(line).not.toContain('BEGIN');
  });

  it('the proxy goes in --proxy with its credentials masked; profile-wide header values are masked in curl lines and recorded exchanges', async () => {
    const [server, proxy] = await Promise.all([httpServer(), connectProxy({ credentials: 'u:proxy-pw-91' })]);
    opened.push(server, proxy);
    const p = profile({ baseUrl: `http://staging.pouchproof.test:${server.port}`, proxy: proxy.url.replace('http://', 'http://u:proxy-pw-91@'), headers: { 'x-route': 'blue-route-4411' } });
    const ex = await usage(p);
    expect(ex.verdict, ex.reason).toBe('accepted');
    expect(server.seen.at(-1)?.headers['x-route']).toBe('blue-route-4411');
    const line = toCurl(ex, p.secrets);
    expect(line).toContain(`--proxy 'http://***@127.0.0.1:${new URL(proxy.url).port}'`);
    expect(line).toContain("-H 'x-route: ***'");
    expect(line).not.toMatch(/proxy-pw-91|blue-route-4411/);
    const recorded = JSON.stringify(recordExchange(ex, p.secrets));
    expect(recorded).toContain('"x-route":"***"');
    expect(recorded).not.toMatch(/proxy-pw-91|blue-route-4411/);
  });
});

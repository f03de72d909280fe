/**
 * `pouchproof` against a staging target as a user runs it (spawned): an https gateway on a private
 * CA that requires a client certificate, reached only through a CONNECT proxy with credentials
 * (HTTPS_PROXY), routing on a header the profile adds. `run`, `probe`, `replay` and `compare` go
 * through the same profile fields; the reports and curl lines show no secret. A target whose TLS
 * does not work as configured is one line naming the profile field to set, never a stack trace.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { ReportSchema } from '../../src/report/report-json.ts';
import { CLIENT_PASSPHRASE, TLS_FILE, connectProxy, httpsServer, tlsFront, type TestProxy, type Running } from '../target/staging-servers.ts';
import { pouchproof } from './spawn-cli.ts';

let dir: string;
let ref: RunningReference;
const opened: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-staging-'));
  // Rows added up (usage-summed): findings, so that reports carry curl lines and exchanges to check for secrets.
  ref = await startReference({ faults: ['usage-summed'] });
  opened.push(ref);
});
afterAll(async () => {
  for (const o of opened.splice(0)) await o.close();
  await rm(dir, { recursive: true, force: true });
});

/** No proxy from this machine's environment may get in the way of the tests' own. */
const NO_ENV_PROXY = { HTTPS_PROXY: undefined, https_proxy: undefined, HTTP_PROXY: undefined, http_proxy: undefined, NO_PROXY: undefined, no_proxy: undefined };

async function profileFile(name: string, json: Record<string, unknown>): Promise<string> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify({ ...(ref.profile as object), name, ...json }), { mode: 0o600 });
  return file;
}

/**
 * One line on stderr, nothing like a stack trace, and the exit code: 3 when the target could not be
 * reached as configured (TLS refused, a name that does not resolve), 4 when the profile itself is wrong.
 */
function oneLine(r: { code: number | null; stderr: string }, code: 3 | 4 = 3): string {
  expect(r.code, r.stderr).toBe(code);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at |Error:/);
  return lines[0]!;
}

describe('TLS that does not work as configured: one line naming the field', () => {
  let plain: Running;
  beforeAll(async () => {
    plain = await httpsServer();
    opened.push(plain);
  });
  const run = async (name: string, url: string, tls?: Record<string, unknown>) =>
    pouchproof(['run', '--profile', await profileFile(name, { baseUrl: url, ...(tls ? { tls } : {}) }), '--max-duration', '30s', '--report-dir', join(dir, `${name}-reports`)], 90_000, NO_ENV_PROXY);

  it('a certificate from a CA the profile does not name', async () => {
    const line = oneLine(await run('no-ca', plain.url));
    expect(line).toMatch(new RegExp(`^pouchproof: cannot reach the target https://127\\.0\\.0\\.1:${plain.port}: the certificate of 127\\.0\\.0\\.1:${plain.port} is not trusted \\(.+\\): set tls\\.ca in the profile to the CA that signed it$`));
    const wrong = oneLine(await run('other-ca', plain.url, { ca: { file: TLS_FILE('other-ca.cert.pem') } }));
    expect(wrong).toMatch(/certificate of .* is not trusted .*: set tls\.ca in the profile/);
  });

  it('a certificate for another name, and an expired one', async () => {
    const elsewhere = await httpsServer({ cert: 'wrong-name' });
    const expired = await httpsServer({ cert: 'expired' });
    opened.push(elsewhere, expired);
    const ca = { ca: { file: TLS_FILE('ca.cert.pem') } };
    expect(oneLine(await run('wrong-name', elsewhere.url, ca))).toMatch(/: the certificate of 127\.0\.0\.1:\d+ is not valid for that name \(it names DNS:elsewhere\.pouchproof\.test\): set tls\.servername in the profile to a name it carries$/);
    expect(oneLine(await run('expired', expired.url, ca))).toMatch(/: the certificate of 127\.0\.0\.1:\d+ has expired \(certificate has expired\): the target must renew it/);
  });

  it('a server that requires a client certificate, without one', async () => {
    const mtls = await httpsServer({ requireClientCert: true });
    opened.push(mtls);
    expect(oneLine(await run('no-client-cert', mtls.url, { ca: { file: TLS_FILE('ca.cert.pem') } }))).toBe(
      `pouchproof: cannot reach the target ${mtls.url}: 127.0.0.1:${mtls.port} requires a client certificate: set tls.cert and tls.key in the profile`,
    );
  });

  it('a profile whose key does not open: one line before anything is sent', async () => {
    const r = await run('bad-pass', plain.url, { cert: { file: TLS_FILE('client.cert.pem') }, key: { file: TLS_FILE('client.key.enc.pem') }, passphrase: 'not-the-passphrase' });
    expect(oneLine(r, 4)).toBe('pouchproof: tls.passphrase: does not decrypt tls.key');
    expect(plain.seen).toHaveLength(0);
  });
});

describe('a staging gateway behind mutual TLS, reached only through a proxy, routing on a header', () => {
  let front: Running;
  let proxy: TestProxy;
  let profile: string;
  const ROUTE = 'staging-blue-5c1e';
  const PROXY_PASSWORD = 'pr0xy-pa55-9d2';
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    [front, proxy] = await Promise.all([tlsFront(ref.url, { requireClientCert: true }), connectProxy({ credentials: `ci:${PROXY_PASSWORD}` })]);
    opened.push(front, proxy);
    // The proxy maps the name to 127.0.0.1: without it, staging.pouchproof.test does not resolve.
    profile = await profileFile('staging', {
      baseUrl: `https://staging.pouchproof.test:${front.port}`,
      headers: { 'X-Env-Route': { env: 'STAGING_ROUTE' } },
      tls: { ca: { file: TLS_FILE('ca.cert.pem') }, cert: { file: TLS_FILE('client.cert.pem') }, key: { file: TLS_FILE('client.key.enc.pem') }, passphrase: { env: 'STAGING_TLS_PASS' } },
    });
    env = { ...NO_ENV_PROXY, HTTPS_PROXY: proxy.url.replace('http://', `http://ci:${PROXY_PASSWORD}@`), STAGING_ROUTE: ROUTE, STAGING_TLS_PASS: CLIENT_PASSPHRASE };
  });

  /** Every file of a report directory, as text. */
  async function allText(d: string): Promise<string> {
    const out: string[] = [];
    for (const e of await readdir(d, { recursive: true, withFileTypes: true })) if (e.isFile()) out.push(await readFile(join(e.parentPath, e.name), 'utf8'));
    return out.join('\n');
  }

  it('run: every request through the tunnel, with the client certificate and the route header; findings masked in every report', async () => {
    const reports = join(dir, 'staging-reports');
    const r = await pouchproof(['run', '--profile', profile, '--only', 'usage.idempotent', '--seed', '7', '--runs', '5', '--report-dir', reports], 120_000, env);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(front.seen.length).toBeGreaterThan(0);
    expect(front.seen.every((s) => s.clientCn === 'pouchproof-client' && s.headers['x-env-route'] === ROUTE)).toBe(true);
    expect(proxy.connects.length).toBeGreaterThan(0);
    expect(proxy.connects.every((c) => c.allowed && c.target === `staging.pouchproof.test:${front.port}`)).toBe(true);
    const report = ReportSchema.parse(JSON.parse(await readFile(join(reports, 'latest', 'report.json'), 'utf8')));
    const finding = report.properties.flatMap((p) => p.findings).find((f) => f.kind === 'violation')!;
    expect(finding.replay).toBeDefined();
    const curl = finding.curl!.find((c) => c.includes('curl '))!;
    expect(curl).toContain(`--proxy 'http://***@127.0.0.1:${new URL(proxy.url).port}'`);
    expect(curl).toContain(`--cacert '${TLS_FILE('ca.cert.pem')}'`);
    expect(curl).toContain(`--key '${TLS_FILE('client.key.enc.pem')}'`);
    expect(curl).toContain("--pass '***'");
    expect(curl).toContain("-H 'x-env-route: ***'");
    const everything = (await allText(reports)) + r.stdout + r.stderr;
    for (const secret of [ROUTE, CLIENT_PASSPHRASE, PROXY_PASSWORD, 'BEGIN ENCRYPTED PRIVATE KEY']) expect(everything, secret).not.toContain(secret);

    // replay and probe go the same way.
    const connects = proxy.connects.length;
    const replay = await pouchproof(['replay', finding.replay!, '--profile', profile], 90_000, env);
    expect(replay.code, replay.stdout + replay.stderr).toBe(1);
    expect(replay.stdout).toContain('reproduced: the finding still holds');
    const probe = await pouchproof(['probe', '--profile', profile], 90_000, env);
    expect(probe.code, probe.stdout + probe.stderr).toBe(0);
    expect(probe.stdout).toMatch(/usage-stored-meaning/);
    expect(proxy.connects.length).toBeGreaterThan(connects);
    for (const out of [replay.stdout, replay.stderr, probe.stdout, probe.stderr]) for (const secret of [ROUTE, CLIENT_PASSPHRASE, PROXY_PASSWORD]) expect(out).not.toContain(secret);
  });

  it('compare: the staging side through the same route, beside the embedded reference', async () => {
    const seen = front.seen.length;
    const reports = join(dir, 'compare-reports');
    const r = await pouchproof(['compare', '--profile', profile, '--profile', 'reference', '--only', 'usage.idempotent', '--seed', '7', '--runs', '3', '--report-dir', reports], 180_000, env);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/violation/);
    expect(front.seen.length).toBeGreaterThan(seen);
    const everything = (await allText(reports)) + r.stdout + r.stderr;
    for (const secret of [ROUTE, CLIENT_PASSPHRASE, PROXY_PASSWORD]) expect(everything, secret).not.toContain(secret);
  });

  it('without the proxy the name does not even resolve: the proxy is what carries the run', async () => {
    const r = await pouchproof(['run', '--profile', profile, '--only', 'usage.idempotent', '--max-duration', '20s', '--report-dir', join(dir, 'direct-reports')], 90_000, { ...env, HTTPS_PROXY: undefined });
    expect(oneLine(r)).toMatch(/^pouchproof: cannot reach the target https:\/\/staging\.pouchproof\.test:\d+: (host not found|EAI_AGAIN)/);
  });
});

/**
 * Credentials from a command (`{ "command": […], "refreshOn": [401] }` in a profile's headers):
 * run at load, run again when a request meets a listed status, the request then sent once more, every
 * value masked. The run goes through a gate in front of the reference that accepts token N only and
 * moves to N+1 every few requests, answering 401 to the old one; the command is a node script that
 * counts its runs in a file and prints the token of that count.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { profileMounts } from '../../src/load/k8s/k8s.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { secretForms } from '../../src/target/redact.ts';
import { ProfileError, parseProfile, profileRefs } from '../../src/target/profile.ts';

const dir = mkdtempSync(join(tmpdir(), 'pouchproof-credcmd-'));
/** Prints `pp-secret-<kind>-<n>` where n counts its runs (in the file it is given). */
const SCRIPT = join(dir, 'token.mjs');
writeFileSync(
  SCRIPT,
  `import { existsSync, readFileSync, writeFileSync } from 'node:fs';
const [file, kind, mode] = process.argv.slice(2);
if (mode === 'fail') { console.error('vault: permission denied'); process.exit(3); }
if (mode === 'empty') process.exit(0);
if (mode === 'slow') setTimeout(() => {}, 5000);
else {
  const n = (existsSync(file) ? Number(readFileSync(file, 'utf8')) : 0) + 1;
  writeFileSync(file, String(n));
  process.stdout.write('pp-secret-' + kind + '-' + n + '\\n');
}
`,
);
const TOKEN = /^Bearer (pp-secret-(browser|device)-(\d+))$/;
const counterOf = (kind: string): string => join(dir, `${kind}.count`);
const runsOf = (kind: string): number => Number(readFileSync(counterOf(kind), 'utf8'));
const command = (kind: string, mode = 'ok', more: Record<string, unknown> = {}) => ({
  command: [process.execPath, SCRIPT, counterOf(kind), kind, mode],
  prefix: 'Bearer ',
  refreshOn: [401],
  ...more,
});

/** The reference behind a gate whose tokens expire: token N of a kind serves `every` requests, then N+1 is the only one. */
class ExpiringGate {
  readonly generation: Record<string, number> = { browser: 1, device: 1 };
  private readonly served: Record<string, number> = { browser: 0, device: 0 };
  refused = 0;
  private server: Server | undefined;
  constructor(
    private readonly ref: RunningReference,
    private readonly every: number,
  ) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const m = TOKEN.exec(req.headers.authorization ?? '');
    let authorization = req.headers.authorization;
    if (m) {
      const kind = m[2]!;
      if (Number(m[3]) !== this.generation[kind]) {
        this.refused++;
        req.resume();
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end('{"ok":false,"error":"token expired"}');
        return;
      }
      if (++this.served[kind]! >= this.every) {
        this.generation[kind]!++;
        this.served[kind] = 0;
      }
      authorization = this.ref.profile.accounts.primary[kind as 'browser' | 'device']!.headers['authorization'];
    }
    const up = new URL(this.ref.url);
    const fwd = httpRequest({ host: up.hostname, port: up.port, path: req.url, method: req.method, headers: { ...req.headers, authorization, host: up.host } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    fwd.on('error', () => res.destroy());
    req.pipe(fwd);
  }

  close(): Promise<void> {
    return new Promise((r) => this.server?.close(() => r()) ?? r());
  }
}

/** Runs the CLI in-process; what it printed on stdout and stderr, and its exit code. */
async function cli(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const grab = (chunk: unknown): boolean => {
    out += String(chunk);
    return true;
  };
  const o = vi.spyOn(process.stdout, 'write').mockImplementation(grab);
  const e = vi.spyOn(process.stderr, 'write').mockImplementation(grab);
  process.exitCode = undefined;
  try {
    await main(args);
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, out };
}

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((n) => (statSync(join(root, n)).isDirectory() ? filesUnder(join(root, n)) : [join(root, n)]));
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a header value from a command', () => {
  it('is run when the profile loads, without a shell, and its value is a secret', () => {
    rmSync(counterOf('browser'), { force: true });
    const p = parseProfile({ baseUrl: 'http://127.0.0.1:9', accounts: { primary: { browser: { headers: { authorization: command('browser') } } } } }, { baseDir: dir });
    expect(p.accounts.primary.browser?.headers['authorization']).toBe('Bearer pp-secret-browser-1');
    expect({ ...p.accounts.primary.browser?.headers }).toEqual({ authorization: 'Bearer pp-secret-browser-1' });
    expect(p.secrets).toContain('pp-secret-browser-1');
    expect(p.credentials?.map((c) => [c.field, c.header, [...c.refreshOn]])).toEqual([['accounts.primary.browser.headers.authorization', 'authorization', [401]]]);
  });

  it.each([
    ['fail', /^accounts\.primary\.browser\.headers\.authorization: command ".+" exited with status 3: vault: permission denied$/],
    ['empty', /^accounts\.primary\.browser\.headers\.authorization: command ".+" printed nothing on its standard output$/],
  ])('a command that ends %s is one line naming the field', (mode, message) => {
    const load = () => parseProfile({ baseUrl: 'http://127.0.0.1:9', accounts: { primary: { browser: { headers: { authorization: command('browser', mode) } } } } }, { baseDir: dir });
    expect(load).toThrow(ProfileError);
    expect(load).toThrow(message);
  });

  it('a command that does not exist, or does not finish in its time, is one line too', () => {
    const load = (ref: unknown) => () => parseProfile({ baseUrl: 'http://127.0.0.1:9', headers: { 'x-token': ref } }, { baseDir: dir });
    expect(load({ command: ['pouchproof-no-such-program-here'] })).toThrow(/^headers\.x-token: command "pouchproof-no-such-program-here" not found \(ENOENT\)$/);
    expect(load({ ...command('browser', 'slow'), timeoutMs: 300 })).toThrow(/^headers\.x-token: command ".+" did not finish within 300 ms$/);
    expect(load({ command: 'vault read' })).toThrow(/headers\.x-token: expected a string, \{"env": "VAR"\}, \{"file": "path"\} or \{"command"/);
  });

  it('a failing command ends pouchproof run with the configuration exit code and one line, no stack', async () => {
    const file = join(dir, 'failing.json');
    writeFileSync(file, JSON.stringify({ baseUrl: 'http://127.0.0.1:9', accounts: { primary: { browser: { headers: { authorization: command('browser', 'fail') } } } } }));
    const r = await cli(['run', '--profile', file, '--report-dir', join(dir, 'failing-reports')]);
    expect(r.code).toBe(4);
    expect(r.out.trim()).toMatch(/^pouchproof: accounts\.primary\.browser\.headers\.authorization: command ".+" exited with status 3: vault: permission denied$/);
    expect(r.out).not.toMatch(/\n\s+at /);
  });

  it('load k8s refuses it in one line: the pods have no such program', () => {
    const json = { baseUrl: 'https://staging.example.test', headers: { authorization: { command: ['vault', 'read', '-field=token', 'secret/staging'], refreshOn: [401] } } };
    expect(profileRefs(json)).toEqual([{ field: 'headers.authorization', command: ['vault', 'read', '-field=token', 'secret/staging'] }]);
    expect(() => profileMounts('/p/staging.json', profileRefs(json))).toThrow(
      /^headers\.authorization: \{"command": "vault", …\} runs a program the pods do not have: for load k8s give the credential as \{"file": …\} beside the profile, mounted from the Secret$/,
    );
  });
});

describe('a run whose tokens expire', () => {
  let ref: RunningReference;
  let gate: ExpiringGate;
  let result: { code: number; out: string };
  const reports = join(dir, 'reports');

  beforeAll(async () => {
    ref = await startReference();
    // Longer than the cases in flight (--concurrency 4), so a resent request meets the new token.
    gate = new ExpiringGate(ref, 12);
    const base = await gate.start();
    for (const k of ['browser', 'device']) rmSync(counterOf(k), { force: true });
    const doc = structuredClone(ref.profile) as unknown as { baseUrl: string; accounts: { primary: Record<string, { headers: Record<string, unknown> }> } };
    doc.baseUrl = base;
    for (const k of ['browser', 'device']) doc.accounts.primary[k]!.headers['authorization'] = command(k);
    const file = join(dir, 'expiring.json');
    writeFileSync(file, JSON.stringify(doc));
    result = await cli(['run', '--profile', file, '--only', 'shapes.response-envelope', '--only', 'usage.idempotent', '--runs', '8', '--seed', '5', '--concurrency', '4', '--assume', 'defaults', '--report-dir', reports]);
  }, 120_000);

  afterAll(async () => {
    await gate?.close();
    await ref?.close();
  });

  it('refreshes the token on each 401 and goes on green', () => {
    expect(result.code, result.out).toBe(0);
    expect(gate.refused).toBeGreaterThan(0);
    // Each kind's token moved on several times, and its command ran once per move (plus the load).
    for (const k of ['browser', 'device']) {
      expect(gate.generation[k]).toBeGreaterThan(2);
      expect(runsOf(k)).toBeGreaterThanOrEqual(gate.generation[k]! - 1);
      expect(runsOf(k)).toBeLessThanOrEqual(gate.generation[k]!);
    }
  });

  it('never shows a token it was given, at load or after a refresh, in the console or any report (HAR included)', () => {
    const tokens = ['browser', 'device'].flatMap((k) => Array.from({ length: runsOf(k) }, (_, i) => `pp-secret-${k}-${i + 1}`));
    const files = filesUnder(reports);
    expect(files.some((f) => f.endsWith('.har'))).toBe(true);
    const texts = [['console', result.out], ...files.map((f) => [f, readFileSync(f, 'latin1')])] as const;
    for (const t of tokens) for (const form of secretForms(t)) for (const [where, text] of texts) expect(text.includes(form), `${form} in ${where}`).toBe(false);
    expect(texts.some(([, text]) => text.includes('pp-secret'))).toBe(false);
  });
});

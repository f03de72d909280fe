/** End to end: the generated profile works with src/target as is, and `pouchproof serve` starts, writes it and stops. */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFixture, startReference, type RunningReference } from '../../src/reference/index.ts';
import { ENDPOINTS } from '../../src/spec/index.ts';
import { parseProfile } from '../../src/target/profile.ts';
import { TargetClient } from '../../src/target/client.ts';
import { commitBody, keyEnvelope, op, sourceId, statement, usageRow } from './helpers.ts';
import { spawnPouchproof } from '../cli/spawn-cli.ts';

let ref: RunningReference;
let dir: string;
beforeAll(async () => {
  ref = await startReference();
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-ref-'));
});
afterAll(async () => {
  await ref.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the generated profile', () => {
  it('is accepted by src/target and drives every endpoint through TargetClient without editing', async () => {
    const profile = parseProfile(JSON.parse(JSON.stringify(ref.profile)));
    expect(profile.baseUrl).toBe(ref.url);
    expect(profile.accounts.secondary?.device?.deviceId).toBe(ref.fixture.secondary.device.deviceId);
    const client = new TargetClient(profile);
    try {
      const bodies: Record<string, { params: Record<string, string>; body: unknown }> = {
        approveDevice: { params: { id: randomUUID() }, body: { statement, welcome: 'w', key_envelopes: [keyEnvelope(ref)] } },
        commitOperations: { params: { pouchId: randomUUID() }, body: commitBody([op(ref)]) },
        reportUsage: { params: { sourceId: sourceId() }, body: { rows: [usageRow()] } },
        registerPasskey: { params: {}, body: { response: {}, statement } },
        revokeBrowser: { params: { id: randomUUID() }, body: {} },
        changeUnlock: { params: {}, body: { statements: [statement] } },
      };
      for (const e of ENDPOINTS) {
        const ex = await client.call({ endpoint: e.id, ...bodies[e.id]! });
        expect(ex.response?.status, `${e.id}: ${ex.reason}`).toBe(200);
        expect(ex.verdict, e.id).toBe('accepted');
      }
      const anon = await client.call({ endpoint: 'changeUnlock', params: {}, body: { statements: [] }, as: 'anonymous' });
      expect(anon.response?.status).toBe(401);
    } finally {
      await client.close();
    }
  });

  it('uses a fixture given to it and refuses a malformed one with a one-line message', async () => {
    const fx = generateFixture();
    const r = await startReference({ fixture: fx });
    try {
      expect(r.fixture).toBe(fx);
      expect(JSON.stringify(r.profile)).toContain(fx.primary.browser.token);
    } finally {
      await r.close();
    }
  });
});

async function runCli(args: string[], untilLine?: RegExp): Promise<{ code: number | null; out: string; err: string }> {
  const child = await spawnPouchproof(args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve) => {
    let out = '';
    let err = '';
    let signalled = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (untilLine && !signalled && untilLine.test(out)) {
        signalled = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

describe('pouchproof serve', () => {
  it('prints its URL, writes a ready-to-use profile (owner-only), serves it, and stops cleanly on SIGTERM', async () => {
    const path = join(dir, 'profile.json');
    const { code, out } = await runCli(['serve', '--port', '0', '--fault', 'auth-ignored', '--profile-out', path], /stop with Ctrl-C/);
    expect(out).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toContain('faults switched on: auth-ignored');
    expect(out).toContain('pouchproof reference stopped');
    expect(code).toBe(0);
    const written = JSON.parse(await readFile(path, 'utf8')) as { baseUrl: string; accounts: { primary: { browser: { headers: { authorization: string } } } } };
    expect(() => parseProfile(written)).not.toThrow();
    expect(out).not.toContain(written.accounts.primary.browser.headers.authorization.slice(7));
    expect((await stat(path)).mode & 0o077).toBe(0);
  });

  it('refuses an unknown fault and a bad fixture with one line and exit code 4', async () => {
    const a = await runCli(['serve', '--fault', 'nope']);
    expect(a.code).toBe(4);
    expect(a.err.trim().split('\n')).toHaveLength(1);
    expect(a.err).toContain('unknown fault "nope"');
    const bad = join(dir, 'fixture.json');
    await writeFile(bad, '{"primary":{}}');
    const b = await runCli(['serve', '--fixture', bad]);
    expect(b.code).toBe(4);
    expect(b.err.trim().split('\n')).toHaveLength(1);
  });

  it('serves the readings asked for, names them in its banner, and lists every server-decided assumption', async () => {
    const path = join(dir, 'profile-readings.json');
    const { code, out } = await runCli(['serve', '--port', '0', '--reading', 'conflict-behaviour=per-op-status,pouch-existence=must-exist', '--reading', 'seq-semantics=global', '--profile-out', path], /stop with Ctrl-C/);
    expect(code).toBe(0);
    expect(out).toContain('readings served (registry defaults otherwise): conflict-behaviour=per-op-status, seq-semantics=global, pouch-existence=must-exist');
    expect(out).toContain('--assume conflict-behaviour=per-op-status --assume seq-semantics=global --assume pouch-existence=must-exist');
    const written = JSON.parse(await readFile(path, 'utf8')) as { pouchIds: string[] };
    expect(written.pouchIds.length).toBeGreaterThan(0);
    const list = await runCli(['serve', '--list-readings']);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/^served +conflict-behaviour +reject-request \(default\) \| per-op-status/m);
    expect(list.out).toMatch(/^harness +caller-auth/m);
  });

  it('refuses a bad reading with the registry\'s one-line message and exit code 4', async () => {
    for (const [arg, msg] of [
      ['conflict-behaviour=maybe', 'assumption "conflict-behaviour" has no reading "maybe"; choose one of: reject-request, per-op-status'],
      ['no-such=1', 'unknown assumption "no-such"'],
      ['seq-semantics', 'reading "seq-semantics" is not NAME=VALUE'],
    ] as const) {
      const r = await runCli(['serve', '--reading', arg]);
      expect(r.code, arg).toBe(4);
      expect(r.err.trim().split('\n'), arg).toHaveLength(1);
      expect(r.err, arg).toContain(msg);
    }
  });
});

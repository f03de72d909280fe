/**
 * The independent server checked directly, by hand-written requests: the correct build accepts a
 * signed commit and a usage report and refuses a stale base; each bug is a named, wired switch.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUGS, type BugName } from './bugs.ts';
import { call, createCommit, serviceSignature, type Answer } from './client.ts';
import { generateConfig, type ServerConfig } from './config.ts';
import { startServer, type RunningServer } from './server.ts';

const config: ServerConfig = generateConfig();
const primary = config.accounts.primary;
let running: RunningServer | undefined;

async function start(bugs: BugName[] = []): Promise<string> {
  running = await startServer({ config, bugs });
  return running.url;
}

afterEach(async () => {
  await running?.stop();
  running = undefined;
});

function commit(url: string, body: Record<string, unknown>, pouch = randomUUID()): Promise<Answer> {
  const headers = { 'service-signature': serviceSignature(body, primary) };
  return call(url, 'POST', `/v1/pouches/${pouch}/operations`, primary.device.token, body, headers);
}

/** A create, then an update on `base` (the create's revision when omitted); the update's answer. */
async function createThenUpdate(url: string, base?: string): Promise<{ created: Answer; updated: Answer }> {
  const pouch = randomUUID();
  const artifact = randomUUID();
  const rev = randomUUID();
  const created = await commit(url, createCommit(artifact, rev, primary.device.memberId), pouch);
  const updated = await commit(url, createCommit(artifact, randomUUID(), primary.device.memberId, base ?? rev, 'update'), pouch);
  return { created, updated };
}

function usage(url: string, source: string, input: number): Promise<Answer> {
  const row = { day: '2026-01-15', assistant: 'claude', model: 'm-1', input, output: 2, cache_read: 0, cache_write: 0 };
  return call(url, 'PUT', `/v1/usage/sources/${source}`, primary.browser.token, { rows: [row] });
}

describe('the correct build', () => {
  it('applies a signed commit and a commit on the current base, with seq counting ops', async () => {
    const url = await start();
    const { created, updated } = await createThenUpdate(url);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ ok: true, data: { results: [{ status: 'applied', seq: 1, high_water: 1 }] } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ data: { results: [{ status: 'applied', seq: 2, high_water: 2 }] } });
  });

  it('refuses a stale base, an unsigned device commit and a signature over another body', async () => {
    const url = await start();
    expect((await createThenUpdate(url, randomUUID())).updated.status).toBe(409);
    const body = createCommit(randomUUID(), randomUUID(), primary.device.memberId);
    const unsigned = await call(url, 'POST', `/v1/pouches/${randomUUID()}/operations`, primary.device.token, body);
    expect(unsigned.status).toBe(401);
    const other = { ...body, epoch: randomUUID() };
    const headers = { 'service-signature': serviceSignature(other, primary) };
    expect((await call(url, 'POST', `/v1/pouches/${randomUUID()}/operations`, primary.device.token, body, headers)).status).toBe(401);
  });

  it('keeps the larger usage total and changes nothing on a re-send', async () => {
    const url = await start();
    const source = 'ab'.repeat(16);
    expect((await usage(url, source, 10)).body).toMatchObject({ ok: true, data: { stored: 1 } });
    expect((await usage(url, source, 10)).body).toMatchObject({ data: { stored: 0 } });
    expect((await usage(url, source, 5)).body).toMatchObject({ data: { stored: 0 } });
    expect((await usage(url, source, 11)).body).toMatchObject({ data: { stored: 1 } });
  });

  it('refuses duplicate members, 2^53 and a fraction where an integer is due', async () => {
    const url = await start();
    const row = '{"day":"2026-01-15","assistant":"a","model":"m","input":INPUT,"output":0,"cache_read":0,"cache_write":0}';
    const send = (input: string, extra = ''): Promise<Answer> =>
      call(url, 'PUT', `/v1/usage/sources/${'0'.repeat(32)}`, primary.device.token, `{"rows":[${row.replace('INPUT', input)}]${extra}}`);
    expect((await send('9007199254740991')).status).toBe(200);
    expect((await send('9007199254740992')).status).toBe(400);
    expect((await send('9007199254740991.4')).status).toBe(400);
    expect((await send('1', ',"rows":[]')).status).toBe(400);
  });
});

describe('the bugs', () => {
  it('are named uniquely after a catalogue line, each with a description', () => {
    expect(BUGS.length).toBeGreaterThan(100);
    expect(new Set(BUGS.map((b) => b.name)).size).toBe(BUGS.length);
    for (const b of BUGS) {
      expect(b.catalogue, b.name).toMatch(/^(K-[A-Z0-9]+ \(shared class\)|Introduction|\d(\.\d)?\.? [^\n]+) \d+$/);
      expect(b.catalogue.endsWith(` ${b.name.split('-').at(-1)}`), b.name).toBe(true);
      expect(b.description.length, b.name).toBeGreaterThan(5);
    }
  });

  it('are each switched somewhere in the server\'s code', () => {
    const dir = import.meta.dirname;
    const code = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'bugs.ts' && f !== 'score.ts')
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    expect(BUGS.filter((b) => !code.includes(`'${b.name}'`)).map((b) => b.name)).toEqual([]);
  });

  it('change behaviour when switched on: a stale base applies, usage adds up, the nil UUID is refused', async () => {
    let url = await start(['1-2']);
    expect((await createThenUpdate(url, randomUUID())).updated.status).toBe(200);
    await running!.stop();
    url = await start(['4.3-6']);
    const source = 'cd'.repeat(16);
    await usage(url, source, 10);
    expect((await usage(url, source, 10)).body).toMatchObject({ data: { stored: 1 } });
    await running!.stop();
    url = await start(['K-UUID-2']);
    expect((await commit(url, createCommit(randomUUID(), randomUUID(), primary.device.memberId), '00000000-0000-0000-0000-000000000000')).status).toBe(400);
  });
});

/**
 * Reading discovery against the embedded reference in its default readings, in every alternative
 * reading it serves (one row each, from its own catalogue), in seeded random combinations, and
 * against targets that are down, answer garbage or stall.
 */
import { seededRandom } from '../../src/gen/index.ts';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { DISCOVERABLE, discoverReadings, probeClient, type Discovery, type ProbeResult } from '../../src/discover/index.ts';
import { ALTERNATIVES, SWITCHABLE, keyOf, startReference, type Reading, type RunningReference } from '../../src/reference/index.ts';
import { readingsConsoleLines, readingsMarkdown } from '../../src/report/readings.ts';
import { ASSUMPTIONS, DEFAULT_ASSUMPTIONS, type AssumptionName, type Readings } from '../../src/spec/index.ts';
import { TargetClient } from '../../src/target/client.ts';
import { parseProfile, type Profile } from '../../src/target/profile.ts';

const running: RunningReference[] = [];
afterAll(async () => {
  await Promise.all(running.map((r) => r.close()));
});

async function discoverOn(o: { readings?: Readings; fixed?: Readings } = {}): Promise<{ d: Discovery; profile: Profile }> {
  const ref = await startReference({ port: 0, readings: o.readings ?? {} });
  running.push(ref);
  const profile = parseProfile(ref.profile);
  const client = new TargetClient(profile);
  try {
    return { d: await discoverReadings(profile, client, { embedded: true, ...(o.fixed ? { fixed: o.fixed } : {}) }), profile };
  } finally {
    await client.close();
  }
}

const row = (d: Discovery, name: AssumptionName): ProbeResult => d.table.find((r) => r.assumption === name)!;

/** Whether the row saw `value`: found, and `value` among the readings the evidence fits. */
function sees(r: ProbeResult, value: string): boolean {
  return r.status === 'found' && (r.consistent as readonly string[]).includes(value);
}

const show = (r: ProbeResult): string => JSON.stringify(r, null, 1);

/**
 * Readings that hide another assumption from every request: with conflicts reported per op, no
 * commit is refused to read a status from; with stored counting the rows sent, no merge shows.
 */
const MASKS: readonly { readonly when: Reading; readonly hides: AssumptionName }[] = [
  { when: { name: 'conflict-behaviour', value: 'per-op-status' }, hides: 'conflict-status' },
  { when: { name: 'usage-stored-meaning', value: 'rows-accepted' }, hides: 'usage-row-key' },
  // Refusals that come as a 2xx with ok false carry no 4xx status to read.
  { when: { name: 'error-response', value: 'ok-false-any-status' }, hides: 'conflict-status' },
];

function hidden(served: Readings, name: AssumptionName): boolean {
  return MASKS.some((m) => m.hides === name && (served as Record<string, string>)[m.when.name] === m.when.value);
}

/** Every served reading seen; every other discoverable assumption seen at its default, or hidden by a mask. */
function expectFound(d: Discovery, served: Readings): void {
  for (const name of DISCOVERABLE) {
    const r = row(d, name);
    if (hidden(served, name)) {
      expect(r.status, show(r)).toBe('not-observable');
      continue;
    }
    const want = (served as Record<string, string>)[name] ?? DEFAULT_ASSUMPTIONS[name];
    expect(sees(r, want), `${name}=${want}: ${show(r)}`).toBe(true);
  }
}

describe('discovery against the embedded reference', () => {
  it('in the default readings finds exactly the registry defaults, with few requests', async () => {
    const { d } = await discoverOn();
    console.log(`discovery, default readings: ${d.requests} requests, ${Math.round(d.durationMs)} ms`);
    expect(d.table.map((r) => r.assumption)).toEqual([...DISCOVERABLE]);
    for (const r of d.table) {
      expect(r.status, show(r)).toBe('found');
      if (r.status === 'found') expect(r.reading, r.assumption).toBe(DEFAULT_ASSUMPTIONS[r.assumption]);
    }
    expect(d.readings).toEqual(Object.fromEntries(DISCOVERABLE.map((n) => [n, DEFAULT_ASSUMPTIONS[n]])));
    expect(d.mismatches).toEqual([]);
    // A handful of requests per probe: the bound a shared staging target is promised.
    for (const r of d.table) expect(r.evidence.length, r.assumption).toBeLessThanOrEqual(4);
    expect(d.requests).toBeLessThanOrEqual(60);
  });

  it('probes around the profile\'s nemesis: a wire that loses every answer leaves the readings found', async () => {
    const ref = await startReference({ port: 0 });
    running.push(ref);
    const profile = parseProfile({ ...ref.profile, nemesis: 'lose-response=100%,retries=1,backoff=1ms' });
    // Through the nemesis itself, no probe gets an answer: the control that the nemesis is in force.
    const through = new TargetClient(profile);
    const lost = await through.call({ endpoint: 'reportUsage', params: { sourceId: 'a'.repeat(32) }, body: { rows: [] }, as: { member: 'device' } }).finally(() => through.close());
    expect(lost.verdict).toBe('transport-error');
    const client = probeClient(profile);
    try {
      const d = await discoverReadings(profile, client, { embedded: true });
      expect(d.readings).toEqual(Object.fromEntries(DISCOVERABLE.map((n) => [n, DEFAULT_ASSUMPTIONS[n]])));
    } finally {
      await client.close();
    }
  });

  it('covers every assumption a server decides with more than one reading', () => {
    // Written out, not filtered the way discovery filters the registry: an assumption added, removed,
    // or moved between the server and the harness changes this list by hand, with a reason.
    const expected: readonly string[] = [
      'canonical-json', 'jws-form', 'kid-binding', 'high-s-accepted', 'signature-required-callers', 'caller-kinds',
      'credentials-required', 'cross-account-isolation', 'error-response', 'conflict-behaviour', 'conflict-status',
      'batch-atomicity', 'operation-id-idempotency', 'batch-chaining', 'revision-id-unique', 'seq-semantics',
      'pouch-existence', 'usage-row-key', 'usage-stored-meaning', 'usage-counters-negative', 'usage-day-window',
      'day-calendar-valid', 'characters-are-code-points', 'empty-lists', 'unknown-fields-ignored', 'duplicate-keys',
      'content-type-json-only', 'cli-request-exists', 'browser-exists', 'head-seq-semantics',
    ];
    expect([...DISCOVERABLE]).toEqual(expected);
    expect(SWITCHABLE.map((a) => a.name)).toEqual(expected);
    // Those left out are decided by the harness or have one reading only: nothing to tell apart.
    const left = ASSUMPTIONS.filter((a) => !expected.includes(a.name));
    expect(left.map((a) => a.name)).toEqual(['caller-auth', 'op-semantics', 'commit-results', 'integers-json-safe', 'body-size-limit', 'opaque-crypto-fields', 'unlock-prepare', 'rate-limits']);
    for (const a of left) expect(a.decidedBy !== 'server' || a.choices.length === 1, a.name).toBe(true);
    // Every reading the reference can serve is one discovery must tell.
    expect(ALTERNATIVES.filter((r) => !expected.includes(r.name)).map(keyOf)).toEqual([]);
  });

  describe.each(ALTERNATIVES.map((r) => [keyOf(r), r] as const))('switched to %s', (_key, reading) => {
    it('finds that reading, and the defaults elsewhere', async () => {
      const served = { [reading.name]: reading.value } as Readings;
      const { d } = await discoverOn({ readings: served });
      expectFound(d, served);
    });
  });

  const rng = seededRandom;

  /** About half the switchable assumptions, each at a random alternative. */
  function combination(seed: number): Readings {
    const next = rng(seed);
    const out: Record<string, string> = {};
    for (const a of SWITCHABLE) {
      const alts = ALTERNATIVES.filter((r) => r.name === a.name);
      if (alts.length === 0 || next() < 0.5) continue;
      out[a.name] = alts[Math.floor(next() * alts.length)]!.value;
    }
    return out as Readings;
  }

  it.each([11, 23, 37, 101, 2026, 4242])('a seeded combination of readings (seed %i) is found whole', async (seed) => {
    const served = combination(seed);
    expect(Object.keys(served).length).toBeGreaterThan(3);
    const { d } = await discoverOn({ readings: served });
    console.log(`discovery, combination ${seed} (${Object.keys(served).length} readings): ${d.requests} requests, ${Math.round(d.durationMs)} ms`);
    expectFound(d, served);
  });

  it('keeps a fixed reading and reports that the target takes another', async () => {
    const { d } = await discoverOn({ fixed: { 'usage-stored-meaning': 'rows-held', 'conflict-status': '409' } });
    expect(d.readings['usage-stored-meaning']).toBe('rows-held');
    expect(d.mismatches).toEqual([{ assumption: 'usage-stored-meaning', fixed: 'rows-held', observed: 'rows-changed' }]);
    // 409 is what the reference answers: fixed and seen alike, no mismatch.
    expect(d.readings['conflict-status']).toBe('409');
    expect(readingsMarkdown(d)).toContain('MISMATCH');
  });

  it('kid-binding: an answer no reading gives (any enrolled key, and the caller\'s under a kid of nobody) stays unknown with its evidence', async () => {
    // unbound with the fallback fault: another device's signature applies, and so does the caller's key under a kid of nobody.
    const ref = await startReference({ port: 0, readings: { 'kid-binding': 'unbound' }, faults: ['signature-kid-fallback'] });
    running.push(ref);
    const profile = parseProfile(ref.profile);
    const client = new TargetClient(profile);
    const d = await discoverReadings(profile, client, { embedded: true });
    await client.close();
    const r = row(d, 'kid-binding');
    expect(r.status, show(r)).toBe('unknown');
    expect(r.evidence, show(r)).toHaveLength(2);
    expect(d.readings['kid-binding']).toBeUndefined();
  });

  it('without a second account or browser says what cannot be observed, and why', async () => {
    const ref = await startReference({ port: 0 });
    running.push(ref);
    const file = ref.profile as { accounts: { primary: { browser?: unknown; device?: unknown }; secondary?: unknown } };
    const profile = parseProfile({ ...file, accounts: { primary: { device: file.accounts.primary.device } } });
    const client = new TargetClient(profile);
    const d = await discoverReadings(profile, client, { embedded: false });
    await client.close();
    for (const name of ['cross-account-isolation', 'kid-binding', 'caller-kinds', 'cli-request-exists', 'browser-exists', 'signature-required-callers', 'head-seq-semantics'] as const) {
      const r = row(d, name);
      expect(r.status, show(r)).toBe('not-observable');
    }
    expect(row(d, 'usage-stored-meaning').status).toBe('found');
  });

  it('never shows a secret of the profile in its evidence or its renderings', async () => {
    const { d, profile } = await discoverOn({ readings: { 'credentials-required': 'open' } });
    const text = JSON.stringify(d) + readingsMarkdown(d) + readingsConsoleLines(d, { verbose: true }).join('\n');
    expect(profile.secrets.length).toBeGreaterThan(0);
    for (const s of profile.secrets) expect(text.includes(s)).toBe(false);
  });

  it('renders a table row per assumption', async () => {
    const { d } = await discoverOn({ readings: { 'seq-semantics': 'global' } });
    const md = readingsMarkdown(d);
    for (const name of DISCOVERABLE) expect(md).toContain(`| ${name} |`);
    expect(md).toMatch(/\| seq-semantics \| global \|/);
    const lines = readingsConsoleLines(d);
    expect(lines).toHaveLength(DISCOVERABLE.length + 1);
    expect(lines.find((l) => l.includes('seq-semantics'))).toMatch(/global/);
  });
});

describe('discovery against a target that misbehaves', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  });

  async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const s = createServer(handler!);
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(s.address() as { port: number }).port}`;
  }

  /** The reference's profile (credentials and all) pointed at another base URL. */
  async function profileAt(baseUrl: string): Promise<Profile> {
    const ref = await startReference({ port: 0 });
    running.push(ref);
    return parseProfile({ ...(ref.profile as object), baseUrl, timeouts: { requestMs: 400, connectMs: 400 } });
  }

  async function discoverAt(baseUrl: string): Promise<Discovery> {
    const profile = await profileAt(baseUrl);
    const client = new TargetClient(profile);
    try {
      // A time limit far above what these runs need: a stall must end by the 300 ms request bound, long before it.
      return await discoverReadings(profile, client, { requestTimeoutMs: 300, timeLimitMs: 20_000 });
    } finally {
      await client.close();
    }
  }

  function expectAllUnknown(d: Discovery, reason: RegExp): void {
    expect(d.table).toHaveLength(DISCOVERABLE.length);
    for (const r of d.table) {
      expect(r.status, show(r)).toBe('unknown');
      if (r.status === 'unknown') expect(r.why).toMatch(reason);
    }
    // Liveness, not speed: a dead target ends discovery at the preflight instead of 30 probes' timeouts.
    expect(d.requests).toBe(1);
  }

  it('down: every assumption unknown, naming the refused connection', async () => {
    const s = createTcpServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as { port: number }).port;
    await new Promise<void>((r) => s.close(() => r()));
    expectAllUnknown(await discoverAt(`http://127.0.0.1:${port}`), /connection refused/);
  });

  it('garbage: every assumption unknown, quoting what came back', async () => {
    const url = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
    });
    expectAllUnknown(await discoverAt(url), /HTTP 200 <html>hello/);
  });

  it('stalls: every assumption unknown within the request time bound', async () => {
    const url = await listen(() => undefined);
    const d = await discoverAt(url);
    expectAllUnknown(d, /no response/);
    // Ended by the request bound after the one preflight request (expectAllUnknown), not by the 20 s time
    // limit: every row names the 300 ms bound, and none says it ran out of time. States, not a duration.
    const whys = d.table.map((r) => (r.status === 'unknown' ? r.why : ''));
    expect(whys.filter((w) => !/300 ms/.test(w) || /ran out of time/.test(w))).toEqual([]);
  });

  it('answers the preflight, then fails: probes end unknown, none throws or hangs', async () => {
    let n = 0;
    const url = await listen((_req, res) => {
      if (n++ === 0) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, data: { stored: 1 }, meta: { request_id: 'r' } }));
      } else if (n % 2) {
        res.writeHead(503);
        res.end('busy');
      } else res.socket?.destroy();
    });
    const d = await discoverAt(url);
    expect(d.table).toHaveLength(DISCOVERABLE.length);
    for (const r of d.table) expect(r.status === 'unknown' || r.status === 'not-observable', show(r)).toBe(true);
    expect(d.table.some((r) => r.status === 'unknown')).toBe(true);
  });

  it('runs out of time: the probes past the deadline are unknown, saying so', async () => {
    // Every answer takes 150 ms; a limit of under three answers leaves most probes unfinished.
    const url = await listen((_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, data: { stored: 1 }, meta: { request_id: 'r' } }));
      }, 150);
    });
    const profile = await profileAt(url);
    // The limit from an answer timed here: long enough for the plain request that opens discovery,
    // far too short for every probe, however slowly a loaded machine turns the 150 ms around.
    const t0 = performance.now();
    await (await fetch(url, { method: 'POST' })).arrayBuffer();
    const limitMs = Math.max(400, Math.ceil(2.7 * (performance.now() - t0)));
    const client = new TargetClient(profile);
    const d = await discoverReadings(profile, client, { requestTimeoutMs: 2 * limitMs, timeLimitMs: limitMs });
    await client.close();
    expect(d.table).toHaveLength(DISCOVERABLE.length);
    expect(d.table.some((r) => r.status === 'unknown' && /ran out of time/.test(r.why)), JSON.stringify(d.table.map((r) => r.status === 'found' ? r.reading : r.why))).toBe(true);
    // Ended by the limit and the answers then in flight (each bounded by the request timeout), not after
    // every probe's answer (some forty requests at 150 ms or more each).
    expect(d.durationMs).toBeLessThan(5 * limitMs);
  });
});

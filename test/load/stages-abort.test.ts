/**
 * Load shapes and abort thresholds through the library, end to end (issue 33): a staged run offers
 * and achieves the rate each second of its ramp, and a threshold marked `:abort-after=` ends a run
 * that breaks it within its grace period plus one second (against a timer of that length set beside
 * it, test/timing.ts), with its reports written and the reason in load.json.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioByName } from '../../scenarios/index.ts';
import { runLoad } from '../../src/load/index.ts';
import { arrivalsBy, parseStages } from '../../src/load/stages.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { writeLoadReport } from '../../src/report/load/files.ts';
import { parseProfile } from '../../src/target/profile.ts';
import { endsBefore } from '../timing.ts';
import { loadExitCode } from '../../src/check/run/index.ts';

let ref: RunningReference;
let slow: Server;
let slowUrl: string;
/** How long the slow server takes to answer: far above the threshold below. */
const SLOW_MS = 80;
beforeAll(async () => {
  ref = await startReference();
  slow = createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.end('{"ok":true,"data":{},"meta":{"request_id":"r"}}'), SLOW_MS));
  });
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
});
afterAll(async () => {
  slow.closeAllConnections();
  await new Promise<void>((r) => slow.close(() => r()));
  await ref.close();
});

const embedded = () => ({ profile: parseProfile(ref.profile), embedded: true, close: async () => undefined });

describe('load shapes and abort thresholds', () => {
  it('offers each second of a ramp its share of the area under the rate, every offered request accounted for and answered', async () => {
    const stages = parseStages('2s:60/s,1s:60/s');
    const { result: r } = await runLoad({ scenario: await loadScenarioByName('commit-throughput'), target: embedded(), stages: '2s:60/s,1s:60/s', workers: 0, warmupMs: 0, seed: 5 });
    expect(r.model).toBe('open');
    expect(r.durationMs).toBe(3000);
    expect(r.stages).toEqual(stages);
    const offered = r.timeline.map((b) => b.offered);
    const due = [0, 1, 2].map((s) => arrivalsBy(stages.stages, (s + 1) * 1000) - arrivalsBy(stages.stages, s * 1000));
    // Due at 15, 45 and 60 in the three seconds: the ramp's first second offers a third of its second.
    for (const s of [0, 1, 2]) expect(Math.abs(offered[s]! - due[s]!), `second ${s}: offered ${offered[s]}, due ${due[s]}`).toBeLessThanOrEqual(1);
    expect(r.totals.sent + r.totals.dropped + r.totals.unsent).toBe(offered.reduce((a, b) => a + b, 0));
    expect(r.totals.completed).toBe(r.totals.sent);
  }, 60_000);

  it('ramps connections in the closed model', async () => {
    const { result: r } = await runLoad({ scenario: await loadScenarioByName('commit-throughput'), target: embedded(), stages: '1s:4c,1s:4c', workers: 0, warmupMs: 0, seed: 6 });
    expect(r.model).toBe('closed');
    expect(r.connections).toBe(4);
    expect(r.stages?.unit).toBe('connections');
    expect(r.totals.sent).toBeGreaterThan(0);
    expect(loadExitCode(r)).toBe(0);
  }, 60_000);

  it('ends a run that breaks its abort threshold within the grace period plus one second, reports written', async () => {
    const graceMs = 1000;
    const dir = await mkdtemp(join(tmpdir(), 'pouchproof-abort-'));
    try {
      const scenario = await loadScenarioByName('commit-throughput');
      // A 30 s run whose every answer takes SLOW_MS: p99 breaks 20 ms from the first second on.
      const { value: out, endedFirst } = await endsBefore(graceMs + 1000, () =>
        runLoad({
          scenario,
          target: { profile: parseProfile({ ...ref.profile, baseUrl: slowUrl }), embedded: false, close: async () => undefined },
          durationMs: 30_000,
          connections: 2,
          workers: 0,
          warmupMs: 0,
          seed: 7,
          thresholds: [`p99<20ms:abort-after=${graceMs / 1000}s`],
        }),
      );
      const r = out.result;
      expect(r.aborted, JSON.stringify(r.totals)).toMatchObject({ threshold: 'p99<20ms:abort-after=1s' });
      expect(r.aborted!.atMs).toBeGreaterThanOrEqual(graceMs);
      expect(endedFirst, `ended after the grace plus 1 s (aborted at ${r.aborted!.atMs} ms, measured ${r.totals.wallMs} ms)`).toBe(true);
      expect(r.interrupted).toBe(false);
      expect(loadExitCode(r)).toBe(1);
      expect(r.failedBecause).toMatch(/^aborted at \d+\.\d s: threshold p99<20ms:abort-after=1s broken \(actual \d+\.\d+ms\)/);
      const written = await writeLoadReport(dir, r, out.secrets);
      const json = JSON.parse(await readFile(join(written.dir, 'load.json'), 'utf8')) as { aborted?: { threshold: string }; failedBecause?: string };
      expect(json.aborted?.threshold).toBe('p99<20ms:abort-after=1s');
      expect(json.failedBecause).toBe(r.failedBecause);
      expect(await readFile(join(written.dir, 'load.html'), 'utf8')).toContain('aborted at');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

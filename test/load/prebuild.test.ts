import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import scenario, { PREBUILD_MAX, commitSource } from '../../scenarios/commit-throughput.ts';
import type { BuiltCommit } from '../../src/load/bodies.ts';
import { Sender } from '../../src/load/http1/sender.ts';
import { resolveParams, type LoadRequest, type LoadResponse, type RequestSource } from '../../src/load/scenario.ts';
import { loadEmbedded } from './embedded.ts';
import { RESULT_STATUSES } from '../../src/spec/index.ts';
import type { Profile } from '../../src/target/profile.ts';
import { resolveTarget, type ResolvedTarget } from '../../src/target/resolve.ts';
import { EMBEDDED_REFERENCE } from '../../src/reference/embedded.ts';

const built = (r: LoadRequest): BuiltCommit => r.token as BuiltCommit;
const applied = (ops: number): LoadResponse => ({ status: 200, body: JSON.stringify({ ok: true, data: { results: Array.from({ length: ops }, () => ({ status: RESULT_STATUSES[0] })) } }) });
const refused: LoadResponse = { status: 409, body: '{"ok":false}' };

describe('commit-throughput with prebuild', () => {
  it('applies every commit against the reference, in worker threads, and reports the building separately', async () => {
    const prebuild = 1500;
    const { result } = await loadEmbedded({ scenario: 'commit-throughput', params: { ops: 3, prebuild }, connections: 4, workers: 2, durationMs: 1200, warmupMs: 200, seed: 21 });
    expect(result.totals.ok).toBeGreaterThan(20);
    expect(result.totals.notOk).toBe(0);
    expect(result.totals.units).toBe(result.totals.ok * 3);
    expect(result.stats['prebuilt']).toBe(prebuild);
    expect(result.stats['prebuiltSent']).toBeGreaterThan(0);
    expect(result.stats['prebuiltDropped']).toBe(0);
    expect(result.stats['prebuiltPeak']).toBeLessThanOrEqual(prebuild);
    expect(result.stats['prebuiltSent']! + result.stats['prebuiltUnused']!).toBe(prebuild);
    expect(result.generator.prepareMs).toHaveLength(2);
    expect(Math.min(...result.generator.prepareMs)).toBeGreaterThan(0);
    expect(result.generator.note).toMatch(/building requests ahead/);
  });

  it('refuses a prebuild beyond its bound with a one-line message', () => {
    expect(() => resolveParams(scenario, { prebuild: PREBUILD_MAX + 1 })).toThrow(`parameter prebuild must be at most ${PREBUILD_MAX}`);
  });
});

describe('prebuilt queues', () => {
  let target: ResolvedTarget;
  let profile: Profile;
  beforeAll(async () => {
    target = await resolveTarget({ kind: 'embedded' }, EMBEDDED_REFERENCE);
    profile = target.profile;
  });
  afterAll(() => target.close());

  const source = (params: Record<string, number>, connections = 1): RequestSource =>
    commitSource({ workerIndex: 0, workers: 1, seed: 5, params: resolveParams(scenario, params), profile, connections });

  it('drops the successors of a commit that did not apply and continues from the real head', async () => {
    // Two artifacts, one connection: leases alternate A, B, A, B…; each gets 5 commits queued.
    const src = source({ artifacts: 2, prebuild: 10 });
    await src.prepare!();
    expect(src.stats!()).toMatchObject({ prebuilt: 10, prebuiltUnused: 10, prebuiltPeak: 10 });
    const sender = new Sender(profile.baseUrl, 1, 5000);
    const log: Array<{ artifact: string; base: string | null; final: string; ok: boolean; reason?: string }> = [];
    try {
      for (let i = 0; i < 16; i++) {
        const r = src.next()!;
        // i = 2: A's second commit is refused (stands in for a conflict); i = 7: B's fourth is lost in transit.
        const res = i === 2 ? refused : i === 7 ? new Error('socket hang up') : await sender.request(r);
        const out = src.complete(r, res);
        log.push({ artifact: built(r).chain.artifactId, base: built(r).base, final: built(r).finalRevision, ok: out.ok, ...(out.reason ? { reason: out.reason } : {}) });
      }
    } finally {
      await sender.close();
    }
    expect(log.filter((x) => !x.ok).map((x) => x.reason)).toEqual(['http 409', 'transport: socket hang up']);
    // Every commit actually sent applied at the reference: none continued a revision that does not exist.
    expect(log.filter((_x, i) => i !== 2 && i !== 7).every((x) => x.ok)).toBe(true);
    // A's next commit after the refusal starts where A really is: after its first commit.
    expect(log[4]!.artifact).toBe(log[0]!.artifact);
    expect(log[4]!.base).toBe(log[0]!.final);
    // B was retired after the lost commit (its head is unknown): its next lease creates a new artifact.
    expect(log[9]!.artifact).not.toBe(log[1]!.artifact);
    expect(log[9]!.base).toBeNull();
    // A: 2 served, 3 dropped; B: 4 served, 1 dropped.
    expect(src.stats!()).toMatchObject({ prebuilt: 10, prebuiltSent: 6, prebuiltDropped: 4, prebuiltUnused: 0, commitsApplied: 14, artifactsRetired: 1 });
  });

  it('never holds more than N prebuilt requests, topping up keeps each chain in order', async () => {
    const few = source({ artifacts: 50, prebuild: 7 }, 4);
    await few.prepare!();
    expect(few.stats!()).toMatchObject({ prebuilt: 7, prebuiltUnused: 7, prebuiltPeak: 7 });

    const n = 12;
    const src = source({ artifacts: 3, prebuild: n }, 3);
    await src.prepare!();
    const heads = new Map<string, string | null>();
    for (let round = 0; round < 5; round++) {
      // Two leases out, answered only after a top-up: the top-up must skip the leased artifacts.
      const out = [src.next()!, src.next()!];
      await src.prepare!();
      const s = src.stats!();
      expect(s['prebuiltUnused']).toBeLessThanOrEqual(n);
      expect(s['prebuiltPeak']).toBeLessThanOrEqual(n);
      for (const r of out) {
        const b = built(r);
        // Each commit starts where the previous applied commit of its artifact ended.
        expect(b.base).toBe(heads.get(b.chain.artifactId) ?? null);
        expect(src.complete(r, applied(b.ops)).ok).toBe(true);
        heads.set(b.chain.artifactId, b.finalRevision);
      }
    }
    const s = src.stats!();
    expect(s['prebuiltDropped']).toBe(0);
    expect(s['prebuilt']).toBe(s['prebuiltSent']! + s['prebuiltUnused']!);
    expect(s['prebuilt']).toBeGreaterThan(n);
  });

  it('builds nothing ahead by default', async () => {
    const src = source({});
    await src.prepare?.();
    expect(src.stats!()).toEqual({ commitsApplied: 0, artifactsRetired: 0 });
  });
});

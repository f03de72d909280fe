/**
 * The nemesis's decisions per request, at any concurrency (docs/nemesis.md): each request is tagged
 * with its stable name (property, case, n-th call, copy), so the same seed puts the same faults on
 * the same requests whether the cases run side by side or one at a time, and a random case's replay
 * token meets them again. Numbered in the order they were sent, two identical runs at the default
 * concurrency put only about a quarter of the tags on the same kind of request.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import COMMITS from '../../properties/commits.ts';
import USAGE from '../../properties/usage.ts';
import { isFailing, runProperties } from '../../src/check/run/index.ts';
import { replayProperty } from '../../src/check/run/replay.ts';
import type { Property } from '../../src/check/property.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { TargetClient, type CallOptions } from '../../src/target/client.ts';
import { parseProfile } from '../../src/target/profile.ts';

const SPEC = 'lose-response=20%,reset-mid-request=10%,duplicate=10%';
const SEED = 31;
const IDS = new Set(['usage.idempotent', 'usage.never-summed', 'usage.monotone', 'commits.operation-id-replay', 'commits.stale-base-rejected']);
const PROPS: readonly Property[] = [...USAGE, ...COMMITS].filter((p) => IDS.has(p.id));

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference({ port: 0 });
});
afterAll(async () => {
  await ref?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const nemesisProfile = () => parseProfile({ ...(ref.profile as object), nemesis: SPEC } as never);

/** Records, for every call a case names, the kind of request that carried the name and the faults it met, copy by copy. */
function recordTags(): Map<string, string> {
  const met = new Map<string, string>();
  const call = TargetClient.prototype.call;
  vi.spyOn(TargetClient.prototype, 'call').mockImplementation(async function (this: TargetClient, o: CallOptions) {
    const ex = await call.call(this, o);
    const faults = (ex.nemesis?.faults ?? []).map((f) => `${f.attempt}:${f.fault}`).join(' ');
    if (o.nemesisTag !== undefined) met.set(o.nemesisTag, [met.get(o.nemesisTag), `${ex.request.method} ${ex.endpoint} [${faults}]`].filter(Boolean).join(' | '));
    return ex;
  });
  return met;
}

/** One run: each stable tag → the kind of request that carried it and the faults it met. */
async function tagged(inFlight: { readonly propertiesAtOnce?: number; readonly concurrency?: number }, props = PROPS): Promise<Map<string, string>> {
  const met = recordTags();
  const r = await runProperties(nemesisProfile(), props, { seed: SEED, runs: 5, embedded: true, ...inFlight, perPropertyMs: 40_000 });
  vi.restoreAllMocks();
  // Against the correct reference no case fails, so none ends early: every run sends the seed's cases in full.
  expect(r.results.flatMap((p) => p.findings.filter((f) => isFailing(f.kind)).map((f) => `${p.id}: ${f.message.slice(0, 200)}`))).toEqual([]);
  return met;
}

describe('the nemesis at any concurrency', () => {
  it('puts the same faults on the same requests side by side (twice) and one case at a time', async () => {
    const runs = [await tagged({ propertiesAtOnce: 4 }), await tagged({ propertiesAtOnce: 4 }), await tagged({ propertiesAtOnce: 1, concurrency: 1 })];
    const shared = [...runs[0]!.keys()].filter((t) => runs.every((m) => m.has(t)));
    for (const m of runs) expect(shared.length, 'tags every run shares').toBeGreaterThanOrEqual(0.9 * m.size);
    for (const m of runs.slice(1)) expect(Object.fromEntries(shared.map((t) => [t, m.get(t)]))).toEqual(Object.fromEntries(shared.map((t) => [t, runs[0]!.get(t)])));
    // Faults were met, on some requests and not on others: the comparison says something.
    const hit = shared.filter((t) => /\[\d/.test(runs[0]!.get(t)!)).length;
    expect(hit).toBeGreaterThan(0);
    expect(hit).toBeLessThan(shared.length);
  });

  it('meets the run\'s faults again in the replay of a random case\'s token', async () => {
    const prop = PROPS[0]!;
    const run = await tagged({}, [prop]);
    // The first random case of the property that met a fault.
    const hit = [...run.entries()].find(([t, v]) => t.startsWith(`${prop.id}/r`) && /\[\d/.test(v));
    expect(hit, 'a case that met a fault').toBeDefined();
    const index = /\/r(\d+)\//.exec(hit![0])![1]!;
    const replay = recordTags();
    const r = await replayProperty(nemesisProfile(), prop, { seed: SEED, path: index, runs: 1 }, { embedded: true });
    expect(r.status).toBe('passed');
    expect(replay.size).toBeGreaterThan(0);
    expect(Object.fromEntries(replay)).toEqual(Object.fromEntries([...replay.keys()].map((t) => [t, run.get(t)])));
  });
});

/**
 * races.linearizable: silent against the correct reference over several seeds, and killing the
 * concurrency faults (a check-then-act race on renames and deletes, a batch applied in two writes,
 * the general check-then-act race, stale bases accepted), with the witness drawn as a timeline.
 * Which of them races.one-winner (single-op bursts on one base) also kills is shown alongside.
 * Commits whose answers are lost on the way back (applied, but unanswered) are `:info` ops: the
 * case is still judged, and a fault is still found. Every case hands its history to the run.
 */
import { afterAll, describe, expect, it } from 'vitest';
import RACES from '../../properties/races.ts';
import { Aliases, HistoryLog } from '../../properties/support/histories.ts';
import type { Op } from '../../properties/support/commits.ts';
import type { Readings } from '../../src/spec/index.ts';
import { runProperties } from '../../src/check/run/index.ts';
import { TargetClient, type CallOptions, type Exchange } from '../../src/target/client.ts';
import { parseProfile } from '../../src/target/profile.ts';
import { References, runAgainst, SEED, summary } from './harness.ts';

const linearizable = RACES.find((p) => p.id === 'races.linearizable')!;
const oneWinner = RACES.find((p) => p.id === 'races.one-winner')!;

const opOn = (artifact: string, base: string | null, revision: string): Op =>
  ({ type: 'update', artifact_id: artifact, revision_id: revision, base_revision_id: base, key_gen: 1, envelope: '', signature: '', signer_member_id: 'm', blob_ids: [] }) as Op;

describe('recording a history', () => {
  it('records each op of a commit with the commit\'s interval; an unknown fate has no completion and no output', () => {
    const log = new HistoryLog();
    log.record({ client: 'c1', ops: [opOn('A', 'a0', 'a1'), opOn('B', 'b0', 'b1')], fates: ['applied', 'unknown'], call: 5, ret: 9 });
    log.record({ client: 'c2', ops: [opOn('A', 'a0', 'a2')], fates: ['refused'], call: 6, ret: 8 });
    expect(log.ops.map((o) => [o.id, o.client, o.input.key, o.input.base, o.input.next, o.output, o.call, o.ret])).toEqual([
      [0, 'c1', 'A', 'a0', 'a1', 'applied', 5, 9],
      [1, 'c1', 'B', 'b0', 'b1', undefined, 5, undefined],
      [2, 'c2', 'A', 'a0', 'a2', 'refused', 6, 8],
    ]);
    expect(log.batchOf.get(0)).toEqual(['B']);
    expect(log.batchOf.has(2)).toBe(false);
  });
  it('names revisions r0, r1, … and artifacts A, B, … in order of first appearance', () => {
    const n = new Aliases();
    expect([n.of('x', 'r'), n.of('y', 'r'), n.of('x', 'r'), n.of(null, 'r'), n.of('p', 'artifact'), n.of('q', 'artifact')]).toEqual(['r0', 'r1', 'r0', 'null', 'A', 'B']);
  });
});

describe('races.linearizable (4.2)', () => {
  const refs = new References();
  afterAll(() => refs.closeAll());

  it('is silent against the correct reference over several seeds', async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const c = await runAgainst(await refs.get(), linearizable, { runs: 3, seed });
      expect(c.result.findings, `seed ${seed}: ${summary(c)}`).toEqual([]);
      expect(c.result.status).toBe('passed');
    }
  });

  for (const fault of ['check-then-act-rename-delete', 'batch-split-under-load', 'check-then-act-race', 'stale-base-accepted']) {
    it(`kills ${fault}, naming the ops that cannot be ordered on a timeline`, async () => {
      const c = await runAgainst(await refs.get(fault), linearizable, { runs: 6 });
      expect(c.failing.length, summary(c)).toBeGreaterThan(0);
      const f = c.failing[0]!;
      expect(f.kind).toBe('violation');
      expect(f.message).toMatch(/is not linearizable as compare-and-set on its head revision/);
      expect(f.message).toMatch(/\n\S+ +\|[ [=\]>]+\| #\d+ /);
    });
  }

  const alternatives: Readings[] = [{ 'conflict-behaviour': 'per-op-status' }, { 'batch-atomicity': 'per-op' }, { 'batch-atomicity': 'per-op', 'conflict-behaviour': 'per-op-status' }];
  for (const readings of alternatives) {
    const assume = readings as Record<string, string>;
    const label = Object.entries(readings).map(([k, v]) => `${k}=${v}`).join(', ');
    it(`kills the split batch and the rename/delete race on a server reading ${label} too (told so), silent on the correct one`, async () => {
      const clean = await runAgainst(await refs.get(undefined, readings), linearizable, { runs: 5, assume });
      expect(clean.result.findings, summary(clean)).toEqual([]);
      for (const fault of ['batch-split-under-load', 'check-then-act-rename-delete']) {
        const c = await runAgainst(await refs.get(fault, readings), linearizable, { runs: 8, assume });
        expect(c.failing.map((f) => f.kind), `${fault}: ${summary(c)}`).toContain('violation');
      }
    });
  }

  it('races.one-winner kills the rename/delete race too, but not the split batch (its bursts are single-op commits)', async () => {
    const race = await runAgainst(await refs.get('check-then-act-rename-delete'), oneWinner, { runs: 6 });
    expect(race.failing.length, summary(race)).toBeGreaterThan(0);
    const split = await runAgainst(await refs.get('batch-split-under-load'), oneWinner, { runs: 4 });
    expect(split.result.findings, summary(split)).toEqual([]);
  });
});

/**
 * Loses the answer of every `every`-th racing commit (one sent with a gate): the server got the
 * whole request and applied it or not, and pouchproof hears nothing, as under a lose-response fault.
 */
class LosingAnswers extends TargetClient {
  lost = 0;
  private racing = 0;
  constructor(profile: ConstructorParameters<typeof TargetClient>[0], private readonly every: number) {
    super(profile);
  }
  override async call(o: CallOptions): Promise<Exchange> {
    const ex = await super.call(o);
    if (o.endpoint !== 'commitOperations' || !o.gate || ++this.racing % this.every !== 0) return ex;
    this.lost++;
    const { response: _dropped, ...rest } = ex;
    return { ...rest, verdict: 'transport-error', reason: 'the connection closed before the answer (lost on its way back)', failure: 'closed' };
  }
}

describe('races.linearizable with answers lost (:info ops)', () => {
  const refs = new References();
  afterAll(() => refs.closeAll());

  async function lossy(fault: string | undefined, every: number, runs: number) {
    const profile = parseProfile((await refs.get(fault)).profile);
    const client = new LosingAnswers(profile, every);
    try {
      const run = await runProperties(profile, [linearizable], { seed: SEED, runs, embedded: true, endOnFailure: true, perPropertyMs: 60_000, client });
      return { result: run.results[0]!, lost: client.lost };
    } finally {
      await client.close();
    }
  }

  it('records each lost answer as an :info op and still judges the case (silent against the correct reference)', async () => {
    const { result, lost } = await lossy(undefined, 4, 3);
    expect(lost).toBeGreaterThan(0);
    expect(result.findings, JSON.stringify(result.findings)).toEqual([]);
    expect(result.status).toBe('passed');
    const kept = result.histories?.kept ?? [];
    expect(kept.length).toBeGreaterThanOrEqual(3);
    const info = kept.flatMap((h) => h.ops.filter((o) => o.ret === undefined));
    // Each lost commit's ops, open to the end of the history; the moment pouchproof gave up kept for the files.
    expect(info.length).toBeGreaterThanOrEqual(lost);
    for (const h of kept) for (const o of h.ops.filter((x) => x.ret === undefined)) expect(h.ended[o.id]).toBeGreaterThanOrEqual(o.call);
    expect(kept.every((h) => h.verdict === 'ok' && h.model === 'cas-register')).toBe(true);
  });

  it('still finds a stale base accepted among lost answers', async () => {
    const { result, lost } = await lossy('stale-base-accepted', 4, 6);
    expect(lost).toBeGreaterThan(0);
    expect(result.findings.map((f) => f.kind)).toContain('violation');
    expect(result.histories?.kept.some((h) => h.verdict === 'violation')).toBe(true);
  });

  it('leaves a case unjudged when most racing commits lost their answers (too little to vouch for)', async () => {
    const { result } = await lossy(undefined, 1, 1);
    expect(result.findings.map((f) => f.kind)).toEqual(['transport']);
    expect(result.findings[0]!.message).toMatch(/racing commits got no answer/);
    expect(result.status).toBe('inconclusive');
  });

  it('races.one-winner hands each burst to the run as a history', async () => {
    const c = await runAgainst(await refs.get(), oneWinner, { runs: 1 });
    const kept = c.result.histories?.kept ?? [];
    expect(kept.length).toBeGreaterThanOrEqual(2);
    for (const h of kept) {
      expect(h.title).toMatch(/^burst \d+: \d+ concurrent/);
      expect(h.ops.filter((o) => o.output === 'applied' && o.input.base !== null)).toHaveLength(1);
      expect(h.verdict).toBe('ok');
    }
  });
});

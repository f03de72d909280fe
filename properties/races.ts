/**
 * 4.2 under contention: optimistic concurrency means that of N commits built on the same base
 * revision, at most one applies. The requests are sent over separate connections with their last
 * byte held back, then released together, so they reach the server's conflict check at once.
 * A timeout or a 5xx may or may not have applied (Jepsen's "indeterminate"), never a loss.
 */
import fc from 'fast-check';
import { effectOf, expectAccepted, violation } from '../src/check/judge.ts';
import { PASS, defineProperty, type CaseContext, type Outcome, type Property } from '../src/check/property.ts';
import type { Exchange } from '../src/target/client.ts';
import { allApplied, commit, createArtifacts, extend, op, pouchFor, type Artifact, type Pouch } from './support/commits.ts';

/** How long to wait for every request to be held before releasing anyway (the burst is then smaller). */
const HOLD_WAIT_MS = 3_000;

async function burst(ctx: CaseContext, pouch: Pouch, a: Artifact, n: number, type: 'update' | 'delete' | 'rename'): Promise<{ exchanges: Exchange[]; revisions: string[] }> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let held = 0;
  let allHeld!: () => void;
  const ready = new Promise<void>((r) => (allHeld = r));
  const revisions = Array.from({ length: n }, () => ctx.uuid());
  const calls = revisions.map((revision) =>
    commit(ctx, pouch, [op(ctx, { type, artifact: a.id, revision, base: a.head })], {
      gate,
      onHeld: () => {
        if (++held === n) allHeld();
      },
    }),
  );
  const timer = setTimeout(allHeld, HOLD_WAIT_MS);
  await ready;
  clearTimeout(timer);
  release();
  return { exchanges: await Promise.all(calls), revisions };
}

// 4.2: of N commits on one base released together, at most one applies (exactly one if all answered).
const oneWinner = defineProperty({
  id: 'races.one-winner',
  section: '4.2',
  invariant: 'Of N concurrent commits on the same base revision, at most one applies, and exactly one when every outcome is known.',
  assumptions: ['op-semantics', 'conflict-behaviour', 'pouch-existence'],
  needs: ['device'],
  runs: 4,
  arbitrary: () =>
    fc.record({ n: fc.integer({ min: 8, max: 12 }), bursts: fc.integer({ min: 2, max: 4 }), type: fc.constantFrom('update' as const, 'rename' as const, 'delete' as const) }),
  async check(ctx, c): Promise<Outcome> {
    const n = Math.max(2, Math.min(c.n, ctx.profile.connections));
    const pouch = pouchFor(ctx);
    for (let b = 0; b < c.bursts; b++) {
      const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
      if (outcome) return outcome;
      const a = artifacts[0]!;
      const { exchanges, revisions } = await burst(ctx, pouch, a, n, c.type);
      const applied = exchanges.flatMap((ex, i) => (effectOf(ex) === 'applied' && allApplied(ex) ? [revisions[i]!] : []));
      const maybe = exchanges.filter((ex) => effectOf(ex) === 'maybe').length;
      const what = `burst ${b + 1}: ${n} concurrent ${c.type}s on the same base`;
      if (applied.length > 1) return violation(`${what}: ${applied.length} applied (lost updates; at most one may win)`);
      if (applied.length === 0 && maybe === 0) {
        const sample = exchanges.find((ex) => effectOf(ex) !== 'applied') ?? exchanges[0]!;
        return expectAccepted(sample, { what: `${what}: none applied, though one must win; e.g.` });
      }
      if (applied.length === 1) {
        a.head = applied[0]!;
        const proof = await extend(ctx, pouch, a, `${what}: an update on the winner's revision`);
        if (!proof.ok) return proof;
      }
    }
    return PASS;
  },
  describe: (c) => `${c.bursts} bursts of ${c.n} concurrent ${c.type}s`,
});

const RACES: readonly Property[] = [oneWinner];
export default RACES;

/**
 * 4.2 under contention: optimistic concurrency means that of N commits built on the same base
 * revision, at most one applies. The requests are sent over separate connections with their last
 * byte held back, then released together, so they reach the server's conflict check at once.
 * A timeout or a 5xx may or may not have applied (Jepsen's "indeterminate"), never a loss.
 */
import fc from 'fast-check';
import { Notes, violation } from '../src/check/judge.ts';
import { readingJudgement } from '../src/check/judgements.ts';
import { PASS, defineProperty, type CaseContext, type Outcome, type Property } from '../src/check/property.ts';
import type { Exchange } from '../src/target/client.ts';
import { STALE_NOT_APPLIED } from './commits.ts';
import { commit, createArtifacts, extend, fates, op, pouchFor, type Artifact, type Op, type Pouch } from './support/commits.ts';

/** That a lone writer on the head wins is what the harness builds on (op-semantics); that two win is a stale op applied. */
const SOME_WINNER = readingJudgement('races.some-winner', 'Of N racing commits on the head, one applies when every outcome is known.', 'op-semantics');

/** How long to wait for every request to be held before releasing anyway (the burst is then smaller). */
const HOLD_WAIT_MS = 3_000;

async function burst(ctx: CaseContext, pouch: Pouch, a: Artifact, n: number, type: 'update' | 'delete' | 'rename'): Promise<{ exchanges: Exchange[]; ops: Op[] }> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let held = 0;
  let allHeld!: () => void;
  const ready = new Promise<void>((r) => (allHeld = r));
  const ops = Array.from({ length: n }, () => op(ctx, { type, artifact: a.id, revision: ctx.uuid(), base: a.head }));
  const calls = ops.map((o) =>
    commit(ctx, pouch, [o], {
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
  return { exchanges: await Promise.all(calls), ops };
}

// 4.2: of N commits on one base released together, at most one applies (exactly one if all answered).
const oneWinner = defineProperty({
  id: 'races.one-winner',
  section: '4.2',
  invariant: 'Of N concurrent commits on the same base revision, at most one applies, and exactly one when every outcome is known.',
  assumptions: ['op-semantics', 'conflict-behaviour', 'conflict-status', 'pouch-existence'],
  judgements: [STALE_NOT_APPLIED, SOME_WINNER],
  needs: ['device', 'pouch'],
  runs: 4,
  arbitrary: () =>
    fc.record({ n: fc.integer({ min: 8, max: 12 }), bursts: fc.integer({ min: 2, max: 4 }), type: fc.constantFrom('update' as const, 'rename' as const, 'delete' as const) }),
  async check(ctx, c): Promise<Outcome> {
    const n = Math.max(2, Math.min(c.n, ctx.profile.connections));
    const pouch = pouchFor(ctx);
    const notes = new Notes();
    for (let b = 0; b < c.bursts; b++) {
      const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
      if (outcome) return outcome;
      const a = artifacts[0]!;
      const { exchanges, ops } = await burst(ctx, pouch, a, n, c.type);
      const outcomes = exchanges.map((ex, i) => fates(ctx, ex, [ops[i]!]));
      const applied = outcomes.flatMap((f, i) => (f.ops[0] === 'applied' ? [ops[i]!.revision_id] : []));
      const unknown = outcomes.filter((f) => f.ops[0] === 'unknown').length;
      const what = `burst ${b + 1}: ${n} concurrent ${c.type}s on the same base`;
      // Once one applied, every other built on a base that was no longer the head.
      if (applied.length > 1) return violation(STALE_NOT_APPLIED, `${what}: ${applied.length} applied (lost updates; at most one may win)`);
      for (const f of outcomes) if (f.ops[0] === 'refused') notes.add(f.conflictForm);
      if (applied.length === 0 && unknown === 0) {
        // None won: is a lone update on that head taken at all? (extend sends the control when it is not.)
        const lone = await extend(ctx, pouch, a, `${what}: none applied; a lone update on the same head afterwards`, { assumption: 'op-semantics' });
        if (!lone.ok) return notes.result(lone);
        notes.add({ ok: false, kind: 'assumption', assumption: 'op-semantics', message: `${what}: none applied, though a lone update on the same head does (${outcomes[0]!.answer})` });
        continue;
      }
      if (applied.length === 1) {
        a.head = applied[0]!;
        const proof = await extend(ctx, pouch, a, `${what}: an update on the winner's revision`, { judgement: STALE_NOT_APPLIED });
        if (!proof.ok) return notes.result(proof);
      }
    }
    return notes.result(PASS);
  },
  describe: (c) => `${c.bursts} bursts of ${c.n} concurrent ${c.type}s`,
});

const RACES: readonly Property[] = [oneWinner];
export default RACES;

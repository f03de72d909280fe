/**
 * Section 3 shows no states, and a server may add state rules: an update, rename, delete or resolve
 * only of a live artifact, a restore only of a deleted one (the reference's unnamed `live-state`, the
 * independent server's choice). The proofs that find where a head is must then not rest on an update
 * alone: a head that is a delete takes only a restore. Each case runs one property's check with a fixed
 * input on the reference, with and without a fault.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import type { CaseContext, Outcome, Property } from '../../src/check/property.ts';
import { commit, createArtifacts, extend, op, pouchFor, type Artifact } from '../../properties/support/commits.ts';
import type { TargetClient } from '../../src/target/client.ts';
import type { ResolvedTarget } from '../../src/target/resolve.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import SEQUENCES from '../../properties/sequences.ts';
import { runAgainst } from '../properties/harness.ts';
import { caseContextOn } from './case-context.ts';

const open: (ResolvedTarget | RunningReference)[] = [];
afterAll(async () => Promise.all(open.map((t) => t.close())));

/** A case context on the reference serving live-state and `faults` (the harness told nothing of either). */
async function contextOn(faults: readonly string[]): Promise<{ readonly ctx: CaseContext; readonly client: TargetClient }> {
  const { ctx, client, target } = await caseContextOn({ faults, unnamed: ['live-state'] });
  open.push(target);
  return { ctx, client };
}

/** One case of property `id` with `input`. */
async function caseOn(id: string, input: unknown, faults: readonly string[]): Promise<Outcome> {
  const { ctx, client } = await contextOn(faults);
  try {
    return await (ALL_PROPERTIES.find((p) => p.id === id) as Property).check(ctx, input);
  } finally {
    await client.close();
  }
}

describe('a server with state rules (unnamed live-state)', () => {
  // A delete on the previous head: applied by the fault, it moves the head to a delete, on which only a restore applies.
  const staleDelete = { type: 'delete', stale: 'previous', moves: 1, via: 'device' };

  it('a stale delete applied is a violation', async () => {
    expect(await caseOn('commits.stale-base-rejected', staleDelete, ['stale-base-accepted'])).toMatchObject({ ok: false, kind: 'violation' });
  });

  it('a head moved to a delete is found where it is: by a restore on the suspect revision, where an update is refused', async () => {
    const { ctx, client } = await contextOn([]);
    try {
      const pouch = pouchFor(ctx);
      const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
      expect(outcome).toBeUndefined();
      const a = artifacts[0] as Artifact;
      // The head moves to a delete the proof below is not told of, as a wrongly applied op would move it.
      const gone = op(ctx, { type: 'delete', artifact: a.id, revision: ctx.uuid(), base: a.head });
      expect((await commit(ctx, pouch, [gone])).verdict).toBe('accepted');
      const o = await extend(ctx, pouch, { ...a }, 'the proof', { assumption: 'op-semantics' }, [gone.revision_id]);
      expect(o, JSON.stringify(o)).toMatchObject({ ok: false, kind: 'assumption' });
      expect(o.ok === false ? o.message : '').toContain(`while a restore on ${gone.revision_id}, the revision of an op that should not have applied, applies`);
    } finally {
      await client.close();
    }
  });

  it('without the fault, the same case passes', async () => {
    expect(await caseOn('commits.stale-base-rejected', staleDelete, [])).toEqual({ ok: true });
  });

  it('a race of deletes: the winner\'s revision is proven with a restore, not left unknown', async () => {
    expect(await caseOn('races.one-winner', { n: 8, bursts: 2, type: 'delete' }, [])).toEqual({ ok: true });
  });

  it('commits.model-sequences notes the rule (op-semantics) and goes on from what the target did: it vouches, and still finds a stale restore', async () => {
    const [sequences] = SEQUENCES;
    const correct = await startReference({ port: 0, unnamed: ['live-state'] });
    open.push(correct);
    const clean = await runAgainst(correct, sequences!, { runs: 30 });
    expect(clean.failing).toEqual([]);
    expect(clean.result.status).toBe('passed');
    expect(clean.assumptions.map((f) => f.assumption)).toContain('op-semantics');
    const faulty = await startReference({ port: 0, faults: ['restore-any-revision'], unnamed: ['live-state'] });
    open.push(faulty);
    const caught = await runAgainst(faulty, sequences!, { runs: 30 });
    expect(caught.failing.map((f) => f.kind)).toContain('violation');
  });
});

/**
 * The three symptoms the precision issue reported, each replayed against the reference switched to
 * the reading (or fault) that showed it, through the property's own check with the very case.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import { createCaseContext, RequestCounter } from '../../src/check/run/context.ts';
import { judgeServed } from '../../src/check/judge/controls.ts';
import type { Outcome, Property } from '../../src/check/property.ts';
import { resolveAssumptions, type Readings } from '../../src/spec/index.ts';
import { TargetClient } from '../../src/target/client.ts';
import { resolveTarget, type ResolvedTarget } from '../../src/target/resolve.ts';
import { EMBEDDED_REFERENCE } from '../../src/reference/embedded.ts';

const open: ResolvedTarget[] = [];
afterAll(async () => Promise.all(open.map((t) => t.close())));

async function caseOn(o: { readings?: Readings; faults?: string[]; told?: boolean }) {
  const t = await resolveTarget({ kind: 'embedded', ...(o.readings ? { readings: o.readings } : {}), ...(o.faults ? { faults: o.faults } : {}) }, EMBEDDED_REFERENCE);
  open.push(t);
  const assumptions = resolveAssumptions(o.told && o.readings ? (o.readings as Record<string, string>) : {});
  const profile = { ...t.profile, assumptions };
  const client = new TargetClient(profile);
  const ctx = createCaseContext({ profile, assumptions, client, signal: new AbortController().signal, counter: new RequestCounter(), embedded: true });
  return { ctx, close: () => client.close() };
}

const prop = (id: string): Property => ALL_PROPERTIES.find((p) => p.id === id)!;

async function check(id: string, input: unknown, o: Parameters<typeof caseOn>[0]): Promise<Outcome> {
  const { ctx, close } = await caseOn(o);
  try {
    return await prop(id).check(ctx, input);
  } finally {
    await close();
  }
}

const unlock = (statements: number) => ({ params: {}, body: { statements: Array.from({ length: statements }, () => ({ statement: 'c3Q', signature: 'c2ln' })) } });

describe('the symptoms of a correct server read as broken', () => {
  it('head_seq raised by the statements committed: two changes with no statement answer one head_seq, which is a reading, not a violation', async () => {
    const readings: Readings = { 'head-seq-semantics': 'per-statement' };
    const input = [unlock(0), unlock(0), unlock(2)];
    const notTold = await check('unlock.head-seq', input, { readings });
    expect(notTold).toMatchObject({ ok: false, kind: 'assumption', assumption: 'head-seq-semantics' });
    expect(await check('unlock.head-seq', input, { readings, told: true })).toEqual({ ok: true });
  });

  it('a reused own head answered per op (200, status other than applied) is a refusal, not a violation', async () => {
    const readings: Readings = { 'conflict-behaviour': 'per-op-status' };
    const notTold = await check('commits.revision-reuse-rejected', { reuse: 'own-head' }, { readings });
    expect(notTold).toMatchObject({ ok: false, kind: 'assumption', assumption: 'conflict-behaviour' });
    expect(await check('commits.revision-reuse-rejected', { reuse: 'own-head' }, { readings, told: true })).toEqual({ ok: true });
  });

  it('a commit refused for its empty envelope is a violation of 2.5\'s "(may be empty)", pinned by a control, not a pouch reading', async () => {
    const { ctx, close } = await caseOn({ faults: ['envelope-empty-refused'] });
    try {
      const pouchId = ctx.uuid();
      const op = { type: 'create', artifact_id: ctx.uuid(), revision_id: ctx.uuid(), base_revision_id: null, key_gen: 1, envelope: '', signature: 'c2ln', signer_member_id: ctx.uuid(), blob_ids: ['YmxvYg'] };
      const sent = { params: { pouchId }, body: { operation_id: ctx.uuid(), epoch: ctx.uuid(), ops: [op] } };
      const ex = await ctx.call({ endpoint: 'commitOperations', ...sent });
      const o = await judgeServed(ctx, 'commitOperations', sent, ex, { what: 'a commit with an empty envelope' });
      expect(o).toMatchObject({ ok: false, kind: 'violation', judgement: 'shared.field-within-constraints', clause: { section: '2.5' } });
      expect(o.ok === false && o.kind === 'violation' ? o.clause.quote : '').toContain('(may be empty)');
      expect(o.ok === false ? o.message : '').toContain('ops[].envelope');
    } finally {
      await close();
    }
  });

  it('the same empty envelope on a correct server is served', async () => {
    const { ctx, close } = await caseOn({});
    try {
      const op = { type: 'create', artifact_id: ctx.uuid(), revision_id: ctx.uuid(), base_revision_id: null, key_gen: 1, envelope: '', signature: 'c2ln', signer_member_id: ctx.uuid(), blob_ids: ['YmxvYg'] };
      const sent = { params: { pouchId: ctx.uuid() }, body: { operation_id: ctx.uuid(), epoch: ctx.uuid(), ops: [op] } };
      const ex = await ctx.call({ endpoint: 'commitOperations', ...sent });
      expect(await judgeServed(ctx, 'commitOperations', sent, ex, { what: 'a commit with an empty envelope' })).toEqual({ ok: true });
    } finally {
      await close();
    }
  });

  it('a usage row with two negative counters refused by a server that rejects negative counts is put on that reading (both removed at once), not on the row', async () => {
    const { ctx, close } = await caseOn({ readings: { 'usage-counters-negative': 'rejected' } });
    try {
      const day = new Date().toISOString().slice(0, 10);
      const row = { day, assistant: 'a', model: 'm', input: -9007199254740991, output: 5, cache_read: 7, cache_write: -3 };
      const sent = { params: { sourceId: ctx.uuid().replace(/-/g, '') }, body: { rows: [row] } };
      const ex = await ctx.call({ endpoint: 'reportUsage', ...sent });
      expect(ex.verdict).toBe('rejected');
      const o = await judgeServed(ctx, 'reportUsage', sent, ex, { what: 'a usage row with two negative counters' });
      expect(o, JSON.stringify(o)).toMatchObject({ ok: false, kind: "assumption", assumption: "usage-counters-negative" });
      expect(o.ok === false ? o.message : '').toMatch(/without the negative-usage-counter at rows\[\]\.\w+ and the negative-usage-counter at rows\[\]\.\w+ is accepted/);
    } finally {
      await close();
    }
  });
});

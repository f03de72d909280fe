/**
 * Findings a nemesis resend must not make (issue 29: a red run means the target broke the spec):
 * a refusal of a copy sent again after its first copy's answer was lost may be the first copy's
 * doing (a replayed operation_id, a row already there), so it is indeterminate (`unknown`), never
 * a reading or a violation. Each case replays the resend deterministically: ctx.call is wrapped to
 * send the request twice and hand back the second copy's answer, marked as the nemesis marks it.
 * The same request untouched by the nemesis is judged as before (the control in each case).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import type { CaseContext, Outcome, Property } from '../../src/check/property.ts';
import type { Readings } from '../../src/spec/index.ts';
import type { CallOptions, Exchange, TargetClient } from '../../src/target/client.ts';
import type { ResolvedTarget } from '../../src/target/resolve.ts';
import { caseContextOn } from './case-context.ts';

const open: ResolvedTarget[] = [];
afterAll(async () => Promise.all(open.map((t) => t.close())));

const LOST_FIRST = { attempts: 2, faults: [{ attempt: 1, fault: 'lose-response', detail: 'answer dropped' }] } as const;

/** A case context on the reference under `readings`, not told to the run. */
async function contextOn(readings: Readings): Promise<{ readonly ctx: CaseContext; readonly client: TargetClient }> {
  const { ctx, client, target } = await caseContextOn({ readings });
  open.push(target);
  return { ctx, client };
}

/**
 * The case's calls matching `hit` lose their first copy's answer: sent twice, the second copy's answer
 * (as `second` makes it) handed back, marked as the nemesis marks it. Returns what undoes it.
 */
function loseFirstCopies(ctx: CaseContext, hit: (o: CallOptions) => boolean, second: (ex: Exchange) => Exchange = (ex) => ex): () => void {
  const send = ctx.call.bind(ctx);
  ctx.call = async (o) => {
    if (!hit(o)) return send(o);
    await send(o);
    return { ...second(await send(o)), nemesis: LOST_FIRST };
  };
  return () => {
    ctx.call = send;
  };
}

/** A property's case on the reference under `readings` (not told to the run), whose calls matching `hit` lose their first copy's answer. */
async function checkWithLostFirst(id: string, input: unknown, readings: Readings, hit: (o: CallOptions) => boolean, second?: (ex: Exchange) => Exchange): Promise<Outcome> {
  const { ctx, client } = await contextOn(readings);
  loseFirstCopies(ctx, hit, second);
  try {
    return await (ALL_PROPERTIES.find((p) => p.id === id) as Property).check(ctx, input);
  } finally {
    await client.close();
  }
}

const opsOf = (o: CallOptions): number => {
  const body = o.body as { ops?: unknown } | undefined;
  return Array.isArray(body?.ops) ? body.ops.length : 0;
};
const REPLAY_REJECTED: Readings = { 'operation-id-idempotency': 'replay-rejected' };

describe('a refusal of a copy the nemesis made pouchproof send again', () => {
  it('commits.batch-chains: the chained batch refused as a replay of its own lost first copy is unknown, not batch-chaining', async () => {
    const input = { chain: ['update', 'update'], artifacts: 1, via: 'device' };
    const o = await checkWithLostFirst('commits.batch-chains', input, REPLAY_REJECTED, (c) => c.endpoint === 'commitOperations' && opsOf(c) === 3);
    expect(o, JSON.stringify(o)).toMatchObject({ ok: false, kind: 'unknown' });
    expect(o.ok === false ? o.message : '').toContain('sent again after its first copy got no answer');
    // Untouched by the nemesis, the same batch on the same target is served.
    expect(await checkWithLostFirst('commits.batch-chains', input, REPLAY_REJECTED, () => false)).toEqual({ ok: true });
  });

  it('robustness.content-type-variants: an approval refused as already made by its lost first copy is unknown, not content-type-json-only', async () => {
    const input = ['approveDevice', 'Application/JSON'];
    const hit = (c: CallOptions) => c.headers?.['content-type'] === 'Application/JSON';
    // The reference answers a second approval alike; a target may refuse it (4.1 does not say): the second copy's answer as such a target's.
    const json = { ok: false, error: { code: 'conflict', message: 'already approved' } };
    const refused = (ex: Exchange): Exchange => ({ ...ex, verdict: 'rejected', reason: 'refused', response: { headers: {}, truncated: false, status: 409, body: JSON.stringify(json), json } });
    const o = await checkWithLostFirst('robustness.content-type-variants', input, {}, hit, refused);
    expect(o, JSON.stringify(o)).toMatchObject({ ok: false, kind: 'unknown' });
    expect(o.ok === false ? o.message : '').toContain('sent again after its first copy got no answer');
    expect(await checkWithLostFirst('robustness.content-type-variants', input, {}, () => false)).toEqual({ ok: true });
  });

  it('robustness.large-body-accepted: a large commit refused as a replay of its own lost first copy is unknown, not body-size-limit', async () => {
    // Two ops stand for the property's count: what is judged is the refusal, whatever the size.
    const hit = (c: CallOptions) => c.endpoint === 'commitOperations' && opsOf(c) === 2;
    const o = await checkWithLostFirst('robustness.large-body-accepted', 2, REPLAY_REJECTED, hit);
    expect(o, JSON.stringify(o)).toMatchObject({ ok: false, kind: 'unknown' });
    expect(o.ok === false ? o.message : '').toContain('sent again after its first copy got no answer');
    expect(await checkWithLostFirst('robustness.large-body-accepted', 2, REPLAY_REJECTED, () => false)).toEqual({ ok: true });
  });

  it('signatures.variants-accepted: a valid variant refused as a replay of its own lost first copy is unknown, not a violation of 5', async () => {
    const input = { attacks: ['ok.header-order'], withOptional: false };
    // The attack is the one commit sent with a header of its own; the control is signed by the client.
    const hit = (c: CallOptions) => c.endpoint === 'commitOperations' && typeof c.signature === 'object' && c.signature !== null && 'header' in c.signature;
    const o = await checkWithLostFirst('signatures.variants-accepted', input, REPLAY_REJECTED, hit);
    expect(o, JSON.stringify(o)).toMatchObject({ ok: false, kind: 'unknown' });
    expect(o.ok === false ? o.message : '').toContain('sent again after its first copy got no answer');
    expect(await checkWithLostFirst('signatures.variants-accepted', input, REPLAY_REJECTED, () => false)).toEqual({ ok: true });
  });

  it('signatures.forgeries-rejected: an original refused as a replay of its own lost first copy leaves the replay attack unknown, not left out of the floor', async () => {
    const input = { attacks: ['body.changed-after-acceptance'], withOptional: false };
    // The original is the first commit sent with a header of its own; the attack, the second.
    let headed = 0;
    const hit = (c: CallOptions) => c.endpoint === 'commitOperations' && typeof c.signature === 'object' && c.signature !== null && 'header' in c.signature && ++headed === 1;
    const o = await checkWithLostFirst('signatures.forgeries-rejected', input, REPLAY_REJECTED, hit);
    expect(o, JSON.stringify(o)).toMatchObject({ ok: false, kind: 'unknown' });
    expect(o.ok === false ? o.message : '').toContain('whether the plainly signed original was applied is unknown');
    expect(await checkWithLostFirst('signatures.forgeries-rejected', input, REPLAY_REJECTED, () => false)).toEqual({ ok: true });
  });

  it('the plain-request diagnosis: the control in the right JWS form refused as a replay of its own lost first copy proves nothing (unknown, asked again), then the reading', async () => {
    const { ctx, client } = await contextOn({ 'jws-form': 'b64-text-payload', ...REPLAY_REJECTED });
    try {
      const restore = loseFirstCopies(ctx, (o) => o.endpoint === 'commitOperations' && o.assumptions?.['jws-form'] === 'b64-text-payload');
      const first = await ctx.environment.plain(ctx, 'commitOperations');
      expect(first, JSON.stringify(first)).toMatchObject({ ok: false, kind: 'unknown' });
      expect(first.ok === false ? first.message : '').toContain('sent again after its first copy got no answer');
      restore();
      expect(await ctx.environment.plain(ctx, 'commitOperations')).toMatchObject({ ok: false, kind: 'assumption', assumption: 'jws-form' });
    } finally {
      await client.close();
    }
  });
});

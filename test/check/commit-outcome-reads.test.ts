/**
 * What the commit judge reads: a refusal's fate must not consult readings it does not need, since a
 * verdict that consulted a reading the probe left unidentified is unknown (case-runner.ts). A forged
 * single-op commit refused with a 4xx is refused whatever the batch or conflict readings say; only a
 * caller that knows the refusal is a conflict reads its form.
 */
import { describe, expect, it } from 'vitest';
import { commitOutcome } from '../../src/check/judge/commit-outcome.ts';
import { resolveAssumptions, type AssumptionName, type AssumptionSet } from '../../src/spec/index.ts';
import type { Exchange } from '../../src/target/client.ts';

function recording(): { readings: AssumptionSet; read: Set<AssumptionName> } {
  const read = new Set<AssumptionName>();
  const readings = new Proxy(resolveAssumptions({}), {
    get(t, k, r) {
      if (typeof k === 'string' && k in t) read.add(k as AssumptionName);
      return Reflect.get(t, k, r) as unknown;
    },
  });
  return { readings, read };
}

const refused = (status: number): Exchange => ({
  id: 1,
  endpoint: 'commitOperations',
  request: { method: 'POST', url: 'http://127.0.0.1/v1/pouches/x/operations', headers: {}, body: new Uint8Array() },
  response: { status, headers: {}, body: '{"ok":false}', truncated: false, json: { ok: false, data: {}, meta: { request_id: 'r' } } },
  verdict: 'rejected',
  reason: `rejected with ${status}`,
  timings: { startedAt: 0, totalMs: 1 },
});

const op = (n: number) => ({ artifact_id: `a${n}`, revision_id: `r${n}` });

describe('commitOutcome reads only what it needs', () => {
  it('a single op refused with a 4xx: refused, and no reading consulted until its form is asked for', () => {
    const { readings, read } = recording();
    const f = commitOutcome(refused(401), [op(1)], readings);
    expect(f.ops).toEqual(['refused']);
    expect([...read]).toEqual([]);
    // The form is a conflict's business: asked for, it reads the conflict readings.
    expect(f.conflictForm.ok).toBe(true);
    expect([...read].sort()).toEqual(['conflict-behaviour', 'conflict-status']);
  });

  it('several ops refused with a 4xx: batch-atomicity decides their fates, so it is read', () => {
    const { readings, read } = recording();
    const f = commitOutcome(refused(409), [op(1), op(2)], readings);
    expect(f.ops).toEqual(['refused', 'refused']);
    expect([...read]).toEqual(['batch-atomicity']);
  });
});

/**
 * 4.3's rules judged where `stored` means something no reading names (properties/support/usage-relations.ts),
 * through the session as a user runs it (`--assume auto`): the relations catch a merge that sums, keeps the
 * last write or keeps each counter's maximum wherever stored shows the totals held; a correct server
 * gets no violation and at most the two properties with no relation left inconclusive; and where stored
 * shows nothing of the totals, or is no function of what a source holds, the case says unknown with
 * why, never a pass and never a violation.
 */
import { describe, expect, it } from 'vitest';
import { openTarget, runSession, type EmbeddedOptions, type SessionOptions } from '../../src/session/index.ts';
import type { Report } from '../../src/report/report-json.ts';

const BASE: SessionOptions = { seed: 4301, runs: 10, readings: 'auto', maxDurationMs: 240_000, only: ['usage.*'] };
/** The usage property no relation covers under this meaning: its totals are past 2^53, where stored (at most 2^53 - 1) cannot show them. */
const NO_RELATION = ['usage.large-totals'];

async function sessionOn(embedded: EmbeddedOptions): Promise<Report> {
  const t = await openTarget({}, embedded);
  try {
    return (await runSession(t, BASE, { line: () => undefined })).report;
  } finally {
    await t.close();
  }
}

const findings = (r: Report, kind: string) => r.properties.flatMap((p) => p.findings.filter((f) => f.kind === kind));
const inconclusive = (r: Report) => r.properties.filter((p) => p.status === 'inconclusive').map((p) => p.id).sort();

describe('usage relations: stored as the tokens a source holds (a meaning no reading names)', () => {
  it('a correct server: no violation, only the properties without a relation inconclusive', async () => {
    const r = await sessionOn({ unnamed: ['stored-tokens-held'] });
    expect(findings(r, 'violation')).toEqual([]);
    expect(inconclusive(r)).toEqual(NO_RELATION);
    expect(r.properties.filter((p) => p.status === 'passed').map((p) => p.id).sort()).toEqual(['usage.associative', 'usage.commutative', 'usage.concurrent-reports', 'usage.idempotent', 'usage.monotone', 'usage.never-summed']);
  });

  it.each([
    ['usage-summed', 'usage.idempotent-relation'],
    ['usage-last-write-wins', 'usage.never-added-relation'],
    ['usage-per-field-max', 'usage.never-added-relation'],
    ['usage-check-then-act', 'usage.never-added-relation'],
  ])('%s: a violation of the relation, citing 4.3', async (fault, judgement) => {
    const r = await sessionOn({ faults: [fault], unnamed: ['stored-tokens-held'] });
    const v = findings(r, 'violation').filter((f) => f.judgement === judgement);
    expect(v.length, JSON.stringify(findings(r, 'violation').map((f) => f.judgement))).toBeGreaterThan(0);
    expect(v[0]!.ground).toMatch(/^§4\.3/);
    expect(v[0]!.message).toMatch(/the same report .* answered stored \d+ on the first and \d+ on the second/);
    expect(r.exitCode).toBe(1);
  });
});

describe('usage relations that cannot see: unknown with why, never a pass or a violation', () => {
  it('stored counts the reports sent: it shows nothing of the totals', async () => {
    const r = await sessionOn({ faults: ['usage-summed'], unnamed: ['stored-reports'] });
    expect(findings(r, 'violation')).toEqual([]);
    expect(findings(r, 'unknown').some((f) => /shows nothing of the totals held/.test(f.message))).toBe(true);
    expect(r.properties.filter((p) => p.status === 'passed')).toEqual([]);
  });

  it('stored is a sequence number across every source: no function of what one source holds', async () => {
    const r = await sessionOn({ unnamed: ['stored-sequence'] });
    expect(findings(r, 'violation')).toEqual([]);
    expect(findings(r, 'unknown').some((f) => /stored depends on more than the rows held/.test(f.message))).toBe(true);
    expect(r.properties.filter((p) => p.status === 'passed')).toEqual([]);
    expect(r.exitCode).toBe(2);
  });
});

describe('no side effect as a relation (rejection.no-side-effect under a meaning of stored no reading names)', () => {
  const sideEffect = (embedded: EmbeddedOptions) => sessionOnly(embedded, ['rejection.no-side-effect']);

  it('usage-partial-store: the refused report\'s valid rows were stored, a violation of the relation citing the broken constraint', async () => {
    const r = await sideEffect({ faults: ['usage-partial-store'], unnamed: ['stored-tokens-held'] });
    const v = findings(r, 'violation').filter((f) => f.judgement === 'rejection.no-effect-relation');
    expect(v.length, JSON.stringify(findings(r, 'violation').map((f) => f.message))).toBeGreaterThan(0);
    expect(v[0]!.message).toMatch(/had the refusal stored nothing they would hold the same rows; yet the same report/);
    expect(v[0]!.ground).toMatch(/^§\d/);
    expect(r.exitCode).toBe(1);
  });

  it('the same fault under the run\'s own reading of stored: the model catches it', async () => {
    const r = await sideEffect({ faults: ['usage-partial-store'] });
    expect(findings(r, 'violation').some((f) => f.judgement === 'rejection.constraint-enforced')).toBe(true);
  });

  it('a correct server whose stored shows the tokens held: no violation, and the property vouched for', async () => {
    const r = await sideEffect({ unnamed: ['stored-tokens-held'] });
    expect(findings(r, 'violation')).toEqual([]);
    expect(r.properties.find((p) => p.id === 'rejection.no-side-effect')!.status).toBe('passed');
  });
});

async function sessionOnly(embedded: EmbeddedOptions, only: readonly string[]): Promise<Report> {
  const t = await openTarget({}, embedded);
  try {
    return (await runSession(t, { ...BASE, only: [...only], runs: 25 }, { line: () => undefined })).report;
  } finally {
    await t.close();
  }
}

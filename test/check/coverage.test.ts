/**
 * The coverage phase: every violation and boundary variant of every request constraint judged once
 * per run, whatever the seed. Against the correct reference it raises nothing and the coverage table
 * shows every request constraint seen accepted at its edges and refusing its violations; the faults a
 * sample misses (one forbidden character in one field, a required-but-nullable field read as null
 * when absent) are found in every seed; a coverage finding replays from its token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import BOUNDARIES from '../../properties/boundaries.ts';
import REJECTION from '../../properties/rejection.ts';
import { coverageTable, sideStatus } from '../../src/check/run/coverage-table.ts';
import { decodeReplayToken } from '../../src/check/run/replay-token.ts';
import { counterexampleText, replayProperty, runProperties, type RunResult, runExitCode } from '../../src/check/run/index.ts';
import { curlLines } from '../../src/report/curl-lines.ts';
import { atSendTime, boundarySpecs, coverageBoundaries, coverageViolations, drawBoundaryCoverage, drawViolationCoverage, violationSpecs, type BoundaryCase } from '../../src/gen/index.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { REQUEST_CONSTRAINTS } from '../../src/spec/index.ts';
import { parseProfile, type Profile } from '../../src/target/profile.ts';
import fc from 'fast-check';
import { expectAccepted } from '../../src/check/judge/judge.ts';
import { defineProperty, type CoverageCase, type Property } from '../../src/check/property.ts';
import { startStandIn, standInProfile, type StandIn } from './stand-in.ts';

const violationsRejected = REJECTION.find((p) => p.id === 'rejection.violations-rejected')!;
const limitsAccepted = BOUNDARIES.find((p) => p.id === 'boundaries.limits-accepted')!;

const profileOf = (ref: RunningReference, assume: Record<string, string> = {}): Profile => {
  const json = ref.profile as { assumptions?: Record<string, string> };
  return parseProfile({ ...json, assumptions: { ...(json.assumptions ?? {}), ...assume } });
};

describe('the coverage enumeration', () => {
  it('has one case per variant of every request constraint, each breaking (or sitting on the edge of) exactly its constraint', () => {
    const v = coverageViolations();
    expect(v.undrawn).toEqual([]);
    const violations = REQUEST_CONSTRAINTS.reduce((n, c) => n + violationSpecs(c).length, 0);
    const boundaries = REQUEST_CONSTRAINTS.reduce((n, c) => n + boundarySpecs(c).length, 0);
    expect(v.cases).toHaveLength(violations);
    expect(coverageBoundaries()).toHaveLength(boundaries);
    const key = (id: string, variant: string) => `${id} ${variant}`;
    expect(new Set(v.cases.map((c) => key(c.label.constraintId, c.label.variant))).size).toBe(violations);
    expect(new Set(coverageBoundaries().map((c) => key(c.constraintId, c.variant))).size).toBe(boundaries);
  });

  it('draws the same requests every time (fixed per variant, not per run)', () => {
    expect(JSON.stringify(drawViolationCoverage())).toBe(JSON.stringify(coverageViolations()));
    // The one value read off the clock is taken again when a case is sent (a run may cross midnight UTC).
    const now = Date.now();
    const sent = (cs: readonly BoundaryCase[]) => JSON.stringify(cs.map((c) => atSendTime(c, now)));
    expect(sent(drawBoundaryCoverage())).toBe(sent(coverageBoundaries()));
  });

  it('leaves out a required-but-nullable field where null would have been accepted (a create\'s base)', () => {
    const c = coverageViolations().cases.find((x) => x.label.constraintId === 'commitOperations/body/ops[].base_revision_id#required')!;
    const i = Number(/\[(\d+)\]/.exec(c.label.path)![1]);
    const ops = (c.body as { ops: Record<string, unknown>[] }).ops;
    expect(ops[i]!.type).toBe('create');
    expect('base_revision_id' in ops[i]!).toBe(false);
  });
});

describe('the runner\'s coverage phase (against a stand-in that refuses values of 37 and more)', () => {
  let srv: StandIn;
  beforeAll(async () => {
    srv = await startStandIn((v) => (v >= 37 ? 'reject' : 'ok'));
  });
  afterAll(async () => {
    await srv.close();
  });
  const A = 'reportUsage/body/rows[].input#max';
  const B = 'reportUsage/body/rows[].output#max';
  const CASES: CoverageCase<number>[] = [
    { input: 1, constraint: B, side: 'accept', variant: 'one' },
    { input: 40, constraint: A, side: 'accept', variant: 'forty' },
    { input: 41, constraint: A, side: 'accept', variant: 'forty-one' },
    { input: 2, constraint: B, side: 'accept', variant: 'two' },
  ];
  const prop = (coverage: () => readonly CoverageCase<number>[]) =>
    defineProperty<number>({
      id: 'synthetic.coverage',
      section: '4.3',
      invariant: 'every value is accepted',
      assumptions: [],
      needs: [],
      arbitrary: () => fc.integer({ min: 0, max: 10 }),
      coverage,
      async check(ctx, n) {
        return expectAccepted(await ctx.call({ endpoint: 'reportUsage', params: { sourceId: ctx.sourceId() }, body: { rows: [] }, as: 'anonymous', headers: { 'x-value': String(n) } }));
      },
    }) as Property;

  it('judges every case once before the random phase: one finding per broken constraint, unshrunk, replayable by the case\'s name', async () => {
    const run = await runProperties(standInProfile(srv.url), [prop(() => CASES)], { seed: 1, runs: 5 });
    const r = run.results[0]!;
    expect(r.coverage?.observations.map((o) => o.result)).toEqual(['observed', 'failed', 'failed', 'observed']);
    expect(r.runs).toBe(5);
    expect(r.findings.map((f) => [f.kind, f.shrinks, f.occurrences])).toEqual([['violation', 0, 2]]);
    expect(counterexampleText(r.findings[0]!)).toMatch(/^coverage case 1 \(forty of reportUsage\/body\/rows\[\]\.input#max\): 40/);
    const token = decodeReplayToken(r.findings[0]!.replay!);
    expect(token.path).toBe('c');
    expect(token.coverageCase).toEqual({ constraint: CASES[1]!.constraint, side: CASES[1]!.side, variant: 'forty' });
    expect(token.inventory).toMatch(/^[0-9a-f]{16}$/);
    expect(run.coverage!.rows.find((x) => x.constraint === A)!.accept).toMatchObject({ observed: 0, failed: 2 });
    expect(runExitCode(run)).toBe(1);
  });

  it('stops at the first failing case under endOnFailure, and runs no coverage phase when told not to', async () => {
    const one = { ...standInProfile(srv.url), connections: 1, caseConcurrency: 1 };
    const ended = await runProperties(one, [prop(() => CASES)], { seed: 1, runs: 5, endOnFailure: true });
    expect(ended.results[0]!.coverage?.cases).toBe(2);
    expect(ended.results[0]!.runs).toBe(0);
    const without = await runProperties(one, [prop(() => CASES)], { seed: 1, runs: 5, coverage: false });
    expect(without.results[0]!.coverage).toBeUndefined();
    expect(without.coverage).toBeUndefined();
    expect(without.results[0]!.findings).toEqual([]);
  });

  it('reports coverage cases that cannot be built as an error of the suite, not a finding on the target', async () => {
    const run = await runProperties(standInProfile(srv.url), [prop(() => { throw new Error('no cases'); })], { seed: 1, runs: 5 });
    expect(run.results[0]!.status).toBe('error');
    expect(run.results[0]!.findings.map((f) => f.kind)).toEqual(['error']);
    expect(runExitCode(run)).toBe(2);
  });
});

describe('the coverage table', () => {
  it('counts each side from the observations', () => {
    const id = 'reportUsage/body/rows[].assistant#charset';
    const n = violationSpecs(REQUEST_CONSTRAINTS.find((c) => c.id === id)!).length;
    const t = coverageTable([
      ...Array.from({ length: n - 1 }, (_, i) => ({ constraint: id, side: 'reject' as const, variant: `v${i}`, result: 'observed' as const })),
      { constraint: id, side: 'reject', variant: 'last', result: 'failed' },
      { constraint: id, side: 'accept', variant: 'charset:alphabet', result: 'observed' },
    ]);
    const row = t.rows.find((r) => r.constraint === id)!;
    expect(row.reject).toMatchObject({ variants: n, observed: n - 1, failed: 1, status: 'failed' });
    expect(row.accept).toMatchObject({ variants: 1, observed: 1, status: 'observed' });
    expect(t.totals.reject.failed).toBe(1);
    expect(t.rows.filter((r) => r.constraint !== id).every((r) => r.accept.status === 'unobserved' && r.reject.status === 'unobserved')).toBe(true);
    expect(sideStatus({ variants: 3, observed: 1, failed: 0, assumption: 1, unjudged: 1 })).toBe('partial');
    expect(sideStatus({ variants: 0, observed: 0, failed: 0, assumption: 0, unjudged: 0 })).toBe('none');
  });
});

describe('against the correct reference', () => {
  let ref: RunningReference;
  let runs: RunResult[];
  beforeAll(async () => {
    ref = await startReference();
    runs = [];
    for (const seed of [11, 12]) runs.push(await runProperties(profileOf(ref), [limitsAccepted, violationsRejected], { seed, runs: 1, embedded: true, perPropertyMs: 60_000 }));
  }, 180_000);
  afterAll(async () => {
    await ref.close();
  });

  it('raises nothing', () => {
    for (const run of runs) expect(run.results.flatMap((r) => r.findings).map((f) => `${f.kind} ${f.property}: ${f.message}`)).toEqual([]);
  });

  it('sees every request constraint with a boundary variant accepted and every one with a violation refused', () => {
    const table = runs[0]!.coverage!;
    expect(table.rows).toHaveLength(REQUEST_CONSTRAINTS.length);
    const notAccepted = table.rows.filter((r) => r.accept.variants > 0 && r.accept.status !== 'observed');
    const notRefused = table.rows.filter((r) => r.reject.variants > 0 && r.reject.status !== 'observed').map((r) => `${r.constraint}: ${JSON.stringify(r.reject)}`);
    expect(notRefused).toEqual([]);
    // The one constraint whose valid edges cannot all be observed: in a commit the base of a later op must name the revision
    // before it (coherence owns the field), so only the UUID forms that revision happens to have are sent there; the
    // others are counted as not judged, never as seen. Every other constraint has every boundary variant accepted.
    expect(notAccepted.map((r) => r.constraint)).toEqual(['commitOperations/body/ops[].base_revision_id#uuid']);
    expect(notAccepted[0]!.accept).toMatchObject({ status: 'partial', failed: 0, assumption: 0 });
    expect(notAccepted[0]!.accept.unjudged).toBe(coverageBoundaries().filter((b) => !b.exact).length);
    // Constraints without a variant on one side could not be observed there; today the generators cover both sides of all of them.
    expect(table.rows.filter((r) => r.accept.status === 'none' || r.reject.status === 'none').map((r) => r.constraint)).toEqual([]);
    expect(table.totals.cases).toBe(coverageViolations().cases.length + coverageBoundaries().length);
  });

  it('judges the same variants whatever the seed', () => {
    const seen = (run: RunResult) => run.results.flatMap((r) => (r.coverage?.observations ?? []).map((o) => `${o.constraint} ${o.side} ${o.variant} ${o.result}`));
    expect(seen(runs[0]!).length).toBeGreaterThan(1000);
    expect(seen(runs[1]!)).toEqual(seen(runs[0]!));
  });

  it('shows as not judged what the run\'s readings put out of force (the calendar check under day-calendar-valid=pattern-only)', async () => {
    const run = await runProperties(profileOf(ref, { 'day-calendar-valid': 'pattern-only' }), [violationsRejected], { seed: 11, runs: 1, embedded: true, perPropertyMs: 60_000 });
    const calendar = run.coverage!.rows.find((r) => r.kind === 'calendar')!;
    expect(calendar.reject).toMatchObject({ observed: 0, unjudged: calendar.reject.variants, status: 'unobserved' });
    expect(run.coverage!.rows.filter((r) => r.kind !== 'calendar' && r.reject.status !== 'observed').map((r) => r.constraint)).toEqual([]);
  }, 120_000);
});

describe('faults that sampling misses are found in every seed', () => {
  const FAULTS = [
    { fault: 'lax-pattern', constraint: 'commitOperations/body/ops[].signature#charset' },
    { fault: 'nullable-missing-as-null', constraint: 'commitOperations/body/ops[].base_revision_id#required' },
  ] as const;
  for (const { fault, constraint } of FAULTS) {
    it(`${fault}: a violation of ${constraint} from the coverage phase, with seeds 1, 2 and 3`, async () => {
      const faulty = await startReference({ faults: [fault] });
      try {
        for (const seed of [1, 2, 3]) {
          const run = await runProperties(profileOf(faulty), [violationsRejected], { seed, runs: 2, embedded: true, endOnFailure: true, perPropertyMs: 60_000 });
          const found = run.results[0]!.findings.filter((f) => f.kind === 'violation' && f.caseLabel?.includes(constraint));
          expect(found.length, `seed ${seed}`).toBe(1);
          const f = found[0]!;
          expect(f.caseLabel).toMatch(/^coverage case \d+ /);
          expect(f.shrinks).toBe(0);
          expect(curlLines(f).length).toBeGreaterThan(0);
          expect(run.coverage!.rows.find((r) => r.constraint === constraint)!.reject.status).toBe('failed');
          if (seed === 1) {
            // The token names the coverage case; replayed, it fails on the faulty server and passes on the correct one.
            const token = decodeReplayToken(f.replay!);
            expect(token.coverageCase?.constraint).toBe(constraint);
            const again = await replayProperty(profileOf(faulty), violationsRejected, token, { embedded: true });
            expect(again.findings.filter((x) => x.kind === 'violation').map((x) => x.replay)).toEqual([f.replay]);
            expect(again.coverage?.cases).toBe(1);
            const correct = await startReference();
            try {
              const clean = await replayProperty(profileOf(correct), violationsRejected, token, { embedded: true });
              expect(clean.findings).toEqual([]);
              expect(clean.coverage?.observations.map((o) => o.result)).toEqual(['observed']);
            } finally {
              await correct.close();
            }
          }
        }
      } finally {
        await faulty.close();
      }
    }, 180_000);
  }
});

/**
 * The cost probe's judgement on synthetic latencies (no clock: a fake sender answers what a cost
 * model says), the grounding of performance findings, how they count in mutation testing, the exit
 * code under `failOn`, and their place in every report.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { CONFIRM_ALLOWANCE, COST_ROUNDS, RECHECK_ROUNDS, VERDICT_MIN_EXCESS_MS, judgeCost, probeCost, sizesUpTo, type CostDimension, type SendSized } from '../../src/check/model/cost-growth.ts';
import { UngroundedFinding, vetOutcome } from '../../src/check/judge/grounds.ts';
import { performanceJudgement, READING_FREE, specJudgement } from '../../src/check/judge/judgements.ts';
import { cleanRunProblems } from '../../src/check/clean-run.ts';
import { detectsFault } from '../../src/mutants/mutants.ts';
import { defineProperty, type Outcome } from '../../src/check/property.ts';
import { runProperties, type RunResult, runExitCode } from '../../src/check/run/index.ts';
import { ConsoleView } from '../../src/report/console.ts';
import { toJunit } from '../../src/report/junit.ts';
import { buildReport, ReportSchema } from '../../src/report/report-json.ts';
import { toSummaryMarkdown } from '../../src/report/summary-md.ts';
import { LIMITS } from '../../src/spec/index.ts';
import { standInProfile } from './stand-in.ts';

const LIMIT = LIMITS.blobIdsPerOp.max!;
const DIM: CostDimension = { name: 'blob_ids', what: 'blob_ids per op', baseline: 1, sizes: sizesUpTo(LIMIT, 1) };

/** A sender whose latency is `cost(size)` plus a seeded jitter that only ever adds time (preemption). */
function modelled(cost: (n: number) => number, seed: number, jitterMs: number): SendSized & { sent: number[] } {
  let s = seed || 1;
  const sent: number[] = [];
  const f = async (size: number) => {
    sent.push(size);
    s = (Math.imul(s, 1103515245) + 12345) | 0;
    const u = ((s >>> 8) & 0xffff) / 0xffff;
    // Two in three requests are undisturbed; the others are delayed by up to jitterMs.
    return { ms: cost(size) + (u < 0.66 ? 0 : u * jitterMs) };
  };
  return Object.assign(f, { sent });
}

const linear = (n: number) => 1.5 + 0.01 * n; // 1.5 ms overhead, 20 ms at the limit
const quadratic = (n: number) => 1.5 + 0.004 * n + 3e-5 * n * n; // the fault's shape: ~128 ms at the limit
const far = { deadline: Number.MAX_SAFE_INTEGER };
/** Requests of the climb: every round of a size paired with a baseline request. */
const CLIMB = COST_ROUNDS * 2 * DIM.sizes.length;
/** Requests per measurement: the warm-up (the baseline and the smallest size), the climb, then the baseline and every size below the largest again. */
const PER_MEASUREMENT = 2 + CLIMB + RECHECK_ROUNDS * DIM.sizes.length;

describe('judgeCost', () => {
  it('calls linear cost with overhead linear, and quadratic cost superlinear, with the evidence', () => {
    const point = (f: (n: number) => number) => (size: number) => ({ size, ms: f(size) });
    const lin = judgeCost(point(linear)(1), DIM.sizes.map(point(linear)));
    expect(lin.superlinear).toBe(false);
    expect(lin.exponent).toBeCloseTo(1, 1);
    expect(lin.linearRatio).toBeCloseTo(1, 1);
    const quad = judgeCost(point(quadratic)(1), DIM.sizes.map(point(quadratic)));
    expect(quad.superlinear).toBe(true);
    expect(quad.exponent).toBeGreaterThan(1.6);
    expect(quad.linearRatio).toBeGreaterThan(2.5);
    expect(quad.points.map((p) => p.size)).toEqual([250, 500, 1000, 2000]);
  });

  it('does not flag a rise too small to tell from noise, nor a flat curve with one slow point', () => {
    const tiny = judgeCost({ size: 1, ms: 1 }, [{ size: 250, ms: 1.01 }, { size: 500, ms: 1.02 }, { size: 1000, ms: 1.2 }, { size: 2000, ms: 3.5 }]);
    expect(tiny.superlinear).toBe(false); // 2.5 ms of excess: below MIN_EXCESS_MS
    const flat = judgeCost({ size: 1, ms: 10 }, [{ size: 250, ms: 10 }, { size: 500, ms: 9.5 }, { size: 1000, ms: 10.2 }, { size: 2000, ms: 16 }]);
    expect(flat.superlinear).toBe(false); // too few points rose to fit an exponent; excess below a whole baseline request
  });

  it('does not flag a one-off step at the largest size (a collection only the largest request triggers), as measured on the reference', () => {
    // The ops dimension of the correct reference, seen on this machine: 50 ops cost a step more than 25.
    const step = judgeCost({ size: 1, ms: 0.9 }, [{ size: 6, ms: 1.1 }, { size: 13, ms: 1.4 }, { size: 25, ms: 1.9 }, { size: 50, ms: 14.2 }]);
    expect(step.linearRatio).toBeGreaterThan(2);
    expect(step.exponent).toBeGreaterThan(1.4);
    expect(step.doublings[1]).toBeGreaterThan(4);
    expect(step.doublings[0]).toBeLessThan(2.5);
    expect(step.suspect).toBe(true); // worth measuring again, but not quadratic
    expect(step.superlinear).toBe(false);
    // The quadratic blob-id check, as measured: every doubling grows ~×3.
    const fault = judgeCost({ size: 1, ms: 1.5 }, [{ size: 250, ms: 5.0 }, { size: 500, ms: 13.9 }, { size: 1000, ms: 38.1 }, { size: 2000, ms: 132.9 }]);
    expect(fault.doublings.every((d) => d > 2.8)).toBe(true);
    expect(fault.superlinear).toBe(true);
  });

  it('does not flag a curve that bends, but by less than VERDICT_MIN_EXCESS_MS at the limit (the correct reference\'s members, on a busy machine, as measured)', () => {
    const mild = judgeCost({ size: 1, ms: 0.1 }, [{ size: 1024, ms: 0.5 }, { size: 2048, ms: 1.2 }, { size: 4096, ms: 3.2 }, { size: 8192, ms: 9.5 }]);
    expect(mild.linearRatio).toBeGreaterThan(2);
    expect(mild.exponent).toBeGreaterThan(1.4);
    expect(mild.doublings.every((d) => d > 2.5)).toBe(true);
    expect(mild.excessMs).toBeLessThan(VERDICT_MIN_EXCESS_MS);
    expect(mild.suspect).toBe(true);
    expect(mild.superlinear).toBe(false);
  });

  it('never flags cost that is linear plus overhead, whatever the overhead and slope', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 200, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (a, b) => {
        const e = judgeCost({ size: 1, ms: a + b }, DIM.sizes.map((n) => ({ size: n, ms: a + b * n })));
        return !e.superlinear;
      }),
    );
  });
});

describe('probeCost', () => {
  it('flags quadratic cost after a confirming second measurement, climbing the sizes with each round beside a baseline request', async () => {
    const send = modelled(quadratic, 7, 40);
    const v = await probeCost(DIM, send, { seed: 3, ...far });
    expect(v.kind).toBe('superlinear');
    expect(v.requests).toBe(2 * PER_MEASUREMENT);
    for (let m = 0; m < 2; m++) {
      const sent = send.sent.slice(m * PER_MEASUREMENT + 2, m * PER_MEASUREMENT + 2 + CLIMB);
      for (let r = 0; r < sent.length / 2; r++) {
        const pair = sent.slice(2 * r, 2 * r + 2).sort((a, b) => a - b);
        expect(pair).toEqual([DIM.baseline, DIM.sizes[Math.floor(r / COST_ROUNDS)]]);
      }
      // Then the sizes below the largest again, the baseline among them, in a shuffled order each round.
      const again = send.sent.slice(m * PER_MEASUREMENT + 2 + CLIMB, (m + 1) * PER_MEASUREMENT);
      for (let r = 0; r < RECHECK_ROUNDS; r++) {
        const round = again.slice(r * DIM.sizes.length, (r + 1) * DIM.sizes.length).sort((a, b) => a - b);
        expect(round).toEqual([DIM.baseline, ...DIM.sizes.slice(0, -1)]);
      }
    }
  });

  it('stays silent on linear cost under heavy jitter, over many seeds', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const v = await probeCost(DIM, modelled(linear, seed, 60), { seed, ...far });
      expect(v.kind, `seed ${seed}`).toBe('linear');
    }
  });

  it('reports nothing when a suspicion is not confirmed', async () => {
    let measurement = 0;
    let n = 0;
    const send: SendSized = async (size) => {
      measurement = Math.floor(n++ / PER_MEASUREMENT);
      return { ms: measurement === 0 ? quadratic(size) : linear(size) };
    };
    const v = await probeCost(DIM, send, { seed: 1, ...far });
    expect(v.kind).toBe('linear');
    expect(v.requests).toBe(2 * PER_MEASUREMENT);
  });

  it('confirms a suspicion raised before the deadline even past it, within its allowance, and no further', async () => {
    // A clock that only the requests move: each takes its latency of wall time, `slower` times it in the confirmation.
    let now = 1_000_000;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const recheckMs = RECHECK_ROUNDS * [DIM.baseline, ...DIM.sizes.slice(0, -1)].reduce((a, size) => a + quadratic(size), 0);
      const firstMs = quadratic(DIM.baseline) + quadratic(DIM.sizes[0]!) + COST_ROUNDS * DIM.sizes.reduce((a, size) => a + quadratic(DIM.baseline) + quadratic(size), 0) + recheckMs;
      const slowing = (slower: number): SendSized => {
        let n = 0;
        return async (size) => {
          now += quadratic(size) * (n++ < PER_MEASUREMENT ? 1 : slower);
          return { ms: quadratic(size) };
        };
      };
      // The first measurement ends just before the deadline: without the allowance the confirmation would find no time.
      const fits = await probeCost(DIM, slowing(1), { seed: 3, deadline: now + firstMs + 5 });
      expect(fits.kind).toBe('superlinear');
      // A confirmation three times slower than the first, past its allowance (1.5× the first), is cut
      // there (a round begun before it runs to its end): bounded, inconclusive.
      const late = await probeCost(DIM, slowing(3), { seed: 3, deadline: now + firstMs + 5 });
      expect(late).toMatchObject({ kind: 'inconclusive', reason: expect.stringContaining('could not be confirmed') });
      expect(CONFIRM_ALLOWANCE).toBeLessThan(2);
    } finally {
      clock.mockRestore();
    }
  });

  it('is inconclusive when a request is refused or the time budget runs out', async () => {
    const refused = await probeCost(DIM, async (size) => (size === LIMIT ? { refused: 'HTTP 413' } : { ms: 1 }), { seed: 1, ...far });
    expect(refused).toMatchObject({ kind: 'inconclusive', reason: 'HTTP 413' });
    const late = await probeCost(DIM, async () => ({ ms: 1 }), { seed: 1, deadline: Date.now() - 1 });
    expect(late).toMatchObject({ kind: 'inconclusive', requests: 0 });
  });

  it('does not begin a size the rate seen so far says would pass the deadline, and says how far it got', async () => {
    // Linear at 1 ms per unit: the largest size would take 4 rounds of ~2 s; the deadline leaves room for the smaller ones only.
    let clock = 0;
    const realNow = Date.now;
    Date.now = () => clock;
    try {
      const send: SendSized = async (size) => {
        const ms = 1 + size;
        clock += ms;
        return { ms };
      };
      const deadline = 12_000;
      const v = await probeCost(DIM, send, { seed: 1, deadline });
      expect(v).toMatchObject({ kind: 'inconclusive', reached: LIMIT / 2 });
      expect(v.kind === 'inconclusive' && v.reason).toMatch(new RegExp(`before blob_ids per op ${LIMIT}`));
      // Nothing was sent at the size it did not begin: the simulated clock stopped short of the deadline.
      expect(clock).toBeLessThan(deadline);
    } finally {
      Date.now = realNow;
    }
  });

  it('takes a size whose requests cost many times the linear prediction, twice, as evidence without climbing further', async () => {
    // Linear up to half the limit, then a cliff (a quadratic term that only shows at the largest sizes, or a pathological path).
    const cliff = (n: number) => (n >= LIMIT / 2 ? linear(n) + 400 : linear(n));
    const send = modelled(cliff, 5, 0);
    const v = await probeCost(DIM, send, { seed: 2, ...far });
    expect(v.kind).toBe('superlinear');
    // Each measurement's fastest at half the limit is far beyond the line the smaller sizes drew: the limit is never sent.
    const perMeasurement = 2 + COST_ROUNDS * 2 * (DIM.sizes.length - 1);
    expect(v.requests).toBe(2 * perMeasurement);
    expect(send.sent).not.toContain(LIMIT);
  });

  it('judges the second measurement after an outlier it does not see again: a spike on a curve that grows worse than linearly is still found', async () => {
    // The first measurement meets a one-off spike at half the limit (an outlier, measured no further);
    // the second sees the plain quadratic curve. Before, an unrepeated outlier ended in "linear".
    let n = 0;
    const send: SendSized = async (size) => {
      const first = n++ < 2 + COST_ROUNDS * 2 * 3;
      return { ms: quadratic(size) + (first && size === LIMIT / 2 ? 400 : 0) };
    };
    const v = await probeCost(DIM, send, { seed: 4, ...far });
    expect(v.kind).toBe('superlinear');
  });

  it('sends each round\'s pair together when asked (over a network), and the smaller sizes measured again one at a time', async () => {
    let inFlight = 0;
    const peaks: number[] = [];
    const send: SendSized = async (size) => {
      inFlight++;
      peaks.push(inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      return { ms: linear(size) };
    };
    const v = await probeCost(DIM, send, { seed: 5, ...far, pairsTogether: true });
    expect(v.kind).toBe('linear');
    expect(v.requests).toBe(PER_MEASUREMENT);
    // The warm-up alone, then pairs (the second of each pair sent while the first is in flight), then one at a time.
    const climb = peaks.slice(2, 2 + CLIMB);
    expect(climb.filter((p) => p === 2)).toHaveLength(CLIMB / 2);
    expect(peaks.slice(0, 2).concat(peaks.slice(2 + CLIMB)).every((p) => p === 1)).toBe(true);
  });

  it('takes its sizes from the limit, never beyond it', () => {
    expect(sizesUpTo(LIMIT, 1)).toEqual([LIMIT / 8, LIMIT / 4, LIMIT / 2, LIMIT]);
    expect(Math.max(...sizesUpTo(LIMITS.opsPerCommit.max!, 1))).toBe(LIMITS.opsPerCommit.max);
  });
});

const COST = performanceJudgement('test.cost', 'cost grows at most linearly', 'a rule of thumb for the tests, long enough to read as a basis');
const SPEC = specJudgement('test.spec', 'served', 'commitOperations', READING_FREE);
const perf = (judgement: string): Outcome => ({ ok: false, kind: 'performance', judgement, message: 'exponent 2' });

describe('grounding and counting performance findings', () => {
  const prop = { id: 'test.p', judgements: [COST, SPEC], assumptions: [] };
  it('vetOutcome accepts a performance finding only from a performance judgement the property lists', () => {
    expect(vetOutcome(prop, perf(COST.id))).toEqual(perf(COST.id));
    expect(() => vetOutcome(prop, perf('test.unlisted'))).toThrow(UngroundedFinding);
    expect(() => vetOutcome(prop, perf(SPEC.id))).toThrow(/not a performance judgement/);
    // A cost judgement has no clause: it can never ground a violation.
    expect(() => vetOutcome(prop, { ok: false, kind: 'violation', judgement: COST.id, message: 'slow', clause: SPEC.ground.clause })).toThrow(/no clause grounds/);
  });

  it('a performance finding kills only a fault naming its property, and is a false finding on the correct reference', () => {
    const f = { kind: 'performance' as const, property: 'performance.cost-growth' };
    expect(detectsFault(f, { expectedKillers: ['load.cost-curve', 'performance.cost-growth'] })).toBe(true);
    expect(detectsFault(f, { expectedKillers: ['shapes.valid-accepted'] })).toBe(false);
    // On the correct reference any finding but an explained skip counts against the suite: a performance one too.
    const p = defineProperty<number>({ id: 'performance.cost-growth', section: '4.2', invariant: 'stand-in', assumptions: [], needs: [],
      arbitrary: () => fc.constant(0), check: async () => ({ ok: true }) });
    const result = { id: p.id, section: p.section, status: 'passed' as const, runs: 1, requests: 1, durationMs: 1,
      findings: [{ kind: 'performance' as const, property: p.id, section: p.section, message: 'cost grows' }] };
    expect(cleanRunProblems([result], [p], { profile: standInProfile('http://127.0.0.1:1'), embedded: true, runs: 1 }).map((x) => x.kind)).toEqual(['performance']);
  });
});

describe('failOn and reports', () => {
  const slow = defineProperty<number>({
    id: 'test.slow',
    section: '4.2',
    invariant: 'a stand-in that always finds a cost smell',
    assumptions: [],
    judgements: [COST],
    needs: [],
    runs: 1,
    arbitrary: () => fc.constant(0),
    check: async () => perf(COST.id),
  });
  // Nothing is sent: the property answers without a request.
  const profile = standInProfile('http://127.0.0.1:9');
  const run = (failOn?: readonly 'performance'[]): Promise<RunResult> => runProperties(profile, [slow], { seed: 1, runs: 1, ...(failOn ? { failOn } : {}) });

  it('a performance finding leaves the exit code at 0 unless the run fails on performance', async () => {
    const quiet = await run();
    expect(quiet.results[0]!.findings.map((f) => f.kind)).toEqual(['performance']);
    expect(quiet.results[0]!.findings[0]).toMatchObject({ judgement: COST.id, ground: expect.stringContaining('no clause') });
    expect(quiet.results[0]!.status).toBe('passed');
    expect(runExitCode(quiet)).toBe(0);
    expect(runExitCode(await run(['performance']))).toBe(1);
  });

  it('is reported apart in report.json, summary.md, junit.xml and the console', async () => {
    for (const failOn of [undefined, ['performance'] as const]) {
      const r = await run(failOn);
      const report = ReportSchema.parse(buildReport(r, { version: '0', targetName: 't', embedded: false, runs: 1, assumptions: {}, secrets: [], ...(failOn ? { failOn } : {}) }));
      expect(report.totals.findings.performance).toBe(1);
      expect(report.totals.findings.violation).toBe(0);
      expect(report.options.failOn).toEqual(failOn);
      const md = toSummaryMarkdown(report);
      expect(md).toContain(`### Performance findings (${failOn ? 'failing the run: --fail-on performance' : 'reported, not failed'})`);
      expect(md).not.toContain('### Violations');
      expect(md.split('\n')[0]).toBe(failOn ? '## pouchproof: 1 performance finding(s) (--fail-on performance)' : '## pouchproof: no violations');
      const junit = toJunit(report);
      if (failOn) expect(junit).toContain('<failure type="performance"');
      else expect(junit).toMatch(/<system-out>\[evidence\] judged 1\/1 random[^\n]*\n\[performance\] exponent 2<\/system-out>/);
      let out = '';
      new ConsoleView({ out: { write: (s: string) => (out += s), isTTY: false }, env: {} }).summary(report);
      expect(out).toContain('Performance findings (cost smells, no clause of the spec;');
      expect(out).toContain('1 performance finding(s)');
      expect(out).not.toContain('VIOLATION');
    }
  });
});

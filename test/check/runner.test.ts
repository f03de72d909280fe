import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assumptionMismatch, expectAccepted, expectRejected, Notes, violation } from '../../src/check/judge/judge.ts';
import { ANSWER_READINGS, FIELD_WITHIN_CONSTRAINTS, READING_FREE, readingJudgement, SERVES, specJudgement } from '../../src/check/judge/judgements.ts';
import { ASSUMPTIONS, type AssumptionName } from '../../src/spec/index.ts';
import { defineProperty, PASS, type Property } from '../../src/check/property.ts';
import { decodeReplayToken } from '../../src/check/run/replay-token.ts';
import { counterexampleText, makeRunId, MAX_SHRINK_TRIES, replayProperty, runProperties, runExitCode } from '../../src/check/run/index.ts';
import { curlLines } from '../../src/report/curl-lines.ts';
import { startStandIn, standInProfile, type StandIn } from './stand-in.ts';

/** Sends n as the x-value header; the stand-in decides from it. */
function send(ctx: Parameters<Property['check']>[0], n: number) {
  return ctx.call({ endpoint: 'reportUsage', params: { sourceId: ctx.sourceId() }, body: { rows: [] }, as: 'anonymous', headers: { 'x-value': String(n) } });
}

// The stand-in rejects values >= 37 and fails with 500 at exactly 900.
let srv: StandIn;
beforeAll(async () => {
  srv = await startStandIn((v) => (v === 900 ? 'fail' : v >= 37 && v < 2000 ? 'reject' : v >= 5000 && v < 5700 ? 'ok' : v >= 5000 ? 'reject' : 'ok'));
});
afterAll(async () => {
  await srv.close();
});

const threshold = defineProperty<number>({
  id: 'synthetic.threshold',
  section: '4.3',
  invariant: 'every value is accepted',
  assumptions: [],
  needs: [],
  arbitrary: () => fc.integer({ min: 0, max: 800 }),
  async check(ctx, n) {
    return expectAccepted(await send(ctx, n));
  },
});

describe('runProperties', () => {
  it('finds a violation, shrinks it to the minimal case, and its replay token reproduces it', async () => {
    const profile = standInProfile(srv.url);
    const run = await runProperties(profile, [threshold as Property], { seed: 42, runs: 50 });
    expect(runExitCode(run)).toBe(1);
    const r = run.results[0]!;
    expect(r.status).toBe('failed');
    const f = r.findings.find((x) => x.kind === 'violation')!;
    expect(f).toBeDefined();
    expect(f.input).toBe(37);
    expect(counterexampleText(f)).toBe('37');
    expect(f.shrinks).toBeGreaterThan(0);
    expect(f.message).toContain('HTTP 400');
    expect(curlLines(f).some((c) => c.startsWith('curl') && c.includes('x-value'))).toBe(true);
    expect(run.requests).toBeGreaterThan(0);
    expect(run.firstDetectionAfterRequests).toBeGreaterThan(0);

    const token = decodeReplayToken(f.replay!);
    expect(token.property).toBe('synthetic.threshold');
    const before = srv.seen.length;
    const again = await replayProperty(profile, threshold as Property, token);
    expect(again.status).toBe('failed');
    expect(again.findings[0]!.input).toBe(37);
    // The replay goes straight to the counterexample: far fewer requests than the original search.
    expect(srv.seen.length - before).toBeLessThan(r.requests);
  });

  it('stops a shrink after MAX_SHRINK_TRIES cases, says so, and its replay token shrinks on from there', async () => {
    // Refused from 2^299 up: a uniform 300-bit draw shrinks toward it by halving, ~300 tries.
    const LOW = 2n ** 299n;
    const long = defineProperty<bigint>({
      id: 'synthetic.long-shrink',
      section: '4.3',
      invariant: 'every value is accepted',
      assumptions: [],
      needs: [],
      arbitrary: () => fc.noBias(fc.bigInt({ min: 0n, max: 2n ** 300n })),
      async check(ctx, n) {
        return expectAccepted(await send(ctx, n >= LOW ? 37 : 5));
      },
    });
    const profile = standInProfile(srv.url);
    const before = srv.seen.length;
    const run = await runProperties(profile, [long as Property], { seed: 9, runs: 8 });
    const f = run.results[0]!.findings.find((x) => x.kind === 'violation')!;
    expect(f.message).toContain(`shrinking stopped after ${MAX_SHRINK_TRIES} tries`);
    expect(f.shrinks).toBeGreaterThan(0);
    expect(f.shrinks).toBeLessThanOrEqual(MAX_SHRINK_TRIES);
    // The run's cases, then the failing one again and at most the budget's tries.
    expect(srv.seen.length - before).toBeLessThanOrEqual(8 + 1 + MAX_SHRINK_TRIES);
    expect(f.input).not.toBe(`${LOW}n`);
    const again = await replayProperty(profile, long as Property, decodeReplayToken(f.replay!));
    expect(again.findings[0]!.input).toBe(`${LOW}n`);
  });

  it('reports a 5xx as a server-error finding', async () => {
    const p = defineProperty<number>({ ...threshold, id: 'synthetic.five-hundred', arbitrary: () => fc.constant(900) });
    const run = await runProperties(standInProfile(srv.url), [p as Property], { seed: 1, runs: 3 });
    expect(runExitCode(run)).toBe(1);
    expect(run.results[0]!.findings.map((f) => f.kind)).toEqual(['server-error']);
  });

  it('records an assumption mismatch without failing the run or stopping the property; cases a reading left unjudged vouch for nothing', async () => {
    let cases = 0;
    const p = defineProperty<number>({
      id: 'synthetic.assumption',
      section: '4.3',
      invariant: 'rejection reading',
      assumptions: ['usage-stored-meaning'],
      needs: [],
      arbitrary: () => fc.integer({ min: 0, max: 10 }),
      async check(ctx, n) {
        cases++;
        return expectRejected(await send(ctx, n), { blame: { assumption: 'usage-stored-meaning' } });
      },
    });
    const run = await runProperties(standInProfile(srv.url), [p as Property], { seed: 7, runs: 12 });
    expect(cases).toBe(12);
    const r = run.results[0]!;
    expect(r.runs).toBe(12);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]!.kind).toBe('assumption');
    expect(r.findings[0]!.assumption).toBe('usage-stored-meaning');
    expect(r.findings[0]!.occurrences).toBe(12);
    // Every case stopped at the reading before its invariant was checked: nothing was vouched for.
    expect(r.status).toBe('inconclusive');
    expect(r.evidence?.random).toMatchObject({ planned: 12, judged: 0, unjudged: { assumption: 12 } });
    expect(r.inconclusive).toMatch(/^judged 0 of 12 random cases \(its floor: 6\); not judged: 12 a reading the target does not follow/);
    expect(runExitCode(run)).toBe(2);
    expect(run.inconclusive).toMatch(/^could not vouch for 1 property \(synthetic\.assumption\)/);

    // The same reading noted on the way, with the invariant checked after it (`Notes`): judged, and passed.
    const noted = defineProperty<number>({
      ...p,
      id: 'synthetic.noted',
      async check(ctx, n) {
        const notes = new Notes();
        notes.add(assumptionMismatch('usage-stored-meaning', 'stored read otherwise'));
        return notes.result(expectAccepted(await send(ctx, n)));
      },
    });
    const checked = await runProperties(standInProfile(srv.url), [noted as Property], { seed: 7, runs: 12 });
    expect(checked.results[0]).toMatchObject({ status: 'passed', evidence: { random: { judged: 12 } } });
    expect(checked.results[0]!.findings).toEqual([expect.objectContaining({ kind: 'assumption', occurrences: 12 })]);
    expect(runExitCode(checked)).toBe(0);
  });

  it('discards shrinks that no longer break the labelled constraint (stillValid) instead of judging them', async () => {
    // "values of 5000 and more are over the limit"; the stand-in wrongly accepts 5000..5699.
    const judged: number[] = [];
    // The generator wanders below the limit (as a shrink of a real negative case can): such cases must be dropped.
    const wide = defineProperty<number>({
      id: 'synthetic.negative',
      section: '8',
      invariant: 'over-limit values are rejected',
      assumptions: [],
      needs: [],
      arbitrary: () => fc.integer({ min: 0, max: 6000 }),
      stillValid: (n) => n >= 5000,
      async check(ctx, n) {
        judged.push(n);
        return expectRejected(await send(ctx, n), { blame: { judgement: SERVES.reportUsage } });
      },
    });
    const run = await runProperties(standInProfile(srv.url), [wide as Property], { seed: 3, runs: 200 });
    const f = run.results[0]!.findings.find((x) => x.kind === 'violation');
    expect(f).toBeDefined();
    expect(f!.input).toBe(5000);
    expect(judged.every((n) => n >= 5000)).toBe(true);
  });

  it('skips a property whose capability the profile lacks, with the reason', async () => {
    const p = defineProperty<number>({ ...threshold, id: 'synthetic.needs-device', needs: ['device'] });
    const q = defineProperty<number>({ ...threshold, id: 'synthetic.needs-embedded', needs: ['embedded-only'] });
    const run = await runProperties(standInProfile(srv.url), [p as Property, q as Property], { seed: 1, runs: 5 });
    // Everything skipped: nothing was checked, which is not a pass.
    expect(runExitCode(run)).toBe(2);
    expect(run.requests).toBe(0);
    for (const r of run.results) {
      expect(r.status).toBe('skipped');
      expect(r.findings[0]!.kind).toBe('skipped');
    }
    expect(run.results[0]!.findings[0]!.message).toMatch(/device/);
    expect(run.results[1]!.findings[0]!.message).toMatch(/embedded reference/);
  });

  it('stops cleanly on abort: the run is marked interrupted and later properties are not run', async () => {
    const ac = new AbortController();
    let calls = 0;
    const aborting = defineProperty<number>({
      id: 'synthetic.aborting',
      section: '4.3',
      invariant: 'passes',
      assumptions: [],
      needs: [],
      arbitrary: () => fc.nat(),
      async check(ctx) {
        if (++calls === 3) ac.abort();
        await send(ctx, 1);
        return PASS;
      },
    });
    const run = await runProperties(standInProfile(srv.url), [aborting as Property, threshold as Property], { seed: 1, runs: 100, signal: ac.signal });
    expect(run.interrupted).toBe(true);
    expect(calls).toBe(3);
    expect(run.results[0]!.status).toBe('interrupted');
    expect(run.results[1]!.status).toBe('interrupted');
    expect(run.results[1]!.runs).toBe(0);
  });

  it('reports a property that throws as a transport finding, not a violation (and, since no case completed, inconclusive)', async () => {
    const p = defineProperty<number>({ ...threshold, id: 'synthetic.throws', check: async () => { throw new Error('bug in property'); } });
    const run = await runProperties(standInProfile(srv.url), [p as Property], { seed: 1, runs: 4 });
    expect(runExitCode(run)).toBe(2);
    expect(run.results[0]!.status).toBe('inconclusive');
    expect(run.results[0]!.inconclusive).toMatch(/^judged 0 of 4 random cases \(its floor: 2\); not judged: 4 transport failure/);
    expect(run.inconclusive).toMatch(/^could not vouch for 1 property \(synthetic\.throws\): synthetic\.throws: judged 0 of 4/);
    expect(run.results[0]!.findings).toHaveLength(1);
    expect(run.results[0]!.findings[0]).toMatchObject({ kind: 'transport', occurrences: 4 });
    expect(run.results[0]!.findings[0]!.message).toContain('bug in property');
  });

  it('reports a property whose arbitrary cannot be built as an error of pouchproof, exit 2, never a pass', async () => {
    const broken = defineProperty<number>({ ...threshold, id: 'synthetic.unbuildable', arbitrary: () => { throw new Error('no such generator'); } });
    const run = await runProperties(standInProfile(srv.url), [broken as Property], { seed: 1, runs: 4 });
    expect(run.results[0]).toMatchObject({ status: 'error', runs: 0, requests: 0 });
    expect(run.results[0]!.findings).toEqual([expect.objectContaining({ kind: 'error', property: 'synthetic.unbuildable' })]);
    expect(run.results[0]!.findings[0]!.message).toMatch(/pouchproof could not build the property's cases: no such generator/);
    expect(runExitCode(run)).toBe(2);
    // A violation elsewhere in the run is still what the exit code says: the target broke the spec.
    const five = defineProperty<number>({ ...threshold, id: 'synthetic.five-hundred', arbitrary: () => fc.constant(900) });
    const both = await runProperties(standInProfile(srv.url), [broken as Property, five as Property], { seed: 1, runs: 2 });
    expect(both.results.map((r) => r.status)).toEqual(['error', 'failed']);
    expect(runExitCode(both)).toBe(1);
  });

  it('honours --only globs and a property\'s lower run count', async () => {
    const few = defineProperty<number>({ ...threshold, id: 'other.few', runs: 3, arbitrary: () => fc.integer({ min: 0, max: 10 }) });
    const run = await runProperties(standInProfile(srv.url), [threshold as Property, few as Property], { seed: 1, runs: 10, only: ['other.*'] });
    expect(run.results.map((r) => r.id)).toEqual(['other.few']);
    expect(run.results[0]!.runs).toBe(3);
  });

  it('gives each case fresh identifiers', async () => {
    const ids = new Set<string>();
    const p = defineProperty<number>({
      ...threshold,
      id: 'synthetic.fresh',
      arbitrary: () => fc.constant(1),
      async check(ctx) {
        ids.add(ctx.uuid());
        ids.add(ctx.sourceId());
        return PASS;
      },
    });
    await runProperties(standInProfile(srv.url), [p as Property], { seed: 1, runs: 10 });
    expect(ids.size).toBe(20);
    expect([...ids].filter((s) => /^[0-9a-f]{32}$/.test(s))).toHaveLength(10);
  });

  it('says when a property\'s time bound cut it short: passed on its floor of judged cases, inconclusive below it', async () => {
    // The first `quick` cases answer at once; the rest wait until the bound ends them.
    const cutAfter = (quick: number) => {
      let started = 0;
      return defineProperty<number>({ ...threshold, id: 'synthetic.slow', concurrency: 1, arbitrary: () => fc.constant(1),
        async check(ctx, n) {
          if (++started > quick) await new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }));
          return expectAccepted(await send(ctx, n));
        } });
    };
    const enough = await runProperties(standInProfile(srv.url), [cutAfter(6) as Property], { seed: 1, runs: 10, perPropertyMs: 300 });
    expect(enough.results[0]).toMatchObject({ status: 'passed', timeBound: { planned: 10 }, evidence: { random: { planned: 10, judged: 6, unjudged: { time: 4 } } } });
    expect(runExitCode(enough)).toBe(0);
    const few = await runProperties(standInProfile(srv.url), [cutAfter(4) as Property], { seed: 1, runs: 10, perPropertyMs: 300 });
    expect(few.results[0]).toMatchObject({ status: 'inconclusive', timeBound: { planned: 10 }, evidence: { random: { judged: 4, unjudged: { time: 6 } } } });
    expect(few.results[0]!.inconclusive).toMatch(/^judged 4 of 10 random cases \(its floor: 5\); not judged: 6 out of time; its time bound \(0\.3 s\) ended it/);
    expect(runExitCode(few)).toBe(2);
    const full = await runProperties(standInProfile(srv.url), [cutAfter(2) as Property], { seed: 1, runs: 2, perPropertyMs: 10_000 });
    expect(full.results[0]!.timeBound).toBeUndefined();
  });

  it('stops with one clear finding when the target answers nothing, instead of timing out every case', async () => {
    const { createServer } = await import('node:net');
    const { UNREACHABLE_AFTER } = await import('../../src/check/run/context.ts');
    const hole = createServer((sock) => sock.on('data', () => undefined));
    await new Promise<void>((r) => hole.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(hole.address() as { port: number }).port}`;
      const other = defineProperty<number>({ ...threshold, id: 'synthetic.other' });
      const run = await runProperties(standInProfile(url), [threshold as Property, other as Property], { seed: 3, runs: 50, perRequestMs: 100, concurrency: 4 });
      // Cases run side by side: those already sent when the eighth silence is counted finish, no new one starts.
      expect(run.requests).toBeGreaterThanOrEqual(UNREACHABLE_AFTER);
      expect(run.requests).toBeLessThan(UNREACHABLE_AFTER + 4);
      expect(run.unreachable).toMatch(/stopped answering: (8|9|10|11) requests in a row got no complete response/);
      expect(runExitCode(run)).toBe(3);
      expect(run.results[0]!.findings.some((f) => f.kind === 'transport' && /the run stops here/.test(f.message))).toBe(true);
      expect(run.results[0]!.findings.some((f) => f.kind === 'violation')).toBe(false);
      expect(run.results[1]).toMatchObject({ status: 'skipped', findings: [{ kind: 'skipped', message: 'not run: the target stopped answering' }] });
    } finally {
      await new Promise((r) => hole.close(r));
    }
  });

  it('keeps the last 6 requests of a failing case as curl lines, or all of them for a property that shows all its requests', async () => {
    // Eight accepted requests, then a refused one: a sequence of nine steps.
    const steps = (showAllRequests: boolean) =>
      defineProperty<number>({
        id: 'synthetic.steps',
        section: '4.3',
        invariant: 'every step is accepted',
        assumptions: [],
        needs: [],
        showAllRequests,
        arbitrary: () => fc.constant(37),
        async check(ctx, n) {
          for (let i = 0; i < 8; i++) {
            const ok = expectAccepted(await send(ctx, i));
            if (!ok.ok) return ok;
          }
          return expectAccepted(await send(ctx, n));
        },
      }) as Property;
    const violationOf = async (p: Property) => (await runProperties(standInProfile(srv.url), [p], { seed: 1, runs: 1 })).results[0]!.findings.find((f) => f.kind === 'violation')!;
    const curlsOf = async (p: Property) => curlLines(await violationOf(p));
    const last = await curlsOf(steps(false));
    expect(last.filter((c) => c.includes('x-value'))).toHaveLength(6);
    expect(last[0]).toBe('# 3 earlier request(s) of this case omitted');
    const all = await curlsOf(steps(true));
    expect(all.filter((c) => c.includes('x-value'))).toHaveLength(9);
    expect(all.map((c) => /x-value: (\d+)/.exec(c)?.[1])).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '37']);
  });

  it('makes run ids of the documented form', () => {
    expect(makeRunId(255, new Date(Date.UTC(2026, 0, 2, 3, 4, 5)))).toBe('20260102-030405-000000ff');
  });
});

describe('unknown scoped to the judgement (Judgement.reads)', () => {
  // A case that consults batch-atomicity on its way, then finds a violation of a judgement.
  const finding = (reads: readonly AssumptionName[]) => {
    const j = specJudgement('synthetic.broken', 'a rule', 'envelopeFields', { reads });
    return defineProperty<number>({
      id: `synthetic.reads-${reads.join('-') || 'none'}`,
      section: '2.1',
      invariant: 'a rule',
      assumptions: ['batch-atomicity'],
      judgements: [j],
      needs: [],
      arbitrary: () => fc.constant(1),
      async check(ctx) {
        void ctx.assumptions['batch-atomicity'];
        return violation(j, 'broken');
      },
    });
  };
  const unknownReadings = new Map<AssumptionName, string>([['batch-atomicity', 'the probe saw a 5xx']]);
  const kindsOf = async (p: Property) => (await runProperties(standInProfile(srv.url), [p], { seed: 1, runs: 2, unknownReadings })).results[0]!.findings.map((f) => f.kind);

  it('declared to read others only: the consulted reading it does not name leaves the violation standing', async () => {
    expect(await kindsOf(finding(['usage-row-key']) as Property)).toEqual(['violation']);
  });

  it('declared reading-free: the violation stands whatever the probe left unidentified', async () => {
    expect(await kindsOf(finding([]) as Property)).toEqual(['violation']);
  });

  it('declared to read it: unknown again', async () => {
    expect(await kindsOf(finding(['batch-atomicity']) as Property)).toEqual(['unknown']);
  });

  // An assumption finding on seq-semantics, after a case that consulted batch-atomicity too: what the judgements grounded on seq-semantics read decides.
  const departure = (reads: readonly AssumptionName[]) =>
    defineProperty<number>({
      id: `synthetic.departs-${reads.join('-') || 'none'}`,
      section: '4.2',
      invariant: 'seq as the run reads it',
      assumptions: ['batch-atomicity', 'seq-semantics'],
      judgements: [readingJudgement('synthetic.seq', 'seq as the run reads it', 'seq-semantics', { reads })],
      needs: [],
      arbitrary: () => fc.constant(1),
      async check(ctx) {
        void ctx.assumptions['batch-atomicity'];
        void ctx.assumptions['seq-semantics'];
        return assumptionMismatch('seq-semantics', 'seq did not rise as read');
      },
    });

  it('an assumption finding whose reading\'s judgements do not read the unidentified one stands', async () => {
    expect(await kindsOf(departure([]) as Property)).toEqual(['assumption']);
  });

  it('an assumption finding whose reading\'s judgements read it: unknown', async () => {
    expect(await kindsOf(departure(['batch-atomicity']) as Property)).toEqual(['unknown']);
  });

  // A refused valid request is served or not whatever a success's answer means: the shared refusal judgements read no answer-only reading.
  const refusedValid = (consults: AssumptionName) =>
    defineProperty<number>({
      id: `synthetic.refused-after-${consults}`,
      section: '4.2',
      invariant: 'a valid commit is served',
      assumptions: [consults],
      judgements: [],
      needs: [],
      arbitrary: () => fc.constant(1),
      async check(ctx) {
        void ctx.assumptions[consults];
        return violation(SERVES.commitOperations, 'refused, while the same request with only ops[0].envelope plain is accepted');
      },
    });
  const unknownAlone = async (p: Property, n: AssumptionName) =>
    (await runProperties(standInProfile(srv.url), [p], { seed: 1, runs: 2, unknownReadings: new Map([[n, 'the probe saw a 5xx']]) })).results[0]!.findings.map((f) => f.kind);

  it.each(ANSWER_READINGS)('a refusal stands whatever %s, which only reads answers, was left as', async (n) => {
    expect(await unknownAlone(refusedValid(n) as Property, n)).toEqual(['violation']);
  });

  it.each<AssumptionName>(['empty-lists', 'conflict-behaviour', 'canonical-json', 'usage-row-key'])('a refusal that %s may explain is unknown while it is', async (n) => {
    expect(await unknownAlone(refusedValid(n) as Property, n)).toEqual(['unknown']);
  });

  it('every reading that covers a situation is one a refusal may rest on', () => {
    for (const a of ASSUMPTIONS.filter((x) => x.choices.some((c) => c.covers.length > 0))) {
      expect(SERVES.commitOperations.reads).toContain(a.name);
      expect(FIELD_WITHIN_CONSTRAINTS.reads).toContain(a.name);
      expect(ANSWER_READINGS).not.toContain(a.name);
    }
  });
});

describe('every distinct failure reported (issue 29 item 4)', () => {
  // Cases fail by n mod 3: part "one" at 1, part "two" at 2; each shrinks to its own smallest case.
  const j = specJudgement('synthetic.mod3', 'a rule', 'envelopeFields', READING_FREE);
  const mod3 = (parts: boolean) =>
    defineProperty<number>({
      id: `synthetic.mod3-${parts ? 'parts' : 'one'}`,
      section: '2.1',
      invariant: 'n is a multiple of 3',
      assumptions: [],
      judgements: [j],
      needs: [],
      arbitrary: () => fc.integer({ min: 0, max: 800 }),
      async check(_ctx, n) {
        if (n % 3 === 0) return PASS;
        const o = violation(j, `n = ${n}`);
        return parts && !o.ok && o.kind === 'violation' ? { ...o, part: n % 3 === 1 ? 'one' : 'two' } : o;
      },
    });

  it('two parts failing: two findings, each shrunk within its own part, each with its own replay token', async () => {
    const run = await runProperties(standInProfile(srv.url), [mod3(true) as Property], { seed: 3, runs: 40 });
    const found = run.results[0]!.findings.filter((f) => f.kind === 'violation');
    // Each shrunk within its own way of failing: a shrink that failed the other way was not taken.
    expect(found.map((f) => Number(f.message.slice('n = '.length)) % 3).sort()).toEqual([1, 2]);
    expect(new Set(found.map((f) => f.replay)).size).toBe(2);
  });

  it('one way of failing: one finding, however many cases fail', async () => {
    const run = await runProperties(standInProfile(srv.url), [mod3(false) as Property], { seed: 3, runs: 40 });
    const found = run.results[0]!.findings.filter((f) => f.kind === 'violation');
    expect(found).toHaveLength(1);
    expect(Number(found[0]!.message.slice('n = '.length)) % 3).not.toBe(0);
  });
});

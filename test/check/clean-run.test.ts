/**
 * The standard every run against the correct reference is held to (src/check/clean-run.ts): any
 * finding but an expected skip, and any property that did not run its planned cases to a pass, is a
 * problem — judged on real runs of synthetic properties against a stand-in target.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanRunProblems } from '../../src/check/clean-run.ts';
import { expectAccepted } from '../../src/check/judge/judge.ts';
import { defineProperty, type Property } from '../../src/check/property.ts';
import { runProperties, type PropertyResult } from '../../src/check/run/index.ts';
import { startStandIn, standInProfile, type StandIn } from './stand-in.ts';

const base = { section: '4.3', invariant: 'synthetic', assumptions: [], needs: [] } as const;
/** Judges one accepted request per case. */
const quiet = defineProperty<number>({ ...base, id: 'synthetic.quiet', arbitrary: () => fc.integer({ min: 0, max: 9 }),
  check: async (ctx) => expectAccepted(await ctx.call({ endpoint: 'reportUsage', params: { sourceId: ctx.sourceId() }, body: { rows: [] }, as: 'anonymous' })) });
const fewer = defineProperty<number>({ ...quiet, id: 'synthetic.fewer', runs: 3 });
/** Throws on the even values it is given (and again when the runner tries such a case once more): a transport finding, and a pass on what it judged. */
const seenValues: number[] = [];
const throwing = defineProperty<number>({ ...quiet, id: 'synthetic.throwing', arbitrary: () => fc.constantFrom(1, 2, 3), async check(ctx, n) {
  seenValues.push(n);
  if (n % 2 === 0) throw new Error(`cannot handle ${n}`);
  return quiet.check(ctx, n);
} });
/** Waits on every case: its time bound cuts it short, far below its floor. */
const slow = defineProperty<number>({ ...quiet, id: 'synthetic.slow', async check(ctx, n) {
  await new Promise((r) => setTimeout(r, 30));
  return quiet.check(ctx, n);
} });
const needsBrowser = defineProperty<number>({ ...quiet, id: 'synthetic.browser', needs: ['browser'] });

let srv: StandIn;
beforeAll(async () => {
  srv = await startStandIn(() => 'ok');
});
afterAll(() => srv.close());

async function judge(props: Property[], runs: number, o: { perPropertyMs?: number; withBrowser?: boolean } = {}) {
  const profile = standInProfile(srv.url, o.withBrowser);
  const run = await runProperties(profile, props, { seed: 5, runs, embedded: true, ...(o.perPropertyMs ? { perPropertyMs: o.perPropertyMs } : {}) });
  return { run, problems: cleanRunProblems(run.results, props, { profile, embedded: true, runs }) };
}

describe('a clean run', () => {
  it('is every property passed at its planned cases (a property asking for fewer runs fewer), skipped only for what the profile lacks', async () => {
    const { run, problems } = await judge([quiet, fewer, needsBrowser] as Property[], 10);
    expect(run.results.map((r) => [r.id, r.status, r.runs])).toEqual([['synthetic.quiet', 'passed', 10], ['synthetic.fewer', 'passed', 3], ['synthetic.browser', 'skipped', 0]]);
    expect(problems).toEqual([]);
  });

  it('counts a transport finding (a property that throws on some cases) although the property passed', async () => {
    const { run, problems } = await judge([throwing] as Property[], 10);
    const even = run.results[0]!.evidence!.random.unjudged.transport;
    expect(even).toBeGreaterThan(0);
    expect(run.results[0]!.evidence!.random.judged).toBe(10 - even);
    // Each case that threw was tried once more (and threw again): twice as many calls as cases for those.
    expect(seenValues.filter((n) => n % 2 === 0)).toHaveLength(2 * even);
    expect(run.results[0]!.status).toBe(10 - even >= 5 ? 'passed' : 'inconclusive');
    expect(problems.map((p) => [p.property, p.kind])).toContainEqual(['synthetic.throwing', 'transport']);
    expect(problems[0]!.message).toMatch(/cannot handle/);
  });

  it('counts a property cut short by its time bound', async () => {
    const { run, problems } = await judge([slow] as Property[], 1000, { perPropertyMs: 200 });
    expect(run.results[0]).toMatchObject({ status: 'inconclusive', timeBound: { planned: 1000 } });
    expect(problems).toEqual([expect.objectContaining({ property: 'synthetic.slow', kind: 'incomplete', message: expect.stringMatching(/^status inconclusive \(judged \d+ of 1000 random cases \(its floor: 500\); not judged: \d+ out of time; its time bound \(0\.2 s\) ended it\), not passed$/) })]);
  });

  it('counts a skip the profile does not explain, fewer cases than planned, a status other than passed, and a finding kind it has never heard of', () => {
    const profile = standInProfile(srv.url, true);
    const r = (over: Partial<PropertyResult>): PropertyResult => ({ id: 'synthetic.quiet', section: '4.3', status: 'passed', runs: 10, requests: 10, durationMs: 1, findings: [], ...over });
    const judged = (res: PropertyResult, p: Property = quiet as Property) => cleanRunProblems([res], [p], { profile, embedded: true, runs: 10 }).map((x) => x.kind);
    expect(judged(r({}))).toEqual([]);
    expect(judged(r({ runs: 9 }))).toEqual(['incomplete']);
    expect(judged(r({ id: 'synthetic.browser', status: 'skipped', runs: 0, findings: [{ kind: 'skipped', property: 'synthetic.browser', section: '4.3', message: 'skipped: no browser' }] }), needsBrowser as Property)).toEqual(['skipped']);
    expect(judged(r({ status: 'error' as PropertyResult['status'], runs: 0 }))).toEqual(['incomplete']);
    // A kind another part of pouchproof may add later is a problem without being listed here.
    const novel = { kind: 'performance', property: 'synthetic.quiet', section: '4.3', message: 'slow' } as unknown as PropertyResult['findings'][number];
    expect(judged(r({ findings: [novel] }))).toEqual(['performance']);
    const odd = r({ status: 'inconclusive' as unknown as PropertyResult['status'] });
    expect(judged(odd)).toEqual(['incomplete']);
    expect(cleanRunProblems([], [quiet as Property], { profile, embedded: true, runs: 10 }).map((x) => x.message)).toEqual(['no result: the property was not run']);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectAccepted } from '../../src/check/judge/judge.ts';
import { compareKillers, isLoadOnly, median, orderForFault, runMutants } from '../../src/mutants/mutants.ts';
import { killMatrixMarkdown } from '../../src/report/mutants-md.ts';
import { defineProperty, type Property } from '../../src/check/property.ts';
import { startStandIn, standInProfile } from './stand-in.ts';
import { mutantsExitCode } from '../../src/check/run/index.ts';

const threshold = defineProperty<number>({
  id: 'synthetic.threshold', section: '4.3', invariant: 'every value is accepted', assumptions: [], needs: [],
  arbitrary: () => fc.integer({ min: 0, max: 100 }),
  async check(ctx, n) {
    return expectAccepted(await ctx.call({ endpoint: 'reportUsage', params: { sourceId: ctx.sourceId() }, body: { rows: [] }, as: 'anonymous', headers: { 'x-value': String(n) } }));
  },
});
/** Accepted whatever the fault: a property that judges a case and never finds anything. */
const idle = defineProperty<number>({ ...threshold, id: 'synthetic.idle', runs: 3, arbitrary: () => fc.constant(0) });
/** Rejections of value 7 are a reading (assumption), not the letter. */
const reading = defineProperty<number>({
  ...threshold, id: 'synthetic.reading', assumptions: ['credentials-required'], arbitrary: () => fc.constant(7),
  async check(ctx, n) {
    return expectAccepted(await ctx.call({ endpoint: 'reportUsage', params: { sourceId: ctx.sourceId() }, body: { rows: [] }, as: 'anonymous', headers: { 'x-value': String(n) } }), { blame: { assumption: 'credentials-required' } });
  },
});

const FAULTS = [
  { name: 'reject-big', area: 't', description: 'rejects values of 37 and more', expectedKillers: ['synthetic.threshold'] },
  { name: 'harmless', area: 't', description: 'changes nothing', expectedKillers: ['synthetic.threshold'] },
  { name: 'slow', area: 't', description: 'only load sees it', expectedKillers: ['load.latency'] },
  { name: 'open-door', area: 't', description: 'departs from a default reading', expectedKillers: ['synthetic.reading'], deviatesFrom: 'credentials-required' },
  // Caught only as a mismatch of a reading it does not depart from: noise, not a kill.
  { name: 'other-door', area: 't', description: 'departs from another reading', expectedKillers: ['synthetic.reading'], deviatesFrom: 'kid-binding' },
  // Filed under the wrong killer: killed, but not by the property the catalogue expects.
  { name: 'misfiled', area: 't', description: 'rejects values of 37 and more', expectedKillers: ['synthetic.reading'] },
];

describe('runMutants', () => {
  it('records killers, survivors, requests to detection and false findings', async () => {
    const started: string[][] = [];
    const r = await runMutants([idle, threshold, reading] as Property[], FAULTS, async (faults) => {
      started.push([...faults]);
      const srv = await startStandIn((v) => (((faults.includes('reject-big') || faults.includes('misfiled')) && v >= 37) || ((faults.includes('open-door') || faults.includes('other-door')) && v === 7) ? 'reject' : 'ok'));
      return { profile: standInProfile(srv.url), close: () => srv.close() };
    }, { seed: 9, runs: 30, seeds: 2 });
    expect(started).toEqual([['reject-big'], ['harmless'], ['open-door'], ['other-door'], ['misfiled'], [], []]);
    const [big, harmless, slow, door, other, misfiled] = r.faults;
    expect(big).toMatchObject({ killed: true, killedBy: ['synthetic.threshold'], ran: true });
    // Detected as an assumption mismatch: killed, and said so.
    expect(door).toMatchObject({ killed: true, killedBy: ['synthetic.reading'], kills: [{ property: 'synthetic.reading', kind: 'assumption', assumption: 'credentials-required' }] });
    expect(big!.requestsToDetection).toBeGreaterThan(0);
    expect(other).toMatchObject({ killed: false, ran: true, killedBy: [] });
    expect(harmless).toMatchObject({ killed: false, ran: true });
    // No load check was given for its killer: not run, and not counted.
    expect(slow).toMatchObject({ loadOnly: true, ran: false });
    expect(r.survivors).toEqual(['harmless', 'other-door']);
    // Killed, but by a property its catalogue entry does not expect: shown as such.
    expect(misfiled).toMatchObject({ killed: true, killedBy: ['synthetic.threshold'] });
    expect(compareKillers(misfiled!)).toEqual({ expectedKillers: [], unexpectedKillers: ['synthetic.threshold'], asExpected: false });
    expect(compareKillers(big!)).toEqual({ expectedKillers: ['synthetic.threshold'], unexpectedKillers: [], asExpected: true });
    expect(r.unexpectedlyKilled).toEqual(['misfiled']);
    expect(r.expected).toBe(5);
    expect(r.falseFindings).toBe(0);
    expect(r.clean).toHaveLength(2);
    expect(mutantsExitCode(r)).toBe(1);
    const md = killMatrixMarkdown(r);
    expect(md).toContain('3/5 faults killed (60%)');
    expect(md).toContain('`harmless` | t | ❌ survived');
    expect(md).toContain('| `reject-big` | t | ✅ | `synthetic.threshold` ✓ | `synthetic.threshold` | yes |');
    expect(md).toContain('| `misfiled` | t | ✅ | `synthetic.reading` | `synthetic.threshold` *unexpected* | ⚠ no |');
    expect(md).toContain('`synthetic.reading` (assumption credentials-required)');
    expect(md).toContain('Killed by none of their expected killers: `misfiled`');
  });

  it('judges load-only faults by their load checks, and runs those checks on the correct reference', async () => {
    const calls: string[][] = [];
    const r = await runMutants([idle] as Property[], [FAULTS[2]!], async () => { throw new Error('no conformance run expected'); }, {
      seed: 1, runs: 1, seeds: 0,
      loadChecks: { 'load.latency': async (faults) => (calls.push([...faults]), { detected: faults.includes('slow'), message: 'p99 too high', requests: 10 }) },
    });
    expect(calls).toEqual([['slow'], []]);
    expect(r.faults[0]).toMatchObject({ fault: 'slow', ran: true, killed: true, killedBy: ['load.latency'], requests: 10 });
    expect(r.clean).toEqual([expect.objectContaining({ loadCheck: 'load.latency', falseFindings: [] })]);
    expect(mutantsExitCode(r)).toBe(0);
  });

  it('counts every finding on the correct reference, a transport finding and a property cut short by its time bound included', async () => {
    const throwing = defineProperty<number>({ ...threshold, id: 'synthetic.throwing', runs: 30, async check(ctx, n) {
      if (n % 3 === 0) throw new Error('cannot handle a multiple of 3');
      return threshold.check(ctx, n);
    } });
    const slow = defineProperty<number>({ ...threshold, id: 'synthetic.slow', async check(ctx, n) {
      await new Promise((res) => setTimeout(res, 30));
      return threshold.check(ctx, n);
    } });
    const r = await runMutants([idle, throwing, slow] as Property[], [], async () => {
      const srv = await startStandIn(() => 'ok');
      return { profile: standInProfile(srv.url), close: () => srv.close() };
    }, { seed: 3, runs: 1000, seeds: 1, perPropertyMs: 300 });
    expect(r.clean[0]!.falseFindings.map((f) => [f.property, f.kind])).toEqual([['synthetic.throwing', 'transport'], ['synthetic.slow', 'incomplete']]);
    expect(r.falseFindings).toBe(2);
    expect(mutantsExitCode(r)).toBe(1);
    expect(killMatrixMarkdown(r)).toMatch(/`synthetic.slow` incomplete: status inconclusive \(judged \d+ of 1000 random cases/);
  });

  it('orders the expected killers first', () => {
    expect(orderForFault([idle, threshold] as Property[], FAULTS[0]!).map((p) => p.id)).toEqual(['synthetic.threshold', 'synthetic.idle']);
    expect(isLoadOnly(FAULTS[2]!)).toBe(true);
    expect(isLoadOnly(FAULTS[0]!)).toBe(false);
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeUndefined();
  });
});

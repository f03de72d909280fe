/**
 * The one exit-code policy (src/check/run/exit-code.ts) on each kind of result it judges, none of
 * which stores a code: a run (from its tally), a compared side and a comparison, the kill matrix, a
 * load run (its failure, a baseline's relative thresholds, a capacity search) and a merge of shards.
 */
import { describe, expect, it } from 'vitest';
import { exitCodeOfTally, mergedLoadExitCode, type RunTally } from '../../src/check/run/exit-code.ts';
import { comparisonExitCode, EXIT, loadExitCode, mutantsExitCode, runExitCode, sideExitCode, tallyOf, type PropertyResult } from '../../src/check/run/index.ts';

const result = (status: PropertyResult['status'], kinds: PropertyResult['findings'][number]['kind'][] = []): PropertyResult => ({
  id: `p.${status}`, section: '4.3', status, runs: 1, requests: 1, durationMs: 1, findings: kinds.map((kind) => ({ kind, property: `p.${status}`, section: '4.3', message: kind })),
});
const tally = (over: Partial<RunTally>): RunTally => ({ findings: {}, statuses: { passed: 1 }, gone: false, ...over });

describe('a run', () => {
  it('fails on a failing finding before anything else, then a target gone, then something unvouched or nothing checked', () => {
    const run = (results: PropertyResult[], more: { unreachable?: string; tooSlow?: string } = {}) => runExitCode({ results, ...more });
    expect(run([result('failed', ['violation']), result('inconclusive')], { unreachable: 'gone' })).toBe(EXIT.failed);
    expect(run([result('failed', ['crash'])])).toBe(EXIT.failed);
    expect(run([result('inconclusive')], { tooSlow: 'slow' })).toBe(EXIT.unreachable);
    expect(run([result('passed'), result('error', ['error'])])).toBe(EXIT.inconclusive);
    expect(run([result('skipped', ['skipped']), result('skipped', ['skipped'])])).toBe(EXIT.inconclusive);
    expect(run([result('passed', ['assumption', 'performance'])])).toBe(EXIT.passed);
    expect(runExitCode({ results: [result('passed', ['performance'])], failOn: ['performance'] })).toBe(EXIT.failed);
  });

  it('reads a tally: a kind it does not know (a newer runner) is counted and fails nothing', () => {
    expect(tallyOf([result('failed', ['violation', 'violation']), result('passed')], false)).toEqual({ findings: { violation: 2 }, statuses: { failed: 1, passed: 1 }, gone: false });
    expect(exitCodeOfTally(tally({ findings: { 'cost-of-living': 3 } }))).toBe(EXIT.passed);
    expect(exitCodeOfTally(tally({ findings: { 'server-error': 1 } }))).toBe(EXIT.failed);
  });
});

describe('a comparison', () => {
  it('gives a side down from before its run 3 when its only failing findings are crashes, and the comparison the worst side by precedence', () => {
    const down = { ...tally({ findings: { crash: 1 }, statuses: { failed: 1 } }), unreachable: 'no usable answer' };
    expect(sideExitCode(down)).toBe(EXIT.unreachable);
    expect(sideExitCode({ ...down, findings: { crash: 1, violation: 1 } })).toBe(EXIT.failed);
    expect(sideExitCode({ ...tally({ findings: { crash: 1 } }) })).toBe(EXIT.failed);
    const up = tally({});
    const unvouched = tally({ statuses: { inconclusive: 1 } });
    expect(comparisonExitCode({ sides: [up, down] })).toBe(EXIT.unreachable);
    expect(comparisonExitCode({ sides: [up, unvouched, tally({ findings: { violation: 1 } })] })).toBe(EXIT.failed);
    expect(comparisonExitCode({ sides: [up, unvouched] })).toBe(EXIT.inconclusive);
    // A broken load check fails a comparison that would pass, and only such a one.
    expect(comparisonExitCode({ sides: [up, up] }, true)).toBe(EXIT.failed);
    expect(comparisonExitCode({ sides: [up, unvouched] }, true)).toBe(EXIT.inconclusive);
    expect(comparisonExitCode({ sides: [up, up] })).toBe(EXIT.passed);
  });
});

describe('the kill matrix and a load run', () => {
  it('fails the kill matrix on a survivor, a false finding or an interruption', () => {
    const clean = { survivors: [], falseFindings: 0, interrupted: false };
    expect(mutantsExitCode(clean)).toBe(0);
    expect([mutantsExitCode({ ...clean, survivors: ['usage-summed'] }), mutantsExitCode({ ...clean, falseFindings: 1 }), mutantsExitCode({ ...clean, interrupted: true })]).toEqual([1, 1, 1]);
  });

  it('fails a load run that failed, regressed against its baseline, or found no capacity (unless interrupted); a merge with shards missing is 2', () => {
    expect(loadExitCode({})).toBe(0);
    expect(loadExitCode({ failedBecause: 'p99 over 50 ms' })).toBe(1);
    expect(loadExitCode({ baseline: { thresholds: [{ passed: true }, { passed: false }] } })).toBe(1);
    expect(loadExitCode({ baseline: { thresholds: [{ passed: true }] } })).toBe(0);
    expect(loadExitCode({ capacity: { status: 'none-within' } })).toBe(1);
    expect(loadExitCode({ capacity: { status: 'interrupted' } })).toBe(0);
    expect(loadExitCode({ capacity: { status: 'found', capacity: 120 } })).toBe(0);
    expect(mergedLoadExitCode({ merged: { missing: [2] } })).toBe(2);
    expect(mergedLoadExitCode({ merged: { missing: [2] }, failedBecause: 'a check failed' })).toBe(1);
    expect(mergedLoadExitCode({ merged: { missing: [] } })).toBe(0);
  });
});

/**
 * The README's scenario of one's own (examples/mixed-commits.ts: 90 % one-op commits, 10 % maximal
 * ones) run for a short window against the embedded reference: compiled to .js and run by the CLI
 * as one shard through two worker threads from a directory outside any package (as a ConfigMap
 * mounts it in `load k8s`'s pods), and from its .ts through the library. The mix is judged against
 * a binomial tolerance on the counts each run actually made. (The manifest: test/load/k8s.test.ts.)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../../scenarios/index.ts';
import { runLoad } from '../../src/load/launch.ts';
import type { LoadRunResult } from '../../src/load/result.ts';
import { LIMITS } from '../../src/spec/index.ts';
import { pouchproof } from '../cli/spawn-cli.ts';
import { EXAMPLE, compiledExample } from './example-js.ts';
import { EMBEDDED_REFERENCE } from '../../src/reference/embedded.ts';
import { loadExitCode } from '../../src/check/run/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'pouchproof-example-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The example's default share of maximal commits. */
const P = 0.1;
/** Standard deviations of the binomial count allowed: a correct mix falls outside about once in 150,000 runs. */
const SIGMAS = 4.5;

/** The kinds' counts match a 90/10 draw: the maximal count within SIGMAS standard deviations of n·p, for the n requests made. */
function expectMix(kinds: LoadRunResult['kinds']): void {
  expect(Object.keys(kinds).sort()).toEqual(['maximal', 'one-op']);
  const n = kinds['one-op']!.sent + kinds['maximal']!.sent;
  // Under a hundred requests the tolerance would be too wide to tell 10 % from 20 %.
  expect(n).toBeGreaterThanOrEqual(100);
  const k = kinds['maximal']!.sent;
  expect(Math.abs(k - n * P), `${k} maximal of ${n}`).toBeLessThanOrEqual(SIGMAS * Math.sqrt(n * P * (1 - P)));
  // Each kind has its shape: one op, or the most a commit may hold (every applied commit's ops are its goodput).
  expect(kinds['one-op']!.units).toBe(kinds['one-op']!.ok);
  expect(kinds['maximal']!.units).toBe(kinds['maximal']!.ok * LIMITS.opsPerCommit.max!);
  expect(kinds['maximal']!.ok).toBeGreaterThan(0);
}

const loadJson = (reportDir: string): LoadRunResult => JSON.parse(readFileSync(join(reportDir, 'latest', 'load.json'), 'utf8')) as LoadRunResult;

describe('the example scenario of one\'s own', () => {
  it('compiled to .js, runs from a directory outside any package (as a ConfigMap mounts it) as one shard through two worker threads, with the 90/10 mix', async () => {
    const js = compiledExample(dir);
    const run = await pouchproof(['load', '--scenario', js, '--reference', '--duration', '1s', '--workers', '2', '--shard', '1/2', '--report-dir', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^pouchproof load: mixed-commits for 1s against the embedded reference$/m);
    const r = loadJson(dir);
    expect(r.scenario).toBe('mixed-commits');
    expect(r.workers).toBe(2);
    expect(r.shard).toMatchObject({ index: 1, count: 2 });
    expectMix(r.kinds);
  });

  it('runs from its .ts file through the library (the worker thread importing it as the CLI does), its parameters checked against its declarations', async () => {
    const scenario = await loadScenario(EXAMPLE);
    expect(scenario.scenario.params.map((p) => p.name)).toEqual(expect.arrayContaining(['pouches', 'maximal']));
    await expect(runLoad({ scenario, target: { kind: 'embedded' }, ...EMBEDDED_REFERENCE, params: { maximal: '120' } })).rejects.toThrow(/^parameter maximal must be at most 100, got 120$/);
    const { result } = await runLoad({ scenario, target: { kind: 'embedded' }, ...EMBEDDED_REFERENCE, params: { pouches: '3' }, workers: 1, durationMs: 1000, seed: 4 });
    expect(loadExitCode(result), result.failedBecause).toBe(0);
    expect(result.params).toMatchObject({ pouches: 3, maximal: 10 });
    expectMix(result.kinds);
  });
});

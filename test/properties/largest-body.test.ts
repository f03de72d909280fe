/**
 * robustness.largest-body-accepted, the commit of maximal size (~35 MB), is left out of the readings
 * zoo (test/precision/zoo.ts) for its cost: here it stays silent in every alternative reading, told
 * the reading as `--assume auto` would find it, once each.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ALTERNATIVES, keyOf, type Reading } from '../../src/reference/index.ts';
import type { Readings } from '../../src/spec/index.ts';
import ROBUSTNESS from '../../properties/robustness.ts';
import { References, runAgainst } from './harness.ts';

const largest = ROBUSTNESS.find((p) => p.id === 'robustness.largest-body-accepted')!;
const refs = new References();
afterAll(() => refs.closeAll());

describe('robustness.largest-body-accepted', () => {
  it('stays silent on the correct reference in every alternative reading', async () => {
    const noisy: string[] = [];
    let judged = 0;
    for (const r of ALTERNATIVES as readonly Reading[]) {
      const readings = { [r.name]: r.value } as Readings;
      const { result } = await runAgainst(await refs.get(undefined, readings), largest, { runs: 1, assume: readings as Record<string, string> });
      if (result.findings.some((f) => f.kind !== 'skipped')) noisy.push(`${keyOf(r)}: ${result.findings.map((f) => `${f.kind} ${f.message}`).join('; ')}`);
      if (result.status === 'passed') judged++;
      await refs.closeAll();
    }
    expect(noisy).toEqual([]);
    expect(judged).toBeGreaterThan(ALTERNATIVES.length / 2);
  }, 400_000);
});

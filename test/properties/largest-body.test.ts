/**
 * robustness.largest-body-accepted, the commit of maximal size (~35 MB), is left out of the readings
 * zoo (test/precision/zoo.ts) for its cost: here it stays silent in every alternative reading it can
 * meet, told the reading as `--assume auto` would find it, once each; the run that finds which (harness.ts
 * `alternativesReached`) is its run under the defaults.
 */
import { describe, expect, it } from 'vitest';
import { ALTERNATIVES } from '../../src/reference/index.ts';
import ROBUSTNESS from '../../properties/robustness.ts';
import { alternativesReached, toldInEach } from './harness.ts';

const largest = ROBUSTNESS.find((p) => p.id === 'robustness.largest-body-accepted')!;

describe('robustness.largest-body-accepted', () => {
  it('stays silent on the correct reference in every alternative reading it can meet', async () => {
    // The others it would meet as it meets the defaults (harness.ts `alternativesReached`), judged by its default run.
    const { reached, underDefaults } = await alternativesReached(largest, { runs: 1 });
    expect(underDefaults.result.findings.filter((f) => f.kind !== 'skipped')).toEqual([]);
    expect(reached.length).toBeGreaterThan(ALTERNATIVES.length / 2);
    const { noisy, passed } = await toldInEach(largest, reached);
    expect(noisy).toEqual([]);
    expect(passed).toBeGreaterThan(reached.length / 2);
  }, 400_000);
});

/**
 * The kill matrix's second column: every fault of the spec's letter is still killed with an unnamed
 * behaviour of the reference served beside it and the readings probed first, as a run does
 * (`pouchproof mutants --unnamed`). A fault that moves from "killed" to "unknown" when the target also
 * fills in something the registry does not name is a regression: the judgement that catches it must
 * not depend on that choice. Faults that are readings are left out: the probe identifies them.
 */
import { describe, expect, it } from 'vitest';
import { runMutants } from '../../src/mutants/mutants.ts';
import { FAULTS, UNNAMED } from '../../src/reference/index.ts';
import { openTarget, PROBE_LIMIT_MS, probeBounds, probeReadings } from '../../src/session/index.ts';
import { isCostFault, WITHOUT_COST_PROBE } from './cost-probe-apart.ts';

/** Usage faults beside a meaning of stored no reading names that still shows the totals; the rest beside the other behaviours in turn. */
const USAGE_BESIDE = 'stored-tokens-held';
const OTHERS = UNNAMED.map((u) => u.name).filter((n) => !n.startsWith('stored-'));
/** Unobservable beside it, and why: not a regression. */
const UNOBSERVABLE: Readonly<Record<string, string>> = {
  'usage-total-double': 'its totals are past 2^53, and stored (at most 2^53 - 1) cannot show them when it adds them up',
};

/**
 * Cost faults are left out too: their killer measures latency (the cost probe), which this file, run
 * beside other test workers, must not judge; no reading or unnamed choice decides a cost anyway
 * (test/check/cost-probe-apart.ts).
 */
const letterFaults = FAULTS.filter((f) => !f.deviatesFrom && !isCostFault(f));
const PROPS = WITHOUT_COST_PROBE;
const besideOf = (fault: string, i: number): string => (FAULTS.find((f) => f.name === fault)!.area === 'usage' ? USAGE_BESIDE : OTHERS[i % OTHERS.length]!);

describe('mutants beside an unnamed behaviour', () => {
  it('kills every fault of the letter with one unnamed behaviour served beside it, the readings probed first', async () => {
    const beside = new Map<string, string>(letterFaults.map((f, i) => [f.name, besideOf(f.name, i)]));
    const r = await runMutants(PROPS, letterFaults, async (fs) => {
      const t = await openTarget({}, { faults: fs, unnamed: fs.map((f) => beside.get(f)!) });
      const probed = await probeReadings(t, probeBounds(PROBE_LIMIT_MS * 4));
      return { profile: probed.target.profile, unknownReadings: probed.unknownReadings, close: () => t.close() };
    }, { seed: 4242, runs: 25, seeds: 0, perPropertyMs: 45_000 });
    expect(r.faults.filter((f) => !f.ran && !f.loadOnly).map((f) => f.fault)).toEqual([]);
    const survivors = r.faults.filter((f) => f.ran && !f.killed && !(f.fault in UNOBSERVABLE)).map((f) => `${f.fault} beside ${beside.get(f.fault)}`);
    expect(survivors, survivors.join('\n')).toEqual([]);
    // The exceptions are still what they say: not killed (if one is, it no longer belongs in the list).
    expect(r.faults.filter((f) => f.fault in UNOBSERVABLE && f.killed).map((f) => f.fault)).toEqual([]);
  }, 900_000);
});

/**
 * The oracle of mutation testing (`npm run mutation`): the pouchproof suite itself, run against the
 * embedded reference in-process. Stryker switches one mutant of the reference on at a time; the
 * mutant is killed when some property reports anything but `skipped` against the mutated reference.
 *
 * One test per property, each against a fresh reference, so Stryker's per-test coverage runs only
 * the properties that reach a mutant, and no state leaks from one property to the next. Seeds are
 * fixed, so a run is deterministic and a mutant's verdict replays. This directory is outside the
 * main vitest include (`test/**`): `npm test` never runs it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../properties/index.ts';
import { runProperties, type Finding } from '../src/check/runner.ts';
import { resolveTarget, type ResolvedTarget } from '../src/target/resolve.ts';

const SEED = 20260521;
/** Cases per property: enough for the generators to reach the reference's branches, few enough for hundreds of mutants. */
const RUNS = Number(process.env.POUCHPROOF_MUTATION_RUNS ?? 10);
/** Generous: the time bound would make a loaded machine run fewer cases (a weaker, non-replayable oracle); Stryker's own timeout catches stalls. */
const PROPERTY_MS = 120_000;

function describeFinding(f: Finding): string {
  return `${f.kind}${f.assumption ? ` (${f.assumption})` : ''}: ${f.message}`;
}

describe('the suite against the embedded reference', () => {
  let target: ResolvedTarget | undefined;
  afterEach(async () => {
    await target?.close();
    target = undefined;
  });

  for (const prop of ALL_PROPERTIES) {
    it(prop.id, async () => {
      target = await resolveTarget({ kind: 'embedded' });
      const run = await runProperties(target.profile, [prop], { seed: SEED, runs: RUNS, embedded: true, endOnFailure: true, perPropertyMs: PROPERTY_MS });
      const result = run.results[0]!;
      const findings = result.findings.filter((f) => f.kind !== 'skipped');
      expect(findings.map(describeFinding)).toEqual([]);
      // A property that ran no case vouches for nothing: the oracle would be silent for the wrong reason.
      if (result.status !== 'skipped') expect(result.runs).toBeGreaterThan(0);
    });
  }
});

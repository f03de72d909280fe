/**
 * The oracle of mutation testing (`npm run mutation`, docs/mutation.md): the pouchproof suite itself,
 * run in-process against the embedded reference. Stryker switches one mutant of the reference on at
 * a time; the mutant is killed when the suite reports anything against the mutated reference.
 *
 * - Default readings: one test per property, each against a fresh reference with a fixed seed, so
 *   Stryker's per-test coverage runs only the properties that reach a mutant and a verdict replays.
 * - Opt-in, each alternative reading of the registry: the properties that rely on it (`Property.assumptions`),
 *   told the reading (`--assume`), against the reference switched to it, where they must report
 *   nothing at all (the zoo's assume mode). Code that serves an alternative reading runs only here.
 * - In both, first and cheapest: discovery told every reading, which must see the reference take each.
 *
 * `skipped` is the profile's doing, never the target's, so it is the one finding allowed. This
 * directory is outside the main vitest include (`test/**`): `npm test` never runs it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../properties/index.ts';
import { discoverReadings } from '../src/discover/discover.ts';
import type { Property } from '../src/check/property.ts';
import { runProperties, type Finding } from '../src/check/run/index.ts';
import { ALTERNATIVES, READING_SITES, keyOf } from '../src/reference/index.ts';
import { DEFAULT_ASSUMPTIONS, type Readings } from '../src/spec/index.ts';
import { TargetClient } from '../src/target/client.ts';
import { resolveTarget, type ResolvedTarget } from '../src/target/resolve.ts';
import { EMBEDDED_REFERENCE } from '../src/reference/embedded.ts';

const SEED = 20260521;
/** Cases per property under the default readings: enough to reach the reference's branches, few enough for a thousand mutants. */
const RUNS = Number(process.env.POUCHPROOF_MUTATION_RUNS ?? 5);
/**
 * Cases per property under an alternative reading: as many as the default half, since the signature
 * properties sweep their catalogue a few attacks per case, and with 2 the attack that tells
 * `kid-binding=unbound` apart (another device's signature) was never sent.
 */
const READING_RUNS = Number(process.env.POUCHPROOF_MUTATION_READING_RUNS ?? 5);
/**
 * A property's time bound, far above what the slowest takes (the two coverage-heavy ones: ~15 s
 * alone, three or four times that on a machine shared with other work). A property stopped by it
 * counts as detected, so it must never be reached by load alone: a run on 2 shared cores with a
 * 20 s bound killed mutants that changed nothing. A mutant that really stalls the reference is
 * still caught: by a request's bound below, or by Stryker's own timeout.
 */
const PROPERTY_MS = 150_000;
/**
 * A request's bound. The reference answers in milliseconds, but under load a 700 000-character
 * envelope's commit took over 1 s (the earlier bound), and a transport finding counts as detected.
 */
const REQUEST_MS = 10_000;
/** Coverage cases in flight at once: CPU-bound in one process, so more only queues requests towards their bound. */
const COVERAGE_CONCURRENCY = 2;

const describeFinding = (f: Finding): string => `${f.kind} ${f.property}${f.assumption ? ` (${f.assumption})` : ''}: ${f.message}`;

let target: ResolvedTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function findings(props: readonly Property[], readings: Readings, runs: number, coverage = true): Promise<{ found: string[]; ran: boolean }> {
  target = await resolveTarget({ kind: 'embedded', readings }, EMBEDDED_REFERENCE);
  const profile = { ...target.profile, assumptions: { ...target.profile.assumptions, ...readings } };
  const run = await runProperties(profile, props, { seed: SEED, runs, embedded: true, endOnFailure: true, perPropertyMs: PROPERTY_MS, perRequestMs: REQUEST_MS, coverage, concurrency: COVERAGE_CONCURRENCY });
  const all = run.results.flatMap((r) => r.findings);
  const stalled = run.results.filter((r) => r.timeBound).map((r) => `${r.id}: stopped by its ${PROPERTY_MS} ms bound after ${r.runs} of ${r.timeBound!.planned} cases`);
  // A suite that ran no case vouches for nothing: the oracle would be silent for the wrong reason.
  return { found: [...all.filter((f) => f.kind !== 'skipped').map(describeFinding), ...stalled], ran: run.results.some((r) => r.runs > 0) };
}

/**
 * Discovery as `pouchproof run --assume defaults --assume NAME=VALUE` runs it before the properties:
 * every reading is told, each is probed all the same, and one the target was seen not to take is
 * reported (the readings table, report.json's `readings.mismatches`). A stricter reading served
 * leniently (unknown members accepted under `unknown-fields-ignored=rejected`) shows only here: the
 * properties read such a reading as what excuses a refusal, never as a demand, since the spec allows
 * the leniency.
 */
async function mismatches(readings: Readings): Promise<string[]> {
  target = await resolveTarget({ kind: 'embedded', readings }, EMBEDDED_REFERENCE);
  const client = new TargetClient(target.profile);
  try {
    const d = await discoverReadings(target.profile, client, { embedded: true, fixed: { ...DEFAULT_ASSUMPTIONS, ...readings } as Readings, requestTimeoutMs: REQUEST_MS });
    return d.mismatches.map((m) => `${m.assumption}: told ${m.fixed}, observed ${m.observed}`);
  } finally {
    await client.close();
  }
}

/**
 * Which half runs: `default`, `readings` or `both` (`POUCHPROOF_MUTATION_HALF`; `npm run mutation` runs
 * the readings half as a second Stryker run over the mutants the default half left alive, mutation/run.ts).
 * `POUCHPROOF_MUTATION_READINGS=1` is the older spelling of `both`.
 */
const COVERAGE_HEAVY = new Set(['boundaries.limits-accepted', 'rejection.violations-rejected']);

const HALF = process.env.POUCHPROOF_MUTATION_HALF ?? (process.env.POUCHPROOF_MUTATION_READINGS === '1' ? 'both' : 'default');
if (!['default', 'readings', 'both'].includes(HALF)) throw new Error(`POUCHPROOF_MUTATION_HALF=${HALF}: expected default, readings or both`);

/**
 * Cheapest first: Stryker stops a mutant's run at the first failing test, and the two properties whose
 * coverage phase walks every constraint take most of a pass (~30 of ~40 s), so they come last.
 */
const BY_COST = [...ALL_PROPERTIES].sort((a, b) => Number(COVERAGE_HEAVY.has(a.id)) - Number(COVERAGE_HEAVY.has(b.id)));

describe.runIf(HALF !== 'readings')('the suite against the reference (default readings)', () => {
  it('discovery, every reading told', async () => {
    const found = await mismatches({});
    expect(found, `mismatches:\n${found.join('\n')}\n`).toEqual([]);
  });
  for (const prop of BY_COST) {
    it(prop.id, async () => {
      const r = await findings([prop], {}, RUNS);
      // The findings in the message: Stryker keeps it as the kill's reason, which `npm run mutation` reads.
      expect(r.found, `findings:\n${r.found.join('\n')}\n`).toEqual([]);
      expect(r.ran).toBe(true);
    });
  }
});

/**
 * One test per (alternative reading, property relying on it), so that Stryker's per-test coverage
 * runs only the pairs that reach a mutant: a reading's branch is reached by its own few pairs.
 * The coverage phase (every request constraint, ~30 s a pass) runs only under the readings that
 * request validation decides (`READING_SITES`): it exercises constraints, not commit semantics, and
 * run under all 36 readings it would make the readings half's dry run alone take a quarter of an hour.
 */
/**
 * `POUCHPROOF_MUTATION_SITES` (comma-separated, e.g. `validate.ts` or `handlers/`): only the readings
 * decided there (`READING_SITES`). Stryker's dry run runs every test of the half whatever it mutates,
 * so without this one scope's readings half would pay for all 600-odd pairs.
 */
const SITES = (process.env.POUCHPROOF_MUTATION_SITES ?? '').split(',').filter((x) => x !== '');
const decidedInScope = (r: (typeof ALTERNATIVES)[number]): boolean => SITES.length === 0 || SITES.some((site) => READING_SITES[r.name].includes(site));

describe.runIf(HALF !== 'default')('the suite, told the reading, against the reference in each alternative reading', () => {
  for (const reading of ALTERNATIVES.filter(decidedInScope)) {
    const relying = ALL_PROPERTIES.filter((p) => p.assumptions.includes(reading.name));
    // A reading no property declares still changes the reference: then the whole suite watches it.
    const props = relying.length > 0 ? relying : ALL_PROPERTIES;
    const validation = /\b(validate|body)\.ts\b/.test(READING_SITES[reading.name]);
    it(`${keyOf(reading)} discovery`, async () => {
      const found = await mismatches({ [reading.name]: reading.value } as Readings);
      expect(found, `mismatches:\n${found.join('\n')}\n`).toEqual([]);
    });
    for (const prop of props) {
      it(`${keyOf(reading)} ${prop.id}`, async () => {
        const r = await findings([prop], { [reading.name]: reading.value } as Readings, READING_RUNS, validation);
        expect(r.found, `findings:\n${r.found.join('\n')}\n`).toEqual([]);
        expect(r.ran).toBe(true);
      });
    }
  }
});

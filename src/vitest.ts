/**
 * `pouchproof/vitest`: each property of the suite as one test of the caller's own vitest suite,
 * against the caller's target (as `@fast-check/vitest` turns properties into tests). A failing
 * property fails its test with the finding's message, ground, counterexample, replay token and curl
 * line; a property the profile lacks the credentials for is skipped with the reason.
 */
import { afterAll, beforeAll, describe, test, type TestContext } from 'vitest';
import { ALL_PROPERTIES } from '../properties/index.ts';
import type { Property } from './check/property.ts';
import {
  isFailing,
  runProperties,
  DEFAULT_PROPERTY_MS,
  DEFAULT_RUNS,
  type FailOnKind,
  type Finding,
  type PropertyResult,
  type RunResult,
  selectProperties,
} from './check/run/index.ts';
import { checkExamplesDir, checkPositive, drawSeed, ExampleStore, MAX_FAILURES_FLAG, openTarget, probeBounds, probeReadings, type TargetOptions } from './session/index.ts';
import { findingDetail } from './report/console.ts';
import type { AssumptionName, ReadingsMode } from './spec/index.ts';
import { redact } from './target/redact.ts';
import type { ResolvedTarget } from './target/resolve.ts';

export interface DescribePropertiesOptions extends TargetOptions {
  /** The `describe` block's name (default `pouchproof`). */
  readonly name?: string;
  /** Property id globs, e.g. `usage.*` (default: every property). */
  readonly select?: readonly string[];
  /** Property id globs left out, after `select` (`--exclude`). */
  readonly exclude?: readonly string[];
  /** After this many failing properties the remaining tests are skipped, naming why (`--max-failures`). */
  readonly maxFailures?: number;
  /** False: counterexamples reported as found, unshrunk (`--no-shrink`). Default true. */
  readonly shrink?: boolean;
  /** The example database's directory (`--examples`): failing cases stored and re-run first next time. Default none. */
  readonly examples?: string;
  /** Seed of every generator (default: random, named in every failure). */
  readonly seed?: number;
  /** Cases per property (default 25; some properties run fewer). */
  readonly runs?: number;
  /** `auto` (default): the target's readings of what the spec does not show are probed first; `defaults`: the registry's. */
  readonly readings?: ReadingsMode;
  /** Time bound of one property (default 30 s); its test's timeout is this plus a margin. */
  readonly perPropertyMs?: number;
  readonly perRequestMs?: number;
  /** Kinds of finding that also fail a test (violations, server errors and crashes always do). */
  readonly failOn?: readonly FailOnKind[];
  /** The properties to choose from: the catalogue (default), your own `defineProperty` ones, or both. */
  readonly properties?: readonly Property[];
}

/** Why a property's test fails, or undefined when it passes. */
export function failureOf(r: PropertyResult, failOn: readonly FailOnKind[], seed: number): string | undefined {
  const failing = r.findings.filter((f: Finding) => isFailing(f.kind) || failOn.some((k) => k === f.kind));
  const blocks = failing.map((f) => [`${f.kind}: ${f.property} (§${f.section})`, ...findingDetail(f).map((l) => `  ${l}`)].join('\n'));
  if (r.status === 'error') blocks.push(...r.findings.filter((f) => f.kind === 'error').map((f) => `pouchproof could not run ${r.id}: ${f.message}`));
  if (r.status === 'inconclusive') blocks.push(`inconclusive: ${r.inconclusive ?? 'no case completed'}`);
  if (r.status === 'interrupted') blocks.push('interrupted before it completed');
  return blocks.length ? `${blocks.join('\n\n')}\n(seed ${seed})` : undefined;
}

/** The budget the readings probe's bound is taken from (the session's rule: a quarter of it, within the probe's own bound). */
const PROBE_BUDGET_MS = 120_000;
const TARGET_MS = 60_000;
const MARGIN_MS = 15_000;

/** What the tests of one `describe` block share: the target opened before them, the stored examples, what ran and how much failed. */
interface Suite {
  target: ResolvedTarget | undefined;
  unknownReadings: ReadonlyMap<AssumptionName, string> | undefined;
  store: ExampleStore | undefined;
  stored: ReadonlyMap<string, readonly string[]>;
  readonly ran: RunResult[];
  failed: number;
}

/** The run's settings every property's test uses. */
interface RunSettings {
  readonly options: DescribePropertiesOptions;
  readonly seed: number;
  readonly perPropertyMs: number;
  readonly maxFailures: number | undefined;
}

/** Opens the target, loads the stored examples and probes the readings; each is kept in the suite as soon as it exists, so that afterAll closes what was opened. */
async function openSuite(suite: Suite, options: DescribePropertiesOptions): Promise<void> {
  const opened = await openTarget(options);
  suite.target = opened;
  if (options.examples !== undefined) {
    suite.store = ExampleStore.for(checkExamplesDir(options.examples), { embedded: opened.embedded, baseUrl: opened.profile.baseUrl });
    suite.stored = await suite.store.load();
  }
  if ((options.readings ?? 'auto') === 'auto') {
    const probed = await probeReadings(opened, probeBounds(PROBE_BUDGET_MS, options.perRequestMs));
    suite.target = probed.target;
    suite.unknownReadings = probed.unknownReadings;
  }
}

/** One property's test: skipped past maxFailures or when the property skips, failed on a failing finding. */
async function testProperty(p: Property, suite: Suite, run: RunSettings, ctx: TestContext): Promise<void> {
  const { target, unknownReadings } = suite;
  const { options, seed, maxFailures } = run;
  if (!target) throw new Error('pouchproof: the target did not open (see the beforeAll error)');
  if (maxFailures !== undefined && suite.failed >= maxFailures) {
    ctx.skip(`not run: the run stopped after ${maxFailures} failing properties (maxFailures)`);
    return;
  }
  const mine = suite.stored.get(p.id);
  const result = await runProperties(target.profile, [p], {
    ...(options.shrink === false ? { shrink: false } : {}),
    ...(mine?.length ? { examples: new Map([[p.id, mine]]) } : {}),
    seed,
    runs: options.runs ?? DEFAULT_RUNS,
    perPropertyMs: run.perPropertyMs,
    ...(options.perRequestMs ? { perRequestMs: options.perRequestMs } : {}),
    embedded: target.embedded,
    ...(unknownReadings?.size ? { unknownReadings } : {}),
  });
  suite.ran.push(result);
  const r = result.results[0];
  if (!r) throw new Error(`pouchproof: ${p.id} produced no result`);
  if (r.status === 'failed') suite.failed++;
  if (r.status === 'skipped') {
    ctx.skip(r.findings[0]?.message ?? 'skipped');
    return;
  }
  const failure = failureOf(r, options.failOn ?? [], seed);
  if (failure) throw new Error(redact(failure, target.profile.secrets));
}

/** Registers one test per selected property, in a `describe` block that opens the target before them and closes it after. */
export function describeProperties(options: DescribePropertiesOptions = {}): void {
  const props = selectProperties(options.properties ?? ALL_PROPERTIES, options.select?.length ? options.select : undefined, options.exclude);
  if (props.length === 0) throw new Error(`describeProperties: select ${JSON.stringify(options.select)}${options.exclude?.length ? ` less exclude ${JSON.stringify(options.exclude)}` : ''} matches no property`);
  const maxFailures = options.maxFailures === undefined ? undefined : checkPositive('max-failures', options.maxFailures, MAX_FAILURES_FLAG);
  const run: RunSettings = { options, seed: options.seed ?? drawSeed(), perPropertyMs: options.perPropertyMs ?? DEFAULT_PROPERTY_MS, maxFailures };
  describe(options.name ?? 'pouchproof', () => {
    const suite: Suite = { target: undefined, unknownReadings: undefined, store: undefined, stored: new Map(), ran: [], failed: 0 };
    beforeAll(() => openSuite(suite, options), TARGET_MS + MARGIN_MS);
    afterAll(async () => {
      await suite.target?.close();
      if (suite.store) await suite.store.update({ results: suite.ran.flatMap((r) => r.results), examples: suite.ran.flatMap((r) => r.examples ?? []) });
    });
    for (const p of props) {
      test(`${p.id} (§${p.section}): ${p.invariant}`, { timeout: run.perPropertyMs + MARGIN_MS }, (ctx) => testProperty(p, suite, run, ctx));
    }
  });
}

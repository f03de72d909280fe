/**
 * `pouchproof/vitest`: each property of the suite as one test of the caller's own vitest suite,
 * against the caller's target (as `@fast-check/vitest` turns properties into tests). A failing
 * property fails its test with the finding's message, ground, counterexample, replay token and curl
 * line; a property the profile lacks the credentials for is skipped with the reason.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import { ALL_PROPERTIES } from '../properties/index.ts';
import type { Property } from './check/property.ts';
import { isFailing, runProperties, DEFAULT_PROPERTY_MS, DEFAULT_RUNS, type FailOnKind, type Finding, type PropertyResult, type RunResult } from './check/run/index.ts';
import { selectProperties } from './check/run/select.ts';
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
  const failing = r.findings.filter((f: Finding) => isFailing(f.kind) || (failOn as readonly string[]).includes(f.kind));
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

/** Registers one test per selected property, in a `describe` block that opens the target before them and closes it after. */
export function describeProperties(options: DescribePropertiesOptions = {}): void {
  const props = selectProperties(options.properties ?? ALL_PROPERTIES, options.select?.length ? options.select : undefined, options.exclude);
  if (props.length === 0) throw new Error(`describeProperties: select ${JSON.stringify(options.select)}${options.exclude?.length ? ` less exclude ${JSON.stringify(options.exclude)}` : ''} matches no property`);
  const maxFailures = options.maxFailures === undefined ? undefined : checkPositive('max-failures', options.maxFailures, MAX_FAILURES_FLAG);
  let failed = 0;
  const seed = options.seed ?? drawSeed();
  const perPropertyMs = options.perPropertyMs ?? DEFAULT_PROPERTY_MS;
  describe(options.name ?? 'pouchproof', () => {
    let target: ResolvedTarget | undefined;
    let unknownReadings: ReadonlyMap<AssumptionName, string> | undefined;
    let store: ExampleStore | undefined;
    let stored: ReadonlyMap<string, readonly string[]> = new Map();
    const ran: RunResult[] = [];
    beforeAll(async () => {
      const opened = await openTarget(options);
      target = opened;
      if (options.examples !== undefined) {
        store = ExampleStore.for(checkExamplesDir(options.examples), { embedded: opened.embedded, baseUrl: opened.profile.baseUrl });
        stored = await store.load();
      }
      if ((options.readings ?? 'auto') === 'auto') {
        const probed = await probeReadings(opened, probeBounds(PROBE_BUDGET_MS, options.perRequestMs));
        target = probed.target;
        unknownReadings = probed.unknownReadings;
      }
    }, TARGET_MS + MARGIN_MS);
    afterAll(async () => {
      await target?.close();
      if (store) await store.update({ results: ran.flatMap((r) => r.results), examples: ran.flatMap((r) => r.examples ?? []) });
    });
    for (const p of props) {
      test(`${p.id} (§${p.section}): ${p.invariant}`, { timeout: perPropertyMs + MARGIN_MS }, async (ctx) => {
        if (!target) throw new Error('pouchproof: the target did not open (see the beforeAll error)');
        if (maxFailures !== undefined && failed >= maxFailures) {
          ctx.skip(`not run: the run stopped after ${maxFailures} failing properties (maxFailures)`);
          return;
        }
        const mine = stored.get(p.id);
        const run = await runProperties(target.profile, [p], {
          ...(options.shrink === false ? { shrink: false } : {}),
          ...(mine?.length ? { examples: new Map([[p.id, mine]]) } : {}),
          seed,
          runs: options.runs ?? DEFAULT_RUNS,
          perPropertyMs,
          ...(options.perRequestMs ? { perRequestMs: options.perRequestMs } : {}),
          embedded: target.embedded,
          ...(unknownReadings?.size ? { unknownReadings } : {}),
        });
        ran.push(run);
        const r = run.results[0];
        if (!r) throw new Error(`pouchproof: ${p.id} produced no result`);
        if (r.status === 'failed') failed++;
        if (r.status === 'skipped') {
          ctx.skip(r.findings[0]?.message ?? 'skipped');
          return;
        }
        const failure = failureOf(r, options.failOn ?? [], seed);
        if (failure) throw new Error(redact(failure, target.profile.secrets));
      });
    }
  });
}

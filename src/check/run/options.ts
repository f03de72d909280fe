/**
 * The runner's options, and their normal form: every default decided here once, so the parts of
 * the runner read plain values.
 */
import type { AssumptionName } from '../../spec/index.ts';
import type { TargetClient } from '../../target/client.ts';
import type { Profile } from '../../target/profile.ts';
import type { Property } from '../property.ts';
import type { ExampleReplay, FailOnKind, Finding, ProgressEvent } from './result.ts';

export interface RunOptions {
  seed: number;
  runs: number;
  only?: string[] /* globs */;
  /** Property id globs left out (`--exclude`), after `only`. */
  exclude?: string[];
  perRequestMs?: number;
  perPropertyMs?: number;
  onProgress?: (e: ProgressEvent) => void;
  signal?: AbortSignal;
  /** The target is the embedded reference (enables `embedded-only` properties). */
  embedded?: boolean;
  /** Stop the run after the first property with a finding this accepts (mutation testing: the fault's own detection). */
  stopWhen?: (f: Finding) => boolean;
  /** Do not shrink: report the first failing case as found (mutation testing). */
  endOnFailure?: boolean;
  /** Stop the run once this many properties have failed (`--max-failures`): those not begun are listed as not run. */
  maxFailures?: number;
  /** Shrink each failing case (default true; `--no-shrink`: every distinct failure reported as found). */
  shrink?: boolean;
  /** Stored failing cases (the example database) to re-run first, by property id: replay tokens. */
  examples?: ReadonlyMap<string, readonly string[]>;
  /** Told of each stored case as it is re-run (the console's line). */
  onExample?: (e: ExampleReplay) => void;
  /** Overrides the run id (default: `YYYYMMDD-HHMMSS-<seedhex>`). */
  runId?: string;
  /** A client to use instead of a fresh one (the caller then closes it). */
  client?: TargetClient;
  /**
   * The run's overall time budget: shared out over the properties still to run (each gets at most
   * `perPropertyMs`, and at most what is left over the runnable ones left); a property the budget
   * has no time left for is not run, and says so (inconclusive).
   */
  maxDurationMs?: number;
  /** When the budget started counting (Date.now() of, e.g., the readings probe before the run; default: the run's start). */
  budgetFrom?: number;
  /** Run the coverage phase (default true); it is the same whatever the seed, so a multi-seed sweep may run it once. */
  coverage?: boolean;
  /**
   * Cases in flight at once, in both phases (default: the profile's connections, at most
   * MAX_CONCURRENCY). `compare` sets 1: it cuts the recorded exchanges into cases by their order,
   * which concurrent cases would interleave.
   */
  concurrency?: number;
  /**
   * Properties in flight at once, among those whose state is all fresh (schedule.ts); the others run
   * alone after them. Default 1: each property alone, in the selection's order, as `compare`, the
   * mutants and the readings zoo need.
   */
  propertiesAtOnce?: number;
  /** Kinds of finding that fail the run besides violations and server errors (`--fail-on performance`). */
  failOn?: readonly FailOnKind[];
  /**
   * Readings the probe could not identify (`--assume auto`): a judgement that consults one is
   * `unknown`, never judged under the registry default.
   */
  unknownReadings?: ReadonlyMap<AssumptionName, string>;
  /** Requests per second at most from the start (`--rate-limit`); throttling lowers it further as the target asks. */
  rateLimitPerSecond?: number;
}

/** Cases per property when none is given (`--runs`); properties may ask for fewer. */
export const DEFAULT_RUNS = 25;
/** Per-property time bound when none is given. */
export const DEFAULT_PROPERTY_MS = 30_000;
/** Cases in flight together at most, whatever the profile's connections. */
export const MAX_CONCURRENCY = 64;

/** The options of one property's run, every default applied. */
export interface PropertyRunOptions {
  readonly seed: number;
  readonly runs: number;
  /** A replay: fast-check's path, or a coverage case's (`c<index>`). */
  readonly path?: string;
  readonly perRequestMs?: number;
  readonly perPropertyMs: number;
  /** Set when `perPropertyMs` is the property's share of the run's time budget. */
  readonly budgetShareMs?: number;
  /** When the run's time budget ends (Date.now() ms): time given back for throttling never reaches past it. */
  readonly budgetEndsAt?: number;
  readonly signal?: AbortSignal;
  readonly embedded: boolean;
  readonly endOnFailure: boolean;
  /** False: each distinct failure is reported as found, unshrunk (`--no-shrink`). */
  readonly shrink: boolean;
  readonly onProgress?: (e: ProgressEvent) => void;
  readonly coverage: boolean;
  readonly concurrency: number;
  readonly unknownReadings: ReadonlyMap<AssumptionName, string>;
}

export function makeRunId(seed: number, at: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const day = `${at.getUTCFullYear()}${p(at.getUTCMonth() + 1)}${p(at.getUTCDate())}`;
  const time = `${p(at.getUTCHours())}${p(at.getUTCMinutes())}${p(at.getUTCSeconds())}`;
  return `${day}-${time}-${(seed >>> 0).toString(16).padStart(8, '0')}`;
}

/** A property's own seed: stable under `--only`, so a subset replays the same cases. */
export function propertySeed(runSeed: number, id: string): number {
  let h = 0x811c9dc5 ^ (runSeed | 0);
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/** The cases a property is planned to run in a run of `runs` (properties may ask for fewer). */
export function plannedRuns(prop: Pick<Property, 'runs'>, runs: number): number {
  return prop.runs !== undefined ? Math.min(prop.runs, runs) : runs;
}

/** Cases of `prop` in flight at once: the run's concurrency, within the profile's connections and the property's own bound. */
export function concurrencyOf(prop: Pick<Property, 'concurrency'>, profile: Pick<Profile, 'caseConcurrency'>, wanted: number | undefined): number {
  const run = Math.max(1, Math.min(wanted ?? profile.caseConcurrency, profile.caseConcurrency, MAX_CONCURRENCY));
  return Math.max(1, Math.min(run, prop.concurrency ?? run));
}

/** The options one property runs with, from the run's. */
export function propertyOptions(prop: Property, profile: Profile, o: RunOptions, bound: { perPropertyMs: number; budgetShareMs?: number; budgetEndsAt?: number }): PropertyRunOptions {
  return {
    seed: propertySeed(o.seed, prop.id),
    runs: plannedRuns(prop, o.runs),
    ...(o.perRequestMs !== undefined ? { perRequestMs: o.perRequestMs } : {}),
    perPropertyMs: bound.perPropertyMs,
    ...(bound.budgetShareMs !== undefined ? { budgetShareMs: bound.budgetShareMs } : {}),
    ...(bound.budgetEndsAt !== undefined ? { budgetEndsAt: bound.budgetEndsAt } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    embedded: o.embedded ?? false,
    endOnFailure: o.endOnFailure ?? false,
    shrink: o.shrink ?? true,
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    coverage: o.coverage ?? true,
    concurrency: concurrencyOf(prop, profile, o.concurrency),
    unknownReadings: o.unknownReadings ?? new Map(),
  };
}

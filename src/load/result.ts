/**
 * What a load run produces, as types only: the result of one run (`LoadRunResult`), and the parts a
 * capacity search, a baseline comparison and a merge of shards add to it. Apart from the code that
 * computes them (execute.ts, capacity.ts, baseline.ts, merge.ts), so that code and the reports can all
 * read one result without importing each other.
 */
import type { AbortedBy } from './engine/engine-options.ts';
import type { NemesisSummary } from '../target/nemesis/index.ts';
import type { GrowthVerdict } from './stats/growth.ts';
import type { LatencySummary } from './stats/histogram.ts';
import type { PhaseResult } from './stats/phases.ts';
import type { CheckResult, Params, Scenario } from './scenario.ts';
import type { ShardSpec } from './shards/shard.ts';
import type { Stages } from './stages.ts';
import type { Metric, ThresholdResult } from './gates/thresholds.ts';
import type { SecondBucket } from './stats/timeline.ts';

/** Which target a run went to. */
export interface LoadTarget {
  readonly url: string;
  readonly embedded: boolean;
  readonly faults?: readonly string[];
}

/** Latency at each percentile of the spectrum, in microseconds. */
export type Spectrum = ReadonlyArray<{ percentile: number; us: number }>;

export interface CurveResult {
  readonly axis: string;
  readonly points: ReadonlyArray<{ value: number; min: number; p50: number; p99: number; rps: number; goodput: number; bytesPerRequest: number; ok: number; notOk: number }>;
  readonly verdict: GrowthVerdict;
}

export interface LoadRunResult {
  readonly runId: string;
  readonly scenario: string;
  readonly description: string;
  readonly unit: Scenario['unit'];
  readonly target: LoadTarget;
  readonly model: 'open' | 'closed';
  /** The open model's rate (its peak, with stages). */
  readonly rate?: number;
  /** The load shape (`--stages`), as this run (this shard, for a shard) ran it. */
  readonly stages?: Stages;
  readonly connections: number;
  readonly workers: number;
  readonly durationMs: number;
  readonly maxRequests: number;
  readonly seed: number;
  readonly params: Params;
  readonly startedAt: string;
  readonly totals: {
    readonly sent: number; readonly completed: number; readonly ok: number; readonly notOk: number; readonly errors: number;
    readonly dropped: number; readonly unsent: number; readonly units: number; readonly bytesSent: number; readonly wallMs: number;
  };
  readonly rates: { readonly rps: number; readonly okPerSecond: number; readonly goodput: number };
  readonly errorRate: number;
  /** Every request sent, failed ones included (a timeout at the moment it was abandoned). */
  readonly latency: LatencySummary;
  /** Failed requests alone (transport errors, timeouts, abandoned, 5xx). */
  readonly errorLatency: LatencySummary;
  /** The failed requests' histogram (encoded), as `histogram` is for every request. */
  readonly errorHistogram: string;
  readonly spectrum: Spectrum;
  readonly histogram: string;
  readonly timeline: readonly SecondBucket[];
  readonly reasons: Readonly<Record<string, number>>;
  readonly kinds: Readonly<Record<string, { sent: number; ok: number; units: number }>>;
  readonly stats: Readonly<Record<string, number>>;
  readonly checks: readonly CheckResult[];
  /**
   * Set when the run went through the nemesis (docs/nemesis.md): what it injected, and the copies sent
   * again after no answer. A request still unanswered after them is in `totals.errors`, never left out.
   */
  readonly nemesis?: Omit<NemesisSummary, 'unanswered'>;
  readonly generator: {
    readonly busy: readonly number[];
    readonly loopUtilization: readonly number[];
    /** Per worker: ms spent building requests ahead before the measured window (not in `busy`). */
    readonly prepareMs: readonly number[];
    readonly limited: boolean;
    readonly note: string;
  };
  readonly curves?: readonly CurveResult[];
  /** Each phase of the requests that got a response (connect, TLS, send, wait, receive...): phases.ts. */
  readonly phases?: PhaseResult;
  /** A capacity search (capacity.ts): every step; the rest of this result is the run at capacity. */
  readonly capacity?: CapacitySearch;
  /** The comparison with a stored run (baseline.ts). */
  readonly baseline?: BaselineComparison;
  /** The user's thresholds, or the default bounds (`byDefault`) when none were given. */
  readonly thresholds: readonly ThresholdResult[];
  /** Why the run failed, in one line (absent when it passed). */
  readonly failedBecause?: string;
  /** Ended early by Ctrl-C: the figures cover what ran. */
  readonly interrupted: boolean;
  /** Ended early by an abort threshold (`p99<50ms:abort`): which, when, at what value. The figures cover what ran. */
  readonly aborted?: AbortedBy;
  /** Epoch ms the measured window started at (the first one, for a sweep). */
  readonly startMs?: number;
  readonly shard?: ShardSpec & { readonly requestedStartMs?: number };
  /** Set on the result of `load merge`: which shards it was made of. */
  readonly merged?: MergeNotes;
}

// ---- a capacity search (capacity.ts) ----

export type CapacityPhase = 'grow' | 'shrink' | 'bisect';

export interface CapacityStep {
  readonly index: number;
  readonly phase: CapacityPhase;
  /** Requests per second offered (open model). */
  readonly offered: number;
  /** Requests per second actually sent over the step. */
  readonly sent: number;
  /** Responses per second. */
  readonly rps: number;
  readonly goodput: number;
  readonly errorRate: number;
  readonly latency: LatencySummary;
  readonly measuredMs: number;
  readonly objective: readonly ThresholdResult[];
  readonly within: boolean;
  /** The generator was saturated (or fell short of the offered rate): this step may measure it, not the target. */
  readonly generatorLimited: boolean;
  /** How busy the generator was, in a phrase ("its event loop was 35% busy"). */
  readonly generatorNote: string;
}

export type CapacityStatus = 'found' | 'at-max-rate' | 'generator-limited' | 'budget-spent' | 'none-within' | 'interrupted';

/** A search's bounds as it ran them (CapacityOptions with the defaults filled in). */
export interface CapacityBounds {
  readonly startRate: number;
  readonly maxRate: number;
  readonly stepMs: number;
  readonly budgetMs: number;
  readonly maxSteps: number;
  readonly resolution: number;
}

export interface CapacitySearch extends CapacityBounds {
  /** The objective's thresholds as judged, the error bound included. */
  readonly objective: readonly string[];
  readonly status: CapacityStatus;
  /** The highest offered rate within the objective; absent when none was. */
  readonly capacity?: number;
  /** The lowest offered rate beyond it. */
  readonly firstBeyond?: number;
  /** One line: the capacity and how far it is established. */
  readonly message: string;
  readonly steps: readonly CapacityStep[];
  readonly elapsedMs: number;
}

// ---- a comparison with a stored run (baseline.ts) ----

export type RelativeMetric = Metric | 'capacity';

export interface ComparisonRow {
  readonly metric: RelativeMetric;
  readonly baseline: number;
  readonly current: number;
  /** current / baseline − 1 (±Infinity from a zero baseline, 0 when both are zero). */
  readonly change: number;
  readonly baselineText: string;
  readonly currentText: string;
  readonly changeText: string;
  /** The relative thresholds on this metric, judged. */
  readonly thresholds: readonly ThresholdResult[];
}

export interface BaselineComparison {
  readonly path: string;
  readonly runId: string;
  readonly startedAt: string;
  /** Ways the two runs differ beyond the build under test, which can move the figures by themselves. */
  readonly caveats: readonly string[];
  readonly rows: readonly ComparisonRow[];
  readonly thresholds: readonly ThresholdResult[];
  readonly spectrum: Spectrum;
}

// ---- a merge of shards (merge.ts) ----

/** What a merge found about the shards it was given. */
export interface MergeNotes {
  /** N, as the shards (or --expect-shards) say. */
  readonly count: number;
  readonly present: readonly number[];
  readonly missing: readonly number[];
  /** Indexes given more than once: only the first is counted. */
  readonly duplicates: readonly number[];
  /** Shards whose measured window started more than a little after the shared start. */
  readonly late: ReadonlyArray<{ readonly index: number; readonly lateMs: number }>;
  readonly requestedStartMs?: number;
  readonly sources: readonly string[];
}

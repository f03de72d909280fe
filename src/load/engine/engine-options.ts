/**
 * What the load engine is given and what it returns, shared by the engine and its two models
 * (executor-open.ts, executor-closed.ts), k6 style: one module per model over a shared sender.
 */
import { performance } from 'node:perf_hooks';
import type { LatencySummary } from '../stats/histogram.ts';
import type { RequestSource } from '../scenario.ts';
import type { PhaseHistograms } from '../stats/phases.ts';
import type { SenderObserver, SenderRoute } from '../http1/sender.ts';
import type { Stage } from '../stages.ts';
import type { Tally } from '../stats/tally.ts';
import type { SecondBucket } from '../stats/timeline.ts';

export const CONTROL_STOP = 0;
export const CONTROL_COMPLETED = 1;
/** 1 + the index (in the run's thresholds) of the abort threshold that stopped the run; 0: none did. */
export const CONTROL_ABORTED_BY = 2;

/** The control block of one run, shared by every engine of it. */
export function newControl(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
}

/**
 * Open model: arrivals at `rate` per second, or shaped by `stages` (a ramping arrival rate; `rate`
 * is then their peak, which sizes the wait queue and is what reports call the rate).
 */
export interface OpenModel {
  readonly kind: 'open';
  readonly rate: number;
  readonly stages?: readonly Stage[];
}

/** Closed model: every connection busy, or as many as `stages` say at each moment (ramping connections). */
export interface ClosedModel {
  readonly kind: 'closed';
  readonly stages?: readonly Stage[];
}

export type LoadModel = OpenModel | ClosedModel;

/** Once the run's time is up, requests still in flight get this long to answer before they are abandoned. */
export const END_GRACE_MS = 1000;

/** Epoch ms, on the `performance.timeOrigin + performance.now()` scale every thread of the process shares. */
export const wallNow = (): number => performance.timeOrigin + performance.now();

/**
 * The engine's time and timers. Injected so a test can drive the schedule with a clock of its own
 * (test/load/ramp-clock.test.ts) instead of waiting for wall time; `setTimeout` returns a canceller.
 */
export interface EngineClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): () => void;
}

export const WALL_CLOCK: EngineClock = {
  now: wallNow,
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

export interface EngineOptions {
  /** The target's base URL; its path is prepended to every request path. */
  readonly baseUrl: string;
  readonly source: RequestSource;
  readonly model: LoadModel;
  /** Connections at most (with stages: at least their peak in the closed model). */
  readonly connections: number;
  readonly durationMs: number;
  /** Hard cap on requests sent by this engine. */
  readonly maxRequests: number;
  /** Called after the warm-up; resolves to the wall-clock start (epoch ms, `wallNow`'s scale) shared by every worker. Default: now. */
  readonly ready?: () => Promise<number>;
  /**
   * Unmeasured closed-model traffic before the start: opens every connection and lets both sides
   * compile their hot paths, which would otherwise read as a stall in the first second.
   */
  readonly warmupMs?: number;
  readonly timeoutMs: number;
  /**
   * Shared with the main thread (a SharedArrayBuffer view, so worker threads see it too):
   * [CONTROL_STOP] set to 1 ends the run early, as at the end of its duration (Ctrl-C, an abort threshold);
   * [CONTROL_COMPLETED] counts completed requests, for progress lines; [CONTROL_ABORTED_BY] says
   * which abort threshold ended it.
   */
  readonly control?: Int32Array;
  /** Response bytes read per request at most (default RESPONSE_BODY_CAP_BYTES). */
  readonly responseCapBytes?: number;
  /** The profile's TLS block, proxy and headers (see SenderRoute). */
  readonly route?: SenderRoute;
  /** Open model: due requests allowed to wait for a free connection. */
  readonly queueLimit?: number;
  /** Sees every measured request as it is sent and settles (live metrics). */
  readonly observer?: SenderObserver;
  /** Receives a sample of what this engine has measured every ABORT_EVERY_MS, for the run's abort judge (abort.ts). */
  readonly abortSample?: (s: AbortSample) => void;
  /** Default WALL_CLOCK. */
  readonly clock?: EngineClock;
}

/** What one engine has measured since its start, as the abort judge (abort.ts) merges it. */
export interface AbortSample {
  /** Every settled request's latency so far (HdrHistogram, compressed base64). */
  readonly histogram: string;
  readonly sent: number;
  readonly dropped: number;
  readonly errors: number;
  readonly completed: number;
  readonly units: number;
  /** Ms since the shared start of the measured window. */
  readonly elapsedMs: number;
}

/** Why a run ended early on an abort threshold. */
export interface AbortedBy {
  readonly threshold: string;
  /** The threshold's value when it was judged broken, in its own unit. */
  readonly actualText: string;
  /** Ms into the measured window. */
  readonly atMs: number;
}

export interface EngineResult extends Tally {
  /** HdrHistogram (µs) in compressed base64, for merging. */
  readonly histogram: string;
  /** Every request that was sent, failed ones included. */
  readonly latency: LatencySummary;
  /** The failed ones alone (transport errors, timeouts, abandoned, 5xx), also counted in `histogram`. */
  readonly errorHistogram: string;
  readonly errorLatency: LatencySummary;
  readonly timeline: readonly SecondBucket[];
  readonly wallMs: number;
  /** Time spent building requests and judging responses (the generator itself), in the measured window. */
  readonly generatorMs: number;
  /** Time the source spent preparing (building requests ahead) before the measured window. */
  readonly prepareMs: number;
  /** Event-loop utilization of this thread during the run, 0..1. */
  readonly loopUtilization: number;
  /** The phases of the requests that got a response (phases.ts), encoded. */
  readonly phases: PhaseHistograms;
}

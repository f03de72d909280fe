/**
 * Live figures of one engine thread, for `--metrics-listen`: a SenderObserver that counts every
 * measured request by operation and outcome and puts its latency (from the intended send time, as
 * in load.json) into fixed Prometheus buckets. Plain numbers per request, nothing else: a snapshot
 * is taken a few times a second (`snapshot`) and turned into Prometheus metrics in the main thread
 * (metrics.ts), so the generator's hot path never formats, hashes labels or allocates per request.
 * Counters are cumulative since the thread started measuring; rates and busy share cover the time
 * since the previous snapshot.
 */
import { performance } from 'node:perf_hooks';
import type { LoadRequest, LoadResponse } from '../scenario.ts';
import { PHASES, phaseDurations } from '../stats/phases.ts';
import { AbandonedError, type Flight, type SenderObserver } from '../http1/sender.ts';

/** Where the live metrics are served (`--metrics-listen`), and the port `load k8s` gives its pods. */
export const METRICS_PATH = '/metrics';
export const DEFAULT_METRICS_PORT = 9464;

/** How often an engine thread sends its snapshot: well under Prometheus' shortest usual scrape interval (1 s). */
export const LIVE_EVERY_MS = 250;

/** Upper bounds (seconds) of the latency buckets: 100 µs (a phase on a LAN) to 30 s. */
export const LATENCY_BUCKETS_S = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

/** The index of the bucket `seconds` falls in (LATENCY_BUCKETS_S.length: +Inf). */
function bucketOf(seconds: number): number {
  let i = 0;
  while (i < LATENCY_BUCKETS_S.length && seconds > LATENCY_BUCKETS_S[i]) i++;
  return i;
}

/** Non-cumulative bucket counts (+Inf last) and the sum of what they hold. */
export interface Buckets {
  readonly buckets: readonly number[];
  readonly sumSeconds: number;
}

const emptyBuckets = (): { buckets: number[]; sumSeconds: number } => ({ buckets: new Array<number>(LATENCY_BUCKETS_S.length + 1).fill(0), sumSeconds: 0 });

export const OUTCOMES = ['1xx', '2xx', '3xx', '4xx', '5xx', 'transport_error', 'timeout', 'abandoned'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** How a settled request is counted: its status class, or why it has none. */
export function outcomeOf(res: LoadResponse | Error): Outcome {
  if (res instanceof AbandonedError) return res.abandoned === 'timeout' ? 'timeout' : 'abandoned';
  if (res instanceof Error) return 'transport_error';
  const c = Math.floor(res.status / 100);
  return c <= 1 ? '1xx' : c === 2 ? '2xx' : c === 3 ? '3xx' : c === 4 ? '4xx' : '5xx';
}

/** One operation's figures: counts by outcome (OUTCOMES order) and its latency. */
export interface OperationSnapshot extends Buckets {
  readonly sent: number;
  readonly outcomes: readonly number[];
}

export interface LiveSnapshot {
  readonly operations: Readonly<Record<string, OperationSnapshot>>;
  /** The phases of the answered requests (phases.ts), in PHASES order. */
  readonly phases: readonly Buckets[];
  readonly inFlight: number;
  /** Responses (settled requests) per second since the previous snapshot. */
  readonly achievedRate: number;
  /** Requests sent per second since the previous snapshot. */
  readonly sentRate: number;
  /** Event-loop utilization of the thread since the previous snapshot, 0..1. */
  readonly busy: number;
}

interface OperationFigures {
  sent: number;
  outcomes: number[];
  buckets: number[];
  sumSeconds: number;
}

const now = (): number => performance.timeOrigin + performance.now();

export class LiveRecorder implements SenderObserver {
  private readonly ops = new Map<string, OperationFigures>();
  private readonly phases = PHASES.map(emptyBuckets);
  private readonly durations = new Float64Array(PHASES.length);
  private inFlight = 0;
  private sentTotal = 0;
  private settledTotal = 0;
  private last = { at: performance.now(), sent: 0, settled: 0, elu: performance.eventLoopUtilization() };

  private op(kind: string): OperationFigures {
    let o = this.ops.get(kind);
    if (!o) this.ops.set(kind, (o = { sent: 0, outcomes: OUTCOMES.map(() => 0), ...emptyBuckets() }));
    return o;
  }

  sent(req: LoadRequest): void {
    this.op(req.kind).sent++;
    this.sentTotal++;
    this.inFlight++;
  }

  settled(f: Flight, res: LoadResponse | Error, inFlight: number): void {
    const o = this.op(f.req.kind);
    o.outcomes[OUTCOMES.indexOf(outcomeOf(res))]++;
    const s = Math.max(0, (now() - f.intended) / 1000);
    o.buckets[bucketOf(s)]++;
    o.sumSeconds += s;
    this.settledTotal++;
    this.inFlight = inFlight;
    // An answer: its phases were timed (the sender records them while it has an observer).
    if (!(res instanceof Error) && f.ended > 0) {
      phaseDurations(f, this.durations);
      for (let p = 0; p < PHASES.length; p++) {
        const us = this.durations[p];
        if (us < 0) continue;
        this.phases[p].buckets[bucketOf(us / 1e6)]++;
        this.phases[p].sumSeconds += us / 1e6;
      }
    }
  }

  snapshot(): LiveSnapshot {
    const t = performance.now();
    const elu = performance.eventLoopUtilization();
    const secs = Math.max(1e-3, (t - this.last.at) / 1000);
    const busy = performance.eventLoopUtilization(elu, this.last.elu).utilization;
    const out: LiveSnapshot = {
      operations: Object.fromEntries([...this.ops].map(([k, o]) => [k, { sent: o.sent, outcomes: [...o.outcomes], buckets: [...o.buckets], sumSeconds: o.sumSeconds }])),
      phases: this.phases.map((b) => ({ buckets: [...b.buckets], sumSeconds: b.sumSeconds })),
      inFlight: this.inFlight,
      achievedRate: (this.settledTotal - this.last.settled) / secs,
      sentRate: (this.sentTotal - this.last.sent) / secs,
      busy: Number.isFinite(busy) ? busy : 0,
    };
    this.last = { at: t, sent: this.sentTotal, settled: this.settledTotal, elu };
    return out;
  }
}

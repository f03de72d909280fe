/**
 * The shared part of a measured run, under either model: sending through the Sender, timing and
 * judging every settled request, the counters, and ending the run. A model (executor-open.ts,
 * executor-closed.ts) only decides when the next request goes out and from which intended time.
 */
import { performance } from 'node:perf_hooks';
import { CONTROL_COMPLETED, CONTROL_STOP, WALL_CLOCK, type EngineClock, type EngineOptions, type EngineResult } from './engine-options.ts';
import { END_GRACE_MS } from './engine-options.ts';
import { encodeHistogram, newHistogram, recordUs, summarize, type Histogram } from '../stats/histogram.ts';
import { Prefetcher } from './prefetch.ts';
import type { KindTally } from '../stats/tally.ts';
import type { LoadRequest, LoadResponse, RequestOutcome } from '../scenario.ts';
import type { Flight, Sender } from '../http1/sender.ts';
import { Timeline } from '../stats/timeline.ts';
import { errorMessage } from '../../spec/index.ts';

/** What a model does for the shared run. */
export interface ModelDriver {
  /** Sends what may be sent now. */
  drain(): void;
  /** True once the model will send nothing more (the closed model past its window). */
  exhausted(): boolean;
  /** Due requests still waiting when the run ended. */
  unsent(): number;
  /** Clears the model's timers. */
  dispose(): void;
}

export class EngineRun {
  readonly clock: EngineClock;
  readonly tEnd: number;
  readonly hist: Histogram = newHistogram();
  readonly errHist: Histogram = newHistogram();
  readonly timeline: Timeline;
  readonly prefetch: Prefetcher;
  readonly reasons: Record<string, number> = {};
  readonly kinds: Record<string, KindTally> = {};
  sent = 0;
  completed = 0;
  ok = 0;
  notOk = 0;
  errors = 0;
  dropped = 0;
  units = 0;
  bytesSent = 0;
  judgeMs = 0;
  stopped = false;
  driver: ModelDriver | undefined;
  readonly done: Promise<void>;
  private resolveDone!: () => void;
  private cancelGrace: (() => void) | undefined;

  constructor(
    readonly o: EngineOptions,
    readonly sender: Sender,
    readonly t0: number,
  ) {
    this.clock = o.clock ?? WALL_CLOCK;
    this.tEnd = t0 + o.durationMs;
    this.timeline = new Timeline(t0, o.durationMs);
    this.prefetch = new Prefetcher(o.source);
    this.done = new Promise<void>((r) => (this.resolveDone = r));
  }

  /** Ctrl-C or an abort threshold, through the control block every engine of the run shares. */
  stopRequested(): boolean {
    return this.o.control !== undefined && Atomics.load(this.o.control, CONTROL_STOP) === 1;
  }

  /** Whether one more request may go out now: the run goes on, a connection (of `limit`) is free, the cap is not reached. */
  canSend(limit = this.o.connections): boolean {
    return !this.stopped && this.sender.inFlight.size < limit && this.sent < this.o.maxRequests;
  }

  /** Sends `r`, its latency counted from `intended` (epoch ms). */
  fire(r: LoadRequest, intended: number): void {
    this.sent++;
    this.bytesSent += r.body.length;
    this.kindOf(r.kind).sent++;
    this.sender.send(r, intended, this.onSettled);
  }

  private kindOf(kind: string): KindTally {
    let k = this.kinds[kind];
    if (!k) this.kinds[kind] = k = { sent: 0, ok: 0, units: 0 };
    return k;
  }

  private readonly onSettled = (f: Flight, res: LoadResponse | Error): void => {
    this.finish(f, res);
    if (!this.stopped) this.driver?.drain();
    if (this.stopped || this.sent >= this.o.maxRequests || this.driver?.exhausted()) {
      if (this.sender.inFlight.size === 0) this.resolveDone();
    }
  };

  // Every request that settles is timed, whatever ended it: an answer, an error, a timeout (at the
  // moment it was abandoned) or the end of the run. Leaving failures out would make a server that
  // hangs look faster.
  private finish(f: Flight, res: LoadResponse | Error): void {
    const end = this.clock.now();
    this.completed++;
    if (this.o.control) Atomics.add(this.o.control, CONTROL_COMPLETED, 1);
    const latencyUs = (end - f.intended) * 1000;
    recordUs(this.hist, latencyUs);
    const out = this.judge(f.req, res);
    const k = this.kindOf(f.req.kind);
    if (out.ok) {
      this.ok++;
      k.ok++;
    } else {
      this.notOk++;
      const why = out.reason ?? 'failed';
      this.reasons[why] = (this.reasons[why] ?? 0) + 1;
    }
    if (out.error) {
      this.errors++;
      recordUs(this.errHist, latencyUs);
    }
    this.units += out.units;
    k.units += out.units;
    this.timeline.record(end, out.ok, out.units, !!out.error);
  }

  private judge(r: LoadRequest, res: LoadResponse | Error): RequestOutcome {
    const g = performance.now();
    try {
      return this.o.source.complete(r, res);
    } catch (e) {
      return { ok: false, units: 0, reason: `scenario error: ${errorMessage(e)}`, error: true };
    } finally {
      this.judgeMs += performance.now() - g;
    }
  }

  /** Stops sending; what is in flight gets END_GRACE_MS (within its timeout) and is then abandoned. */
  stop(): void {
    this.stopped = true;
    this.prefetch.stopped = true;
    if (this.sender.inFlight.size === 0) return this.resolveDone();
    this.cancelGrace ??= this.clock.setTimeout(() => {
      this.sender.abandonAll('abandoned-at-end');
      this.resolveDone();
    }, Math.min(END_GRACE_MS, this.o.timeoutMs));
  }

  /** Waits for the end, then tallies; `extra` is what only the engine knows (wall time, event-loop use). */
  async result(extra: Pick<EngineResult, 'wallMs' | 'prepareMs' | 'loopUtilization'>): Promise<EngineResult> {
    await this.done;
    this.stopped = true;
    this.prefetch.stopped = true;
    this.cancelGrace?.();
    this.driver?.dispose();
    await this.sender.close();
    const latency = summarize(this.hist);
    const histogram = encodeHistogram(this.hist);
    const errorLatency = summarize(this.errHist);
    const errorHistogram = encodeHistogram(this.errHist);
    this.hist.destroy();
    this.errHist.destroy();
    const { sent, completed, ok, notOk, errors, dropped, units, reasons, kinds, bytesSent } = this;
    return {
      histogram, latency, errorHistogram, errorLatency, sent, completed, ok, notOk, errors, dropped,
      unsent: this.driver?.unsent() ?? 0, units, reasons, kinds, bytesSent,
      phases: this.sender.takePhases(),
      timeline: this.timeline.buckets,
      generatorMs: this.judgeMs + this.prefetch.generatorMs,
      ...extra,
    };
  }
}

/**
 * The send loop of one worker, in two models:
 * - closed: a fixed number of connections, each sending its next request as soon as the previous
 *   one answers; latency is measured from the actual send. It shows what a server sustains, and
 *   hides its stalls (a stalled server simply receives fewer requests).
 * - open: request i is due at t0 + i/rate whatever happened before; latency is measured from that
 *   intended time, so a stall is charged to every request it delayed (coordinated omission
 *   corrected, as wrk2 does). Requests that are due while every connection is busy wait in a
 *   bounded queue; beyond it they are counted as dropped, never buffered without bound.
 * Memory is fixed: two HdrHistograms (all requests, failed ones), one bucket per second, one queue of
 * due times, and at most one capped response body per connection (sender.ts).
 */
import { performance } from 'node:perf_hooks';
import { encodeHistogram, newHistogram, recordUs, summarize, type LatencySummary } from './histogram.ts';
import type { LoadRequest, LoadResponse, RequestOutcome, RequestSource } from './scenario.ts';
import type { Tally } from './tally.ts';
import { Timeline, type SecondBucket } from './timeline.ts';
import { Sender, type Flight, type SenderObserver, type SenderRoute } from './sender.ts';
import type { PhaseHistograms } from './phases.ts';

export const CONTROL_STOP = 0;
export const CONTROL_COMPLETED = 1;

/** The control block of one run, shared by every engine of it. */
export function newControl(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

export type LoadModel = { readonly kind: 'open'; readonly rate: number } | { readonly kind: 'closed' };

export interface EngineOptions {
  /** The target's base URL; its path is prepended to every request path. */
  readonly baseUrl: string;
  readonly source: RequestSource;
  readonly model: LoadModel;
  readonly connections: number;
  readonly durationMs: number;
  /** Hard cap on requests sent by this engine. */
  readonly maxRequests: number;
  /**
   * Called after the warm-up; resolves to the wall-clock start (epoch ms on the
   * `performance.timeOrigin + performance.now()` scale) shared by every worker. Default: now.
   */
  readonly ready?: () => Promise<number>;
  /**
   * Unmeasured closed-model traffic before the start: opens every connection and lets both sides
   * compile their hot paths, which would otherwise read as a stall in the first second.
   */
  readonly warmupMs?: number;
  readonly timeoutMs: number;
  /**
   * Shared with the main thread (a SharedArrayBuffer view, so worker threads see it too):
   * [CONTROL_STOP] set to 1 ends the run early, as at the end of its duration (Ctrl-C);
   * [CONTROL_COMPLETED] counts completed requests, for progress lines.
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

const now = (): number => performance.timeOrigin + performance.now();

/** A ring of due times (ms) with a fixed capacity. */
class DueQueue {
  private readonly buf: Float64Array;
  private head = 0;
  size = 0;
  constructor(capacity: number) {
    this.buf = new Float64Array(Math.max(1, capacity));
  }
  get capacity(): number {
    return this.buf.length;
  }
  push(t: number): boolean {
    if (this.size === this.buf.length) return false;
    this.buf[(this.head + this.size) % this.buf.length] = t;
    this.size++;
    return true;
  }
  unshift(t: number): void {
    this.head = (this.head - 1 + this.buf.length) % this.buf.length;
    this.buf[this.head] = t;
    this.size = Math.min(this.size + 1, this.buf.length);
  }
  shift(): number {
    const t = this.buf[this.head]!;
    this.head = (this.head + 1) % this.buf.length;
    this.size--;
    return t;
  }
}

/** Once the run's time is up, requests still in flight get this long to answer before they are abandoned. */
export const END_GRACE_MS = 1000;

async function warmUp(sender: Sender, o: EngineOptions): Promise<void> {
  const end = now() + o.warmupMs!;
  let lanes = 0;
  let finished!: () => void;
  const over = new Promise<void>((r) => (finished = r));
  // Each lane sends its next request when the previous one settles, until the warm-up is over.
  const lane = (sent: number): void => {
    if (sent >= 10_000 || now() >= end) {
      if (--lanes === 0) finished();
      return;
    }
    const r = o.source.next();
    if (!r) {
      setTimeout(() => lane(sent + 1), 1);
      return;
    }
    sender.send(r, now(), (f, res) => {
      o.source.complete(f.req, res);
      lane(sent + 1);
    });
  };
  lanes = o.connections;
  for (let i = 0; i < o.connections; i++) lane(0);
  // Unmeasured: whatever has not answered when the warm-up is over is given up.
  const cut = setTimeout(() => sender.abandonAll('abandoned-at-end'), Math.max(0, end - now()) + END_GRACE_MS);
  await over;
  clearTimeout(cut);
}

export async function runEngine(o: EngineOptions): Promise<EngineResult> {
  const sender = new Sender(o.baseUrl, o.connections, o.timeoutMs, o.responseCapBytes, o.route);
  if (o.warmupMs && o.warmupMs > 0) await warmUp(sender, o);
  const p0 = performance.now();
  await o.source.prepare?.();
  const prepareMs = performance.now() - p0;
  const hist = newHistogram();
  const errHist = newHistogram();
  const t0 = o.ready ? await o.ready() : now();
  const tEnd = t0 + o.durationMs;
  const timeline = new Timeline(t0, o.durationMs);
  const reasons: Record<string, number> = {};
  const kinds: Record<string, { sent: number; ok: number; units: number }> = {};
  let sent = 0, completed = 0, ok = 0, notOk = 0, errors = 0, dropped = 0, units = 0, generatorMs = 0, bytesSent = 0;
  let stopped = false;

  const wait = t0 - now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const elu0 = performance.eventLoopUtilization();
  sender.measure(o.observer);
  const started = now();

  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));

  // Requests taken from the source ahead of their send (RequestSource.prefetch), refilled in
  // batches after the event loop's I/O; their building counts as the generator's time all the same.
  const prefetchMax = Math.max(0, Math.min(1024, Math.floor(o.source.prefetch ?? 0)));
  const ahead: Array<LoadRequest | undefined> = [];
  let aheadHead = 0;
  let refillPending = false;
  const refill = (): void => {
    refillPending = false;
    if (stopped) return;
    const g = performance.now();
    while (ahead.length - aheadHead < prefetchMax) {
      const r = o.source.next();
      if (!r) break;
      ahead.push(r);
    }
    generatorMs += performance.now() - g;
  };

  const pull = (): LoadRequest | undefined => {
    let r: LoadRequest | undefined;
    if (aheadHead < ahead.length) {
      r = ahead[aheadHead];
      ahead[aheadHead++] = undefined;
      if (aheadHead === ahead.length) {
        ahead.length = 0;
        aheadHead = 0;
      }
    } else {
      const g = performance.now();
      r = o.source.next();
      generatorMs += performance.now() - g;
    }
    if (prefetchMax > 0 && !refillPending && !stopped && (ahead.length - aheadHead) * 2 <= prefetchMax) {
      refillPending = true;
      setImmediate(refill);
    }
    return r;
  };

  // Every request that settles is timed, whatever ended it: an answer, an error, a timeout (at the
  // moment it was abandoned) or the end of the run. Leaving failures out would make a server that
  // hangs look faster.
  const finish = (f: Flight, res: LoadResponse | Error): void => {
    const end = now();
    const r = f.req;
    completed++;
    if (o.control) Atomics.add(o.control, CONTROL_COMPLETED, 1);
    const latencyUs = (end - f.intended) * 1000;
    recordUs(hist, latencyUs);
    const g = performance.now();
    let out: RequestOutcome;
    try {
      out = o.source.complete(r, res);
    } catch (e) {
      out = { ok: false, units: 0, reason: `scenario error: ${(e as Error).message}`, error: true };
    }
    generatorMs += performance.now() - g;
    const k = (kinds[r.kind] ??= { sent: 0, ok: 0, units: 0 });
    if (out.ok) {
      ok++;
      k.ok++;
    } else {
      notOk++;
      const why = out.reason ?? 'failed';
      reasons[why] = (reasons[why] ?? 0) + 1;
    }
    if (out.error) {
      errors++;
      recordUs(errHist, latencyUs);
    }
    units += out.units;
    k.units += out.units;
    timeline.record(end, out.ok, out.units, !!out.error);
  };

  const onSettled = (f: Flight, res: LoadResponse | Error): void => {
    finish(f, res);
    afterCompletion();
  };

  const fire = (r: LoadRequest, intended: number): void => {
    sent++;
    bytesSent += r.body.length;
    (kinds[r.kind] ??= { sent: 0, ok: 0, units: 0 }).sent++;
    sender.send(r, intended, onSettled);
  };

  const queue = new DueQueue(o.queueLimit ?? Math.max(1024, o.model.kind === 'open' ? Math.ceil(o.model.rate * 2) : 0));
  let nextIndex = 0;
  let timer: NodeJS.Timeout | undefined;
  let grace: NodeJS.Timeout | undefined;

  const canSend = (): boolean => !stopped && sender.inFlight.size < o.connections && sent < o.maxRequests;

  const drain = (): void => {
    // Closed model: keep every connection busy. Open model: serve waiting due times in order.
    if (o.model.kind === 'closed') {
      while (canSend() && now() < tEnd) {
        const r = pull();
        if (!r) break;
        fire(r, now());
      }
    } else {
      while (queue.size > 0 && canSend()) {
        const intended = queue.shift();
        const r = pull();
        if (!r) {
          queue.unshift(intended);
          break;
        }
        fire(r, intended);
      }
    }
  };

  /** Stops sending; what is in flight gets END_GRACE_MS (within its timeout) and is then abandoned. */
  const stop = (): void => {
    stopped = true;
    if (sender.inFlight.size === 0) return resolveDone();
    grace ??= setTimeout(() => {
      sender.abandonAll('abandoned-at-end');
      resolveDone();
    }, Math.min(END_GRACE_MS, o.timeoutMs));
  };

  const afterCompletion = (): void => {
    if (!stopped) drain();
    if (stopped || sent >= o.maxRequests || (o.model.kind === 'closed' && now() >= tEnd)) {
      if (sender.inFlight.size === 0) resolveDone();
    }
  };

  /** Open model: every request due by `t` (and inside the window) joins the queue, or is dropped when it is full. */
  const admitDue = (t: number): void => {
    if (o.model.kind !== 'open') return;
    const interval = 1000 / o.model.rate;
    for (let due = t0 + nextIndex * interval; due <= t && due < tEnd && sent + queue.size < o.maxRequests; due = t0 + nextIndex * interval) {
      if (!queue.push(due)) dropped++;
      nextIndex++;
    }
  };

  const tick = (): void => {
    timer = undefined;
    const t = now();
    if (o.control !== undefined && Atomics.load(o.control, CONTROL_STOP) === 1) {
      stop();
      return;
    }
    const over = t >= tEnd || sent + queue.size >= o.maxRequests;
    // Even the last tick, firing late (a busy event loop), admits the requests that fell due before
    // the window closed: they are sent now, late, their latency counted from when they were due, and
    // whatever cannot be sent is counted as unsent rather than vanishing from the run.
    admitDue(t);
    drain();
    if (over) {
      stop();
      return;
    }
    if (o.model.kind === 'open') {
      const interval = 1000 / o.model.rate;
      const nextDue = t0 + nextIndex * interval;
      timer = setTimeout(tick, Math.max(0, Math.min(nextDue, tEnd) - now()));
    } else {
      // The closed model is driven by completions; this timer only ends the run or retries a
      // source that had nothing to offer.
      timer = setTimeout(tick, sender.inFlight.size === 0 ? 1 : Math.max(1, Math.min(50, tEnd - t)));
    }
  };
  tick();

  await done;
  stopped = true;
  if (grace) clearTimeout(grace);
  if (timer) clearTimeout(timer);
  const wallMs = now() - started;
  const elu = performance.eventLoopUtilization(elu0);
  await sender.close();
  const latency = summarize(hist);
  const histogram = encodeHistogram(hist);
  const errorLatency = summarize(errHist);
  const errorHistogram = encodeHistogram(errHist);
  hist.destroy();
  errHist.destroy();
  return {
    histogram,
    latency,
    errorHistogram,
    errorLatency,
    sent,
    completed,
    ok,
    notOk,
    errors,
    dropped,
    unsent: queue.size,
    units,
    reasons,
    kinds,
    timeline: timeline.buckets,
    wallMs,
    generatorMs,
    prepareMs,
    loopUtilization: elu.utilization,
    bytesSent,
    phases: sender.takePhases(),
  };
}

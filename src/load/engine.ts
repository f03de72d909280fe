/**
 * The send loop of one worker, in two models:
 * - closed: a fixed number of connections, each sending its next request as soon as the previous
 *   one answers; latency is measured from the actual send. It shows what a server sustains, and
 *   hides its stalls (a stalled server simply receives fewer requests).
 * - open: request i is due at t0 + i/rate whatever happened before; latency is measured from that
 *   intended time, so a stall is charged to every request it delayed (coordinated omission
 *   corrected, as wrk2 does). Requests that are due while every connection is busy wait in a
 *   bounded queue; beyond it they are counted as dropped, never buffered without bound.
 * Memory is fixed: one HdrHistogram, one bucket per second, one queue of due times.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { encodeHistogram, newHistogram, recordUs, summarize, type LatencySummary } from './histogram.ts';
import type { LoadRequest, LoadResponse, RequestOutcome, RequestSource } from './scenario.ts';
import type { Tally } from './tally.ts';
import { Timeline, type SecondBucket } from './timeline.ts';

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
  /** Open model: due requests allowed to wait for a free connection. */
  readonly queueLimit?: number;
}

export interface EngineResult extends Tally {
  /** HdrHistogram (µs) in compressed base64, for merging. */
  readonly histogram: string;
  readonly latency: LatencySummary;
  readonly timeline: readonly SecondBucket[];
  readonly wallMs: number;
  /** Time spent building requests and judging responses (the generator itself), in the measured window. */
  readonly generatorMs: number;
  /** Time the source spent preparing (building requests ahead) before the measured window. */
  readonly prepareMs: number;
  /** Event-loop utilization of this thread during the run, 0..1. */
  readonly loopUtilization: number;
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

export function makePool(baseUrl: string, connections: number, timeoutMs: number): Pool {
  const u = new URL(baseUrl);
  return new Pool(u.origin, { connections, pipelining: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 30_000 });
}

export function pathPrefix(baseUrl: string): string {
  return new URL(baseUrl).pathname.replace(/\/+$/, '');
}

/** Sends one request on a pool and reads the whole answer. */
export async function sendOn(pool: Pool, prefix: string, r: LoadRequest, timeoutMs: number): Promise<LoadResponse> {
  const res = await pool.request({ method: r.method, path: prefix + r.path, headers: r.headers, body: r.body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const body = await res.body.text();
  return { status: res.statusCode, body };
}

async function warmUp(pool: Pool, prefix: string, o: EngineOptions): Promise<void> {
  const end = now() + o.warmupMs!;
  const lane = async (): Promise<void> => {
    for (let i = 0; i < 10_000 && now() < end; i++) {
      const r = o.source.next();
      if (!r) {
        await new Promise((res) => setTimeout(res, 1));
        continue;
      }
      const res = await sendOn(pool, prefix, r, o.timeoutMs).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
      o.source.complete(r, res);
    }
  };
  await Promise.all(Array.from({ length: o.connections }, lane));
}

export async function runEngine(o: EngineOptions): Promise<EngineResult> {
  const pool = makePool(o.baseUrl, o.connections, o.timeoutMs);
  const prefix = pathPrefix(o.baseUrl);
  if (o.warmupMs && o.warmupMs > 0) await warmUp(pool, prefix, o);
  const p0 = performance.now();
  await o.source.prepare?.();
  const prepareMs = performance.now() - p0;
  const hist = newHistogram();
  const t0 = o.ready ? await o.ready() : now();
  const tEnd = t0 + o.durationMs;
  const timeline = new Timeline(t0, o.durationMs);
  const reasons: Record<string, number> = {};
  const kinds: Record<string, { sent: number; ok: number; units: number }> = {};
  let sent = 0, completed = 0, ok = 0, notOk = 0, errors = 0, dropped = 0, units = 0, inFlight = 0, generatorMs = 0, bytesSent = 0;
  let stopped = false;

  const wait = t0 - now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const elu0 = performance.eventLoopUtilization();
  const started = now();

  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));

  const pull = (): LoadRequest | undefined => {
    const g = performance.now();
    const r = o.source.next();
    generatorMs += performance.now() - g;
    return r;
  };

  const finish = (r: LoadRequest, res: LoadResponse | Error, intended: number): void => {
    const end = now();
    inFlight--;
    completed++;
    if (o.control) Atomics.add(o.control, CONTROL_COMPLETED, 1);
    if (!(res instanceof Error)) recordUs(hist, (end - intended) * 1000);
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
    if (out.error) errors++;
    units += out.units;
    k.units += out.units;
    timeline.record(end, out.ok, out.units, !!out.error);
  };

  const fire = (r: LoadRequest, intended: number): void => {
    sent++;
    inFlight++;
    bytesSent += r.body.length;
    (kinds[r.kind] ??= { sent: 0, ok: 0, units: 0 }).sent++;
    sendOn(pool, prefix, r, o.timeoutMs).then(
      (res) => {
        finish(r, res, intended);
        afterCompletion();
      },
      (err: unknown) => {
        finish(r, err instanceof Error ? err : new Error(String(err)), intended);
        afterCompletion();
      },
    );
  };

  const queue = new DueQueue(o.queueLimit ?? Math.max(1024, o.model.kind === 'open' ? Math.ceil(o.model.rate * 2) : 0));
  let nextIndex = 0;
  let timer: NodeJS.Timeout | undefined;

  const canSend = (): boolean => !stopped && inFlight < o.connections && sent < o.maxRequests;

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

  const afterCompletion = (): void => {
    if (!stopped) drain();
    if ((stopped || sent >= o.maxRequests) && inFlight === 0) resolveDone();
    else if (o.model.kind === 'closed' && now() >= tEnd && inFlight === 0) resolveDone();
  };

  const tick = (): void => {
    timer = undefined;
    const t = now();
    if (t >= tEnd || sent + queue.size >= o.maxRequests || (o.control !== undefined && Atomics.load(o.control, CONTROL_STOP) === 1)) {
      stopped = true;
      if (inFlight === 0) resolveDone();
      return;
    }
    if (o.model.kind === 'open') {
      const interval = 1000 / o.model.rate;
      while (t0 + nextIndex * interval <= t && sent + queue.size < o.maxRequests) {
        if (!queue.push(t0 + nextIndex * interval)) dropped++;
        nextIndex++;
      }
      drain();
      const nextDue = t0 + nextIndex * interval;
      timer = setTimeout(tick, Math.max(0, Math.min(nextDue, tEnd) - now()));
    } else {
      drain();
      // The closed model is driven by completions; this timer only ends the run or retries a
      // source that had nothing to offer.
      timer = setTimeout(tick, inFlight === 0 ? 1 : Math.max(1, Math.min(50, tEnd - t)));
    }
  };
  tick();

  // A hung server must not hang the tool: give in-flight requests their timeout, then give up.
  const guard = setTimeout(() => resolveDone(), o.durationMs + o.timeoutMs + 1000);
  await done;
  stopped = true;
  clearTimeout(guard);
  if (timer) clearTimeout(timer);
  const wallMs = now() - started;
  const elu = performance.eventLoopUtilization(elu0);
  await pool.destroy().catch(() => undefined);
  const latency = summarize(hist);
  const histogram = encodeHistogram(hist);
  hist.destroy();
  return {
    histogram,
    latency,
    sent,
    completed,
    ok,
    notOk,
    errors: errors + (sent - completed),
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
  };
}

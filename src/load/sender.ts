/**
 * How the load engine puts requests on the wire: undici's `dispatch` with one handler object per
 * request (no promise, no stream, no per-request timer), bounded whatever the target does:
 * - every response body is read up to RESPONSE_BODY_CAP_BYTES and abandoned past it, so an endless
 *   body costs one capped buffer per connection, never the machine's memory;
 * - every request has a total deadline (its timeout from the moment it was dispatched), enforced by
 *   one sweep timer for all of them, so a body dripped a byte at a time cannot outlive it (undici's
 *   own body timeout restarts with every byte);
 * - `abandonAll` settles whatever is still in flight at once (the end of a run).
 * Each request settles exactly once, through its `done` callback, with the response or an Error.
 */
import { performance } from 'node:perf_hooks';
import { Pool, type Dispatcher } from 'undici';
import type { LoadRequest, LoadResponse } from './scenario.ts';

/** Response bytes read per request at most; past it the response is abandoned (and counted). */
export const RESPONSE_BODY_CAP_BYTES = 1024 * 1024;

/** Why the engine gave up on a request itself. */
export type AbandonCause = 'timeout' | 'body-over-cap' | 'abandoned-at-end';

/** The reason each abandonment is counted under in the run's outcomes. */
export function abandonReason(cause: AbandonCause, capBytes = RESPONSE_BODY_CAP_BYTES): string {
  switch (cause) {
    case 'timeout':
      return 'timeout';
    case 'body-over-cap':
      return `response body over ${capBytes >= 1024 * 1024 ? `${capBytes / (1024 * 1024)} MiB` : `${capBytes} bytes`} (abandoned)`;
    case 'abandoned-at-end':
      return 'abandoned-at-end';
    default:
      return cause satisfies never;
  }
}

/** A request the engine gave up on; `reason` is what the outcome is counted under. */
export class AbandonedError extends Error {
  override readonly name = 'AbandonedError';
  constructor(
    readonly abandoned: AbandonCause,
    readonly reason: string,
  ) {
    super(reason);
  }
}

export type Done = (flight: Flight, res: LoadResponse | Error) => void;

const now = (): number => performance.timeOrigin + performance.now();

/** One request on the wire: undici's handler for it, and what the engine needs when it settles. */
export class Flight implements Dispatcher.DispatchHandler {
  /** Epoch ms the request counts its latency from (intended send time, or actual send). */
  intended = 0;
  deadline = 0;
  settled = false;
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly sender: Sender,
    readonly req: LoadRequest,
    private readonly done: Done,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.settled) controller.abort(new AbandonedError('timeout', 'abandoned'));
    else this.controller = controller;
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.size += chunk.length;
    if (this.size > this.sender.capBytes) this.abandon('body-over-cap');
    else this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    const c = this.chunks;
    const body = c.length === 1 ? c[0]!.toString('utf8') : c.length === 0 ? '' : Buffer.concat(c, this.size).toString('utf8');
    this.settle({ status: this.status, body });
  }

  onResponseError(_c: Dispatcher.DispatchController | undefined, err: Error): void {
    if (!this.settled) this.settle(err);
  }

  /** Gives up on the request: settles it now with the cause, and closes its connection. */
  abandon(cause: AbandonCause): void {
    if (this.settled) return;
    this.settle(new AbandonedError(cause, abandonReason(cause, this.sender.capBytes)));
    this.controller?.abort(new AbandonedError(cause, 'abandoned'));
  }

  private settle(res: LoadResponse | Error): void {
    this.settled = true;
    this.chunks = [];
    // undici reports some failures (a header it refuses) inside dispatch itself: answering those
    // synchronously would let send → done → send recurse without bound, and freeing the slot at once
    // would let the caller's send loop spin; both wait for the next turn of the event loop.
    if (this.sender.dispatching) setImmediate(() => this.finish(res));
    else this.finish(res);
  }

  private finish(res: LoadResponse | Error): void {
    this.sender.inFlight.delete(this);
    this.done(this, res);
  }
}

export class Sender {
  readonly inFlight = new Set<Flight>();
  /** True while undici's dispatch runs (see Flight.settle). */
  dispatching = false;
  private readonly pool: Pool;
  private readonly prefix: string;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    baseUrl: string,
    connections: number,
    readonly timeoutMs: number,
    readonly capBytes = RESPONSE_BODY_CAP_BYTES,
  ) {
    const u = new URL(baseUrl);
    this.prefix = u.pathname.replace(/\/+$/, '');
    // The deadline sweep bounds each request; undici's per-phase timers stay as a backstop.
    this.pool = new Pool(u.origin, { connections, pipelining: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 30_000 });
    // A request overstays its deadline by at most one sweep period.
    this.sweeper = setInterval(() => this.sweep(), Math.max(5, Math.min(100, timeoutMs / 10)));
    this.sweeper.unref();
  }

  /** Dispatches `req`; `done` is called exactly once. Latency is the caller's, from `intended`. */
  send(req: LoadRequest, intended: number, done: Done): Flight {
    const f = new Flight(this, req, done);
    f.intended = intended;
    f.deadline = now() + this.timeoutMs;
    this.inFlight.add(f);
    this.dispatching = true;
    try {
      this.pool.dispatch({ method: req.method, path: this.prefix + req.path, headers: req.headers, body: req.body }, f);
    } catch (e) {
      f.onResponseError(undefined, e instanceof Error ? e : new Error(String(e)));
    } finally {
      this.dispatching = false;
    }
    return f;
  }

  /** One request outside a measured run (warm-up, invariant checks): the response, or rejects. */
  request(req: LoadRequest): Promise<LoadResponse> {
    return new Promise((resolve, reject) => {
      this.send(req, now(), (_f, res) => (res instanceof Error ? reject(res) : resolve(res)));
    });
  }

  /** Abandons every request past its deadline. */
  sweep(): void {
    if (this.inFlight.size === 0) return;
    const t = now();
    for (const f of this.inFlight) if (f.deadline <= t) f.abandon('timeout');
  }

  abandonAll(cause: AbandonCause): void {
    for (const f of [...this.inFlight]) f.abandon(cause);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.abandonAll('abandoned-at-end');
    await this.pool.destroy().catch(() => undefined);
  }
}

/**
 * `store-pool-queue`: a store reached through a fixed pool of connections. A request takes one for
 * the whole of its handling (body read included, as a handler that opens its transaction first
 * would) plus a fixed round-trip time. Up to the pool's size requests in flight are served at once;
 * beyond it they wait in line, first come first served, so latency is flat below
 * STORE_POOL_SIZE × 1000 / STORE_HOLD_MS requests per second and grows without bound above: the knee
 * a capacity search is meant to find. A timer stands for the round trip, so the event loop is never
 * blocked and the rest of the server is unchanged.
 */

/** Simulated store connections: requests in flight beyond this many wait. */
export const STORE_POOL_SIZE = 4;
/** The store round trip each request makes while it holds its connection. */
export const STORE_HOLD_MS = 10;

export class StorePool {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(readonly size = STORE_POOL_SIZE, readonly holdMs = STORE_HOLD_MS) {
    this.free = size;
  }

  /** Runs `f` holding a connection (waiting in line for one), after the round trip. */
  async run<T>(f: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          this.timers.delete(t);
          resolve();
        }, this.holdMs);
        this.timers.add(t);
      });
      return await f();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }

  /** A closing server stops holding: requests still in line are dropped with their connections. */
  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.waiting.length = 0;
  }
}

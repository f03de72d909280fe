/**
 * Requests taken from the source ahead of their send (RequestSource.prefetch), refilled in batches
 * after the event loop's I/O; their building counts as the generator's time all the same.
 */
import { performance } from 'node:perf_hooks';
import type { LoadRequest, RequestSource } from '../scenario.ts';

export class Prefetcher {
  private readonly max: number;
  private readonly ahead: Array<LoadRequest | undefined> = [];
  private head = 0;
  private refillPending = false;
  /** Ms spent in the source's `next`. */
  generatorMs = 0;
  stopped = false;

  constructor(private readonly source: RequestSource) {
    this.max = Math.max(0, Math.min(1024, Math.floor(source.prefetch ?? 0)));
  }

  /** The next request to send, or undefined when the source has none now. */
  pull(): LoadRequest | undefined {
    let r: LoadRequest | undefined;
    if (this.head < this.ahead.length) {
      r = this.ahead[this.head];
      this.ahead[this.head++] = undefined;
      if (this.head === this.ahead.length) {
        this.ahead.length = 0;
        this.head = 0;
      }
    } else {
      const g = performance.now();
      r = this.source.next();
      this.generatorMs += performance.now() - g;
    }
    if (this.max > 0 && !this.refillPending && !this.stopped && (this.ahead.length - this.head) * 2 <= this.max) {
      this.refillPending = true;
      setImmediate(() => this.refill());
    }
    return r;
  }

  private refill(): void {
    this.refillPending = false;
    if (this.stopped) return;
    const g = performance.now();
    while (this.ahead.length - this.head < this.max) {
      const r = this.source.next();
      if (!r) break;
      this.ahead.push(r);
    }
    this.generatorMs += performance.now() - g;
  }
}

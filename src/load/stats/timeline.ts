/**
 * Throughput over time: fixed per-second buckets, sized from the run's duration bound when the
 * run starts, so memory stays flat however many requests are sent.
 */
export interface SecondBucket {
  /** Requests completed in this second (any outcome). */
  completed: number;
  /** Requests whose outcome was success. */
  ok: number;
  /** Goodput units (ops applied, rows accepted) in this second. */
  units: number;
  /** Transport errors and 5xx. */
  errors: number;
  /**
   * Requests offered in this second: the open model's due times (dropped ones included), the closed
   * model's sends. Beside `completed` (the achieved rate) it shows a ramp, and where a server fell behind it.
   */
  offered: number;
}

/** An empty second. */
export const emptyBucket = (): SecondBucket => ({ completed: 0, ok: 0, units: 0, errors: 0, offered: 0 });

export class Timeline {
  readonly buckets: SecondBucket[];

  constructor(private readonly t0: number, durationMs: number) {
    // One extra second absorbs responses that land after the send window closes.
    const n = Math.max(1, Math.ceil(durationMs / 1000) + 1);
    this.buckets = Array.from({ length: n }, emptyBucket);
  }

  private at(now: number): SecondBucket {
    const i = Math.min(this.buckets.length - 1, Math.max(0, Math.floor((now - this.t0) / 1000)));
    return this.buckets[i];
  }

  /** A request offered at `at` (its due time, or its send). */
  offer(at: number): void {
    this.at(at).offered++;
  }

  record(now: number, ok: boolean, units: number, error: boolean): void {
    const b = this.at(now);
    b.completed++;
    if (ok) b.ok++;
    b.units += units;
    if (error) b.errors++;
  }
}

/** Adds worker timelines second by second (all share the same t0). */
export function mergeTimelines(all: ReadonlyArray<readonly SecondBucket[]>): SecondBucket[] {
  const n = Math.max(0, ...all.map((t) => t.length));
  const out = Array.from({ length: n }, emptyBucket);
  for (const t of all)
    t.forEach((b, i) => {
      const o = out[i];
      o.completed += b.completed;
      o.ok += b.ok;
      o.units += b.units;
      o.errors += b.errors;
      o.offered += b.offered;
    });
  return out;
}

/**
 * Shards: one load run split over N processes (pods) that never meet. Indexes are 0-based, as
 * Kubernetes' JOB_COMPLETION_INDEX is, so a pod passes its index through unchanged. A shard takes
 * its share of the rate (open model) or of the connections (closed model) and a disjoint slice of
 * the worker index space, from which every identifier its sources draw is seeded.
 */

export interface ShardSpec {
  /** 0-based. */
  readonly index: number;
  readonly count: number;
}

/** More shards than this would make the per-worker seeds of different shards wrap around into each other. */
export const MAX_SHARDS = 10_000;
/** A shared start further ahead than this is almost certainly a mistake (a wrong unit or clock). */
export const MAX_START_LEAD_MS = 3_600_000;
/** A start this far in the past is only reported; beyond it, the shard is late (it starts now, with a warning). */
export const START_TOLERANCE_MS = 2_000;

export class ShardError extends Error {}

export function parseShard(text: string): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new ShardError(`bad --shard "${text}": expected I/N with 0 ≤ I < N, e.g. 0/4 (indexes are 0-based, like JOB_COMPLETION_INDEX)`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || count > MAX_SHARDS) throw new ShardError(`bad --shard "${text}": N must be between 1 and ${MAX_SHARDS}`);
  if (index >= count) throw new ShardError(`bad --shard "${text}": the index is 0-based, so it must be below ${count}`);
  return { index, count };
}

/** Part `i` of `total` split into `parts` as evenly as integers allow (the parts add up to total). */
export function shareOf(total: number, parts: number, i: number): number {
  return Math.floor(total / parts) + (i < total % parts ? 1 : 0);
}

export interface StartAt {
  /** Epoch ms asked for. */
  readonly requestedMs: number;
  /** Epoch ms the measured window starts at (not before now). */
  readonly atMs: number;
  /** Set when the requested time had passed: the shard starts now and says so. */
  readonly warning?: string;
}

/** `--start-at`: an ISO 8601 time with a zone, or epoch milliseconds. */
export function parseStartAt(text: string, nowMs: number): StartAt {
  const t = text.trim();
  const ms = /^\d{10,}$/.test(t) ? Number(t) : /^\d{4}-\d\d-\d\dT.*(Z|[+-]\d\d:?\d\d)$/i.test(t) ? Date.parse(t) : NaN;
  if (!Number.isFinite(ms)) throw new ShardError(`bad --start-at "${text}": expected an ISO time with a zone (2026-01-01T12:00:00Z) or epoch milliseconds`);
  if (ms - nowMs > MAX_START_LEAD_MS) {
    throw new ShardError(`--start-at ${new Date(ms).toISOString()} is more than ${MAX_START_LEAD_MS / 60_000} minutes ahead; refusing to wait that long`);
  }
  if (nowMs - ms > START_TOLERANCE_MS) {
    return { requestedMs: ms, atMs: nowMs, warning: `--start-at ${new Date(ms).toISOString()} passed ${((nowMs - ms) / 1000).toFixed(1)} s ago: starting now; the merge will list this shard as late` };
  }
  return { requestedMs: ms, atMs: Math.max(ms, nowMs) };
}

/** The run id of a shard, so that shards written side by side never overwrite each other. */
export function shardSuffix(s: ShardSpec): string {
  return `shard-${s.index}-of-${s.count}`;
}

/**
 * Workers per shard are spaced this far apart in the global worker index, so shards with different
 * worker counts (pods on different machines) still get disjoint indexes.
 */
export const WORKER_STRIDE = 1024;

/**
 * The global index of worker `i` of a shard. Worker seeds are `seed + index * odd` modulo 2^32, a
 * bijection, so distinct indexes always give distinct seeds, hence disjoint id streams.
 */
export function globalWorkerIndex(shard: ShardSpec | undefined, i: number): number {
  if (i >= WORKER_STRIDE) throw new RangeError(`a shard runs at most ${WORKER_STRIDE} workers`);
  return (shard?.index ?? 0) * WORKER_STRIDE + i;
}

/** Sleeps until `atMs` (epoch), in bounded steps (the clock may be stepped), or until `signal` aborts. */
export async function sleepUntil(atMs: number, signal?: AbortSignal): Promise<void> {
  let wake: (() => void) | undefined;
  const onAbort = (): void => wake?.();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (let i = 0; i < 10_000 && !signal?.aborted; i++) {
      const left = atMs - Date.now();
      if (left <= 0) return;
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.min(left, 1000));
        wake = () => {
          clearTimeout(t);
          r();
        };
      });
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

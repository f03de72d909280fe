/**
 * A bounded pool over indexed work: at most `width` items in flight, taken in index order, until
 * the list ends or `stop()` says so. Results land at their index, so the caller can fold them in
 * the order the items were planned, whatever order they finished in.
 */
export async function inPool<T, R>(items: readonly T[], width: number, run: (item: T, index: number) => Promise<R>, stop: () => boolean): Promise<(R | undefined)[]> {
  const out: (R | undefined)[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!stop()) {
      const i = next++;
      if (i >= items.length) return;
      out[i] = await run(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, items.length)) }, worker));
  return out;
}

/**
 * Case slots shared by properties that run side by side: however many properties are in flight,
 * no more cases than the profile's connections are. Taken in the order asked for.
 */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(count: number) {
    this.free = Math.max(1, count);
  }

  /** Runs `work` in a slot, waiting for one to be free. */
  async with<R>(work: () => Promise<R>): Promise<R> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/**
 * A bounded pool over work pulled as it is needed: at most `width` items in flight, each taken from
 * `take` (undefined: there is no more) when a worker is free, and numbered in the order taken, until
 * `take` runs dry or `stop()` says so; with `slots`, each item also holds one of the slots shared with
 * other pools while it runs.
 */
export async function pooled<T>(take: () => T | undefined, width: number, run: (item: T, index: number) => Promise<void>, stop: () => boolean, slots?: Slots): Promise<void> {
  let next = 0;
  let dry = false;
  // With shared slots, `stop` is asked once a slot is held: a worker that waited for one while the
  // target went down must not start a case then.
  const one = async (): Promise<boolean> => {
    if (dry || stop()) return false;
    const item = take();
    if (item === undefined) {
      dry = true;
      return false;
    }
    await run(item, next++);
    return true;
  };
  const worker = async (): Promise<void> => {
    for (;;) {
      if (dry || stop()) return;
      if (!(slots ? await slots.with(one) : await one())) return;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, width) }, worker));
}

/**
 * A bounded pool over indexed work, taken in index order. Results land at their index, so the caller
 * can fold them in the order the items were planned, whatever order they finished in.
 */
export async function inPool<T, R>(items: readonly T[], width: number, run: (item: T, index: number) => Promise<R>, stop: () => boolean, slots?: Slots): Promise<(R | undefined)[]> {
  const out: (R | undefined)[] = new Array(items.length);
  let i = 0;
  const take = () => (i < items.length ? i++ : undefined);
  await pooled(take, Math.min(width, items.length), async (k) => {
    out[k] = await run(items[k], k);
  }, stop, slots);
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

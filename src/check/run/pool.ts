/**
 * A bounded pool over indexed work: at most `width` items in flight, taken in index order, until
 * the list ends or `stop()` says so; with `slots`, each item also holds one of the slots shared with
 * other pools while it runs. Results land at their index, so the caller can fold them in
 * the order the items were planned, whatever order they finished in.
 */
export async function inPool<T, R>(items: readonly T[], width: number, run: (item: T, index: number) => Promise<R>, stop: () => boolean, slots?: Slots): Promise<(R | undefined)[]> {
  const out: (R | undefined)[] = new Array(items.length);
  let next = 0;
  // With shared slots, `stop` is asked once a slot is held: a worker that waited for one while the
  // target went down must not start a case then.
  const one = async (): Promise<boolean> => {
    if (stop() || next >= items.length) return false;
    const i = next++;
    out[i] = await run(items[i], i);
    return true;
  };
  const worker = async (): Promise<void> => {
    for (;;) {
      if (next >= items.length || stop()) return;
      if (!(slots ? await slots.with(one) : await one())) return;
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

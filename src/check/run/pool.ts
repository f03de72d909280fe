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

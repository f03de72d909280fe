/** Unmeasured closed-model traffic before a run's start (EngineOptions.warmupMs). */
import { END_GRACE_MS, wallNow as now, type EngineOptions } from './engine-options.ts';
import type { Sender } from '../http1/sender.ts';

export async function warmUp(sender: Sender, o: EngineOptions, warmupMs: number): Promise<void> {
  const end = now() + warmupMs;
  let lanes = 0;
  let finished!: () => void;
  const over = new Promise<void>((r) => (finished = r));
  // Each lane sends its next request when the previous one settles, until the warm-up is over.
  const lane = (sent: number): void => {
    if (sent >= 10_000 || now() >= end) {
      if (--lanes === 0) finished();
      return;
    }
    const r = o.source.next();
    if (!r) {
      setTimeout(() => lane(sent + 1), 1);
      return;
    }
    sender.send(r, now(), (f, res) => {
      o.source.complete(f.req, res);
      lane(sent + 1);
    });
  };
  lanes = o.connections;
  for (let i = 0; i < o.connections; i++) lane(0);
  // Unmeasured: whatever has not answered when the warm-up is over is given up.
  const cut = setTimeout(() => sender.abandonAll('abandoned-at-end'), Math.max(0, end - now()) + END_GRACE_MS);
  await over;
  clearTimeout(cut);
}

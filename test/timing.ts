/**
 * Timing bounds taken from the same test's own measurements (README "Tests"): a plain timer of the
 * time the work is planned to take, set at the same moment on the same event loop, is the baseline.
 * A loaded machine that delays the work's own timers and turns delays this one with them, so a bound
 * that is a multiple of what the timer took holds there too, and still tells work that ended at its
 * bound from work that ran on to some other, far later one.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface Beside<T> {
  readonly value: T;
  /** How long the work took. */
  readonly tookMs: number;
  /** How long the timer set beside it took to fire: its planned time and how late this machine made it. */
  readonly timerMs: number;
}

/** Runs `work` beside a timer of `plannedMs` (waited for too, so keep it no longer than the work's own plan). */
export async function besideTimer<T>(plannedMs: number, work: () => Promise<T>): Promise<Beside<T>> {
  const t0 = performance.now();
  const timer = sleep(plannedMs).then(() => performance.now() - t0);
  const value = await work();
  const tookMs = performance.now() - t0;
  return { value, tookMs, timerMs: await timer };
}

/**
 * Runs `work` beside a timer of `plannedMs` that is cleared when the work ends, and says which came
 * first: an order of two events on one event loop, for work that must end well before its plan.
 */
export async function endsBefore<T>(plannedMs: number, work: () => Promise<T>): Promise<{ readonly value: T; readonly endedFirst: boolean }> {
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
  }, plannedMs);
  try {
    const value = await work();
    return { value, endedFirst: !fired };
  } finally {
    clearTimeout(timer);
  }
}

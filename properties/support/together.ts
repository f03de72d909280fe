/**
 * Requests raced on purpose: each holds back the last byte of its body until every one is held, then
 * all are released at once, so the target sees them arrive together (the races of 4.2, usage reports
 * of one row at once). One place for it: the properties that race used to wait each in their own way.
 */
import type { CaseContext } from '../../src/check/property.ts';

/** How long to wait for every request to be held before releasing them anyway (the race is then smaller). */
export const HOLD_WAIT_MS = 3_000;

/** What a raced call passes on to `ctx.call`. */
export interface Hold {
  readonly gate: Promise<void>;
  readonly onHeld: () => void;
}

/**
 * Starts `n` calls (`send(i, hold)`) and releases them together once all are held. A call that ends
 * before it is held (refused on its headers, a transport failure) counts as held, and so does every
 * call once the case is ended (its time bound): waiting for them would only hold the run up.
 */
export async function releasedTogether<T>(ctx: CaseContext, n: number, send: (i: number, hold: Hold) => Promise<T>): Promise<T[]> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let allHeld!: () => void;
  const ready = new Promise<void>((r) => (allHeld = r));
  const held = new Set<number>();
  const mark = (i: number) => {
    held.add(i);
    if (held.size === n) allHeld();
  };
  const calls = Array.from({ length: n }, (_, i) => {
    const call = send(i, { gate, onHeld: () => mark(i) });
    void call.then(
      () => mark(i),
      () => mark(i),
    );
    return call;
  });
  const timer = setTimeout(allHeld, HOLD_WAIT_MS);
  ctx.signal.addEventListener('abort', allHeld, { once: true });
  if (ctx.signal.aborted) allHeld();
  await ready;
  clearTimeout(timer);
  ctx.signal.removeEventListener('abort', allHeld);
  release();
  return Promise.all(calls);
}

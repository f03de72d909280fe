/**
 * Raced requests are released together once all are held (properties/support/together.ts). A call
 * that ends before it is held, and a case whose time bound ended it, release the rest at once: the
 * wait for the stragglers (3 s) used to hold a run past its budget (a 2.5 s budget took up to 7.7 s).
 * The 3 s timer is faked and never advanced: whatever resolves here did not wait for it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CaseContext } from '../../src/check/property.ts';
import { releasedTogether, type Hold } from '../../properties/support/together.ts';

const ctxWith = (signal: AbortSignal) => ({ signal }) as Pick<CaseContext, 'signal'> as CaseContext;
/** Settles after a few turns of the real event loop, so a promise still pending then is waiting on the faked timer. */
const settled = async <T>(p: Promise<T>): Promise<T | 'pending'> => {
  const later = new Promise<'pending'>((r) => setImmediate(() => setImmediate(() => r('pending'))));
  return Promise.race([p, later]);
};

afterEach(() => {
  vi.useRealTimers();
});

describe('requests released together', () => {
  it('releases once every call is held, and answers in order', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const send = async (i: number, h: Hold) => {
      h.onHeld();
      await h.gate;
      return i;
    };
    expect(await settled(releasedTogether(ctxWith(new AbortController().signal), 3, send))).toEqual([0, 1, 2]);
  });

  it('a call that ends before it is held counts as held', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const send = async (i: number, h: Hold) => {
      if (i === 1) return -1;
      h.onHeld();
      await h.gate;
      return i;
    };
    expect(await settled(releasedTogether(ctxWith(new AbortController().signal), 3, send))).toEqual([0, -1, 2]);
  });

  it('an ended case releases at once, held or not', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const ended = new AbortController();
    const send = async (i: number, h: Hold) => {
      await h.gate;
      return i;
    };
    const p = releasedTogether(ctxWith(ended.signal), 2, send);
    expect(await settled(p)).toBe('pending');
    ended.abort();
    expect(await settled(p)).toEqual([0, 1]);
  });
});

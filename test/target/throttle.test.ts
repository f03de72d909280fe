/**
 * Throttling is waited out (throttle.ts): one episode halves the rate once however many requests it
 * refused, nothing is sent in the quiet a Retry-After asks for, and the time held back is counted
 * once however many requests waited in it; a property's time bound gets that time back, capped.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_RETRIES, KIND_PROVEN, KNOWN_KIND_RETRIES, Throttle, throttleWait, type Refusal } from '../../src/target/throttle.ts';

/** The kind (endpoint and status) of the refusals below. */
const KIND = 'commitOperations 503';
import { MAX_THROTTLE_CREDIT, PropertyBound } from '../../src/check/run/time-limits.ts';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Throttle', () => {
  it('halves the rate once for the requests one episode refused, and again for a request sent after its quiet', () => {
    const t = new Throttle();
    const sentAt = Date.now();
    // Sixteen connections refused at once: one episode.
    for (let i = 0; i < 16; i++) t.throttle({ retryAfterMs: 1000 }, 0, 400, sentAt);
    expect(t.stats()).toMatchObject({ throttled: 16, limitPerSecond: 200 });
    // Sent inside the quiet (a turn taken before it): still the same episode.
    vi.advanceTimersByTime(500);
    t.throttle({ retryAfterMs: 1000 }, 0, 400, Date.now());
    expect(t.stats().limitPerSecond).toBe(200);
    // Sent after the quiet ended: the rate is still too high.
    vi.advanceTimersByTime(1500);
    t.throttle({ retryAfterMs: 1000 }, 0, 400, Date.now());
    expect(t.stats().limitPerSecond).toBe(100);
  });

  it('sends nothing during the quiet a Retry-After asked for, even on a turn taken before it', async () => {
    const t = new Throttle();
    t.throttle({ retryAfterMs: 10 }, 0, 100, Date.now() - 1); // sets a rate of 50/s
    vi.advanceTimersByTime(20);
    const start = Date.now();
    await t.turn(); // the slot now: the next two wait for theirs
    const turns = [t.turn(), t.turn()];
    // A second throttle while both wait: a 1 s quiet.
    t.throttle({ retryAfterMs: 1000 }, 0, 100, start + 100);
    const released: number[] = [];
    for (const p of turns) void p.then(() => released.push(Date.now()));
    await vi.advanceTimersByTimeAsync(2000);
    expect(released).toHaveLength(2);
    for (const at of released) expect(at).toBeGreaterThanOrEqual(start + 1000);
    // Paced apart at the rate (25/s after the second halving): 40 ms.
    expect(Math.abs(released[1]! - released[0]!)).toBeGreaterThanOrEqual(40);
  });

  it('counts held time once however many requests wait in it', () => {
    const t = new Throttle();
    const now = Date.now();
    for (let i = 0; i < 8; i++) t.throttle({ retryAfterMs: 1000 }, 0, 100, now);
    vi.advanceTimersByTime(1000);
    expect(t.heldMs()).toBe(1000);
    expect(t.stats().waitedMs).toBe(0); // waits are added by the client as they are spent
  });

  it('reads Retry-After in seconds or as a date, and a 503 without it is no throttle', () => {
    expect(throttleWait(429, { 'retry-after': '2' })).toEqual({ retryAfterMs: 2000 });
    expect(throttleWait(429, {})).toEqual({});
    expect(throttleWait(503, {})).toBeUndefined();
    expect(throttleWait(503, { 'retry-after': new Date(Date.now() + 3000).toUTCString() })?.retryAfterMs).toBeGreaterThan(1000);
  });
});

describe('Throttle.givesUp: waited out only while backing off helps', () => {
  /** One request refused, as the client records it: sent, its record started at its first refusal, which then counts as a throttle. */
  function refusedOnce(t: Throttle): Refusal {
    const sentAt = t.sending();
    const r = t.refused(KIND);
    t.throttle({ retryAfterMs: 1000 }, 0, 10, sentAt);
    return r;
  }
  /** The request sent again after its Retry-After, and refused again. */
  function retried(t: Throttle, r: Refusal): void {
    vi.advanceTimersByTime(1000);
    r.retries++;
    t.sending();
  }

  it('gives up after DEFAULT_MAX_RETRIES retries when a request sent since its first refusal was answered', () => {
    const t = new Throttle();
    const r = refusedOnce(t);
    vi.advanceTimersByTime(1000);
    t.answered(t.sending()); // another request, sent after the refusal, answered
    for (let i = 1; i < DEFAULT_MAX_RETRIES; i++) {
      retried(t, r);
      expect(t.givesUp(r), `retry ${i}`).toBeUndefined();
      t.throttle({ retryAfterMs: 1000 }, i, 10);
    }
    retried(t, r);
    expect(t.givesUp(r)).toBe('served');
  });

  it('gives up a request refused alone after as many retries as the options say', () => {
    const t = new Throttle({ maxRetries: 2 });
    const r = refusedOnce(t);
    retried(t, r);
    expect(t.givesUp(r)).toBeUndefined();
    t.throttle({ retryAfterMs: 1000 }, 1, 10);
    retried(t, r);
    expect(t.givesUp(r)).toBe('alone');
  });

  it('takes no request as alone while another call waits for its turn (queued behind the quiet, not sent yet)', () => {
    const t = new Throttle({ maxRetries: 1 });
    t.began();
    const r = refusedOnce(t);
    t.began(); // another call, waiting for its turn
    retried(t, r);
    expect(t.givesUp(r)).toBeUndefined();
    t.ended();
    expect(t.givesUp(r)).toBe('alone');
  });

  it('keeps waiting while everything is refused: others sent since and none answered', () => {
    const t = new Throttle({ maxRetries: 2 });
    const r = refusedOnce(t);
    for (let i = 1; i <= 5; i++) {
      retried(t, r);
      t.throttle({ retryAfterMs: 1000 }, 0, 10, t.sending()); // another request, refused too
      expect(t.givesUp(r), `retry ${i}`).toBeUndefined();
      t.throttle({ retryAfterMs: 1000 }, i, 10);
    }
    // The server answers another request sent after the refusal: this one is now refused alone.
    t.answered(t.sending());
    retried(t, r);
    expect(t.givesUp(r)).toBe('served');
  });

  it('takes no answer to a request sent before the first refusal as a sign that the rate is served', () => {
    const t = new Throttle({ maxRetries: 1 });
    const before = t.sending();
    const other = t.sending(); // still in flight when the refusal comes
    const r = refusedOnce(t);
    vi.advanceTimersByTime(10);
    t.answered(before);
    t.answered(other);
    retried(t, r);
    expect(t.givesUp(r)).toBe('alone'); // nothing else sent since: alone, not "served"
    t.sending(); // now another goes out, unanswered
    expect(t.givesUp(r)).toBeUndefined();
  });
});

describe('Throttle.ownAnswer: a request given up gives back the pace its refusals cut', () => {
  /**
   * A request refused (then whatever else happens `meanwhile`), retried DEFAULT_MAX_RETRIES times, each
   * retry refused and counted, while another request was answered: given up.
   */
  function givenUp(t: Throttle, meanwhile: () => void = () => vi.advanceTimersByTime(1000)): Refusal {
    const r = t.refused(KIND);
    t.throttle({ retryAfterMs: 1000 }, 0, 400, t.sending(), r);
    meanwhile();
    t.answered(t.sending());
    for (let i = 1; i <= DEFAULT_MAX_RETRIES; i++) {
      vi.advanceTimersByTime(1000);
      r.retries++;
      t.sending();
      if (i < DEFAULT_MAX_RETRIES) t.throttle({ retryAfterMs: 1000 }, i, 400, Date.now(), r);
    }
    expect(t.givesUp(r)).toBe('served');
    return r;
  }

  it('restores the rate and the quiet of before its first refusal, and the turns paced at the cut rate go at once', async () => {
    const t = new Throttle();
    const r = givenUp(t);
    expect(t.stats().limitPerSecond).toBeLessThan(50);
    // Two turns at the cut pace: the second is due seconds later.
    await t.turn();
    const released: number[] = [];
    const start = Date.now();
    for (const p of [t.turn(), t.turn()]) void p.then(() => released.push(Date.now()));
    await vi.advanceTimersByTimeAsync(0);
    expect(released).toEqual([]);
    t.ownAnswer(r);
    await vi.advanceTimersByTimeAsync(0);
    expect(released).toEqual([start, start]);
    expect(t.stats().limitPerSecond).toBeUndefined();
    expect(t.stats().throttled).toBe(DEFAULT_MAX_RETRIES);
  });

  it('keeps the cuts when another request was throttled since its first refusal: something does throttle', () => {
    const t = new Throttle();
    let cut: number | undefined;
    const r = givenUp(t, () => {
      vi.advanceTimersByTime(1500);
      t.throttle({ retryAfterMs: 1000 }, 0, 400, t.sending()); // another request, refused after the quiet
      cut = t.stats().limitPerSecond;
    });
    const before = t.stats().limitPerSecond;
    expect(cut).toBeDefined();
    expect(before).toBeLessThanOrEqual(cut ?? 0);
    t.ownAnswer(r);
    expect(t.stats().limitPerSecond).toBe(before);
  });
});

describe('a refusal of a kind given up before (KNOWN_KIND_RETRIES, KIND_PROVEN)', () => {
  /** One request of KIND refused and sent again until given up while others were answered (the run's rate cut by a throttle before, so a cut would show). */
  function giveUpOne(t: Throttle): void {
    const r = t.refused(KIND);
    for (let i = 0; t.givesUp(r) === undefined; i++) {
      expect(i, 'given up within DEFAULT_MAX_RETRIES retries').toBeLessThanOrEqual(DEFAULT_MAX_RETRIES);
      t.throttle({ retryAfterMs: 1000 }, i, 400, t.sending(), r);
      vi.advanceTimersByTime(1000);
      t.answered(t.sending());
      r.retries++;
      t.sending();
    }
    t.ownAnswer(r);
  }
  /** A Throttle that gave up `n` requests of KIND. */
  function learned(n = 1): Throttle {
    const t = new Throttle();
    t.throttle({ retryAfterMs: 1000 }, 0, 400, t.sending()); // a throttle of the run, before
    vi.advanceTimersByTime(1500);
    for (let i = 0; i < n; i++) giveUpOne(t);
    return t;
  }

  it('waits its own Retry-After alone: no cut of the run rate, no quiet for the others', async () => {
    const t = learned();
    const rate = t.stats().limitPerSecond;
    const r = t.refused(KIND);
    expect(r.known).toBe(1);
    expect(t.givesUp(r)).toBeUndefined();
    expect(t.throttle({ retryAfterMs: 1000 }, 0, 400, t.sending(), r)).toBe(1000);
    expect(t.stats().limitPerSecond).toBe(rate);
    // Another request's turn is not held by this one's wait.
    let went = false;
    void t.turn().then(() => (went = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(went).toBe(true);
  });

  it('is given up after KNOWN_KIND_RETRIES retry on the same evidence: a request sent meanwhile answered', () => {
    const t = learned();
    const sentAt = t.sending();
    const r = t.refused(KIND);
    t.throttle({ retryAfterMs: 1000 }, 0, 400, sentAt, r);
    t.began();
    t.began(); // this call and another, under way: not alone
    vi.advanceTimersByTime(1000);
    for (let i = 0; i < KNOWN_KIND_RETRIES; i++) {
      r.retries++;
      t.sending();
    }
    expect(t.givesUp(r)).toBeUndefined();
    t.answered(t.sending());
    expect(t.givesUp(r)).toBe('served');
  });

  it('gives nothing back when given up after its local wait: the rate answers raised meanwhile stays', () => {
    const t = learned();
    const r = t.refused(KIND);
    t.throttle({ retryAfterMs: 1000 }, 0, 400, t.sending(), r);
    const rate = t.stats().limitPerSecond ?? 0;
    vi.advanceTimersByTime(1000);
    for (let i = 0; i < 8; i++) t.answered(t.sending());
    const raised = t.stats().limitPerSecond ?? 0;
    expect(raised).toBeGreaterThan(rate);
    r.retries++;
    t.sending();
    expect(t.givesUp(r)).toBe('served');
    t.ownAnswer(r);
    expect(t.stats().limitPerSecond).toBe(raised);
  });

  it('falls back to the run-wide wait when nothing is answered meanwhile: the kind is throttled after all', () => {
    const t = learned();
    t.began();
    const r = t.refused(KIND);
    t.throttle({ retryAfterMs: 1000 }, 0, 400, t.sending(), r);
    t.began(); // another call, waiting
    vi.advanceTimersByTime(1000);
    r.retries++;
    t.sending();
    expect(t.givesUp(r)).toBeUndefined();
    const rate = t.stats().limitPerSecond ?? 0;
    t.throttle({ retryAfterMs: 1000 }, 1, 400, Date.now(), r);
    expect(t.stats().limitPerSecond).toBeLessThan(rate);
  });

  it(`once KIND_PROVEN were given up, is the server's answer at once, but not inside a throttle's quiet`, () => {
    const t = learned(KIND_PROVEN);
    const r = t.refused(KIND);
    expect(r.known).toBe(KIND_PROVEN);
    expect(t.givesUp(r)).toBe('known');
    t.throttle({ retryAfterMs: 1000 }, 0, 400, t.sending()); // another request throttled: the run is in a quiet
    const inQuiet = t.refused(KIND);
    expect(t.givesUp(inQuiet)).toBeUndefined();
    vi.advanceTimersByTime(1000);
    expect(t.givesUp(inQuiet)).toBe('known');
  });

  it('is forgotten when a request of the kind is answered once sent again: it was transient after all', () => {
    const t = learned(KIND_PROVEN);
    const r = t.refused(KIND);
    t.answeredAfter(r);
    expect(t.refused(KIND).known).toBe(0);
    expect(t.givesUp(t.refused(KIND))).toBeUndefined();
  });

  it('is known only for the same endpoint and status', () => {
    const t = learned();
    expect(t.refused(KIND).known).toBe(1);
    expect(t.refused('commitOperations 429').known).toBe(0);
    expect(t.refused('reportUsage 503').known).toBe(0);
    expect(new Throttle().refused(KIND).known).toBe(0);
  });
});

describe('PropertyBound', () => {
  it('gives back the time throttling held requests, up to MAX_THROTTLE_CREDIT times the bound', async () => {
    let held = 0;
    const bound = new PropertyBound(1000, undefined, () => held);
    held = 400;
    await vi.advanceTimersByTimeAsync(1000);
    expect(bound.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(400);
    expect(bound.signal.aborted).toBe(true);
    expect(bound.throttleCreditMs).toBe(400);
    bound.dispose();

    const capped = new PropertyBound(1000, undefined, () => held);
    held = 400 + 100 * 1000; // a gateway that never lets go
    await vi.advanceTimersByTimeAsync(1000 * (1 + MAX_THROTTLE_CREDIT));
    expect(capped.signal.aborted).toBe(true);
    expect(capped.throttleCreditMs).toBe(MAX_THROTTLE_CREDIT * 1000);
    capped.dispose();
  });

  it('never reaches past the run\'s budget, whatever throttling held', async () => {
    let held = 0;
    const bound = new PropertyBound(1000, undefined, () => held, Date.now() + 1500);
    held = 5000;
    await vi.advanceTimersByTimeAsync(1000);
    expect(bound.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(500);
    expect(bound.signal.aborted).toBe(true);
    expect(bound.throttleCreditMs).toBe(500);
    bound.dispose();
  });

  it('ends at its bound when nothing was throttled', async () => {
    const bound = new PropertyBound(1000, undefined, () => 0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(bound.signal.aborted).toBe(true);
    expect(bound.throttleCreditMs).toBe(0);
  });
});

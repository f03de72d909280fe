/**
 * Throttling is waited out, never judged: a target (or the gateway in front of it) that answers
 * 429, or 503 with Retry-After, has said "not now", not "no". The client waits as it is told
 * (Retry-After in seconds or as an HTTP date, capped), or backs off with jitter when it is not told,
 * and sends the same request again (the same bytes: a commit keeps its operation_id). Meanwhile the
 * run's rate settles under the gateway's: additive increase while answers come, halved at each
 * throttle (AIMD), never above `--rate-limit` when one is given. Every wait is bounded by the call's
 * own signal and by `maxWaitMs`.
 *
 * A throttle is waited out only while backing off helps. "Not now" to one request while the rate
 * it shares is served is no throttle: once a request has been sent again `maxRetries` times and is
 * still refused, while requests sent since its first refusal were answered (or nothing else was
 * sent or waiting to be, so only its own rate could be to blame, and that backed off at each refusal), the answer
 * is the server's own and the exchange ends with it (`givesUp`): a 503 is then a server error on
 * that request. While others are refused too and none answered, everything is throttled, and the
 * wait goes on. A request given up gives back the pace its refusals cut (`ownAnswer`).
 *
 * What was learned is kept, per kind of refusal (endpoint and status), as gRPC's retry throttling and
 * the AWS SDKs' retry quota stop retrying what keeps failing: once a request of a kind was given up, a
 * later one is waited out once, alone, and given up on the same evidence when refused again
 * (KNOWN_KIND_RETRIES); once KIND_PROVEN were, a later one is the server's answer at once, unless the run
 * is in a throttle's quiet (`known`). A known refusal whose retry is answered was transient after all:
 * the kind is forgotten. Without this, a server that answers every maximal commit 503 with
 * `Retry-After: 1` cost each of them four retries, one after another under the quiet each asked of the
 * whole run: five minutes for one property that holds 155 of them.
 */

export interface ThrottleOptions {
  /** Requests per second at most, from the start (`--rate-limit N/s`); default: no cap until the target throttles. */
  readonly ratePerSecond?: number;
  /** The longest Retry-After honoured (default 60 s). */
  readonly maxRetryAfterMs?: number;
  /** The longest one request keeps being throttled before it is given up (default 120 s). */
  readonly maxWaitMs?: number;
  /** Times one request is sent again before a refusal that stays with it is its own answer (default DEFAULT_MAX_RETRIES; at least 1). */
  readonly maxRetries?: number;
}

/**
 * Each refusal of a request sent after the quiet the last one asked for halves the run's rate: by its
 * fourth retry a request goes out at a sixteenth of the rate it was first refused at (or at the
 * floor), and a gateway that limits the rate has long let it through. Few enough that a server
 * answering one request 503 with `Retry-After: 1` costs seconds, not the minutes `maxWaitMs` allows.
 */
export const DEFAULT_MAX_RETRIES = 4;

/**
 * Times a request is sent again when an earlier request of its kind (endpoint and status) was already
 * given up: the server's "not now" is honoured once, for this request alone (no quiet for the run, no cut
 * of its rate), and the same evidence as before (requests sent meanwhile answered, or nothing else sent)
 * then makes its answer its own. A kind that is throttling after all (nothing answered meanwhile) falls
 * back to the run-wide wait.
 */
export const KNOWN_KIND_RETRIES = 1;
/** Requests of a kind given up after which a later refusal of that kind is not sent again (`known`). */
export const KIND_PROVEN = 2;

/**
 * Why a request still refused stopped waiting: requests sent after its first refusal were answered
 * (`served`: the rate is served, this request alone is refused), or nothing but its own retries went
 * out and no other call waited to (`alone`: its rate was the only suspect, and backing off did not help),
 * or KIND_PROVEN requests of its kind were given up before, and the run is in no throttle's quiet (`known`).
 */
export const GIVE_UPS = ['served', 'alone', 'known'] as const;
export type GiveUp = (typeof GIVE_UPS)[number];

/** One request's refusals so far, against the run's counts when its first came back. */
export interface Refusal {
  /** When its first refusal came back. */
  readonly at: number;
  /** Requests the run had sent by then. */
  readonly sends: number;
  /** Times it has been sent again since. */
  retries: number;
  /** Its endpoint and status. */
  readonly kind: string;
  /** Requests of its kind given up before its first refusal: from one, it is sent again KNOWN_KIND_RETRIES times, alone; from KIND_PROVEN, not at all. */
  readonly known: number;
  /** Whether one of its refusals cut the run's rate or set its quiet (`throttle`): only then has `ownAnswer` anything to give back. */
  paced: boolean;
  /** The run's pace before its first refusal counted as a throttle, restored if its refusals prove its own (`ownAnswer`). */
  readonly before: { readonly limit: number | undefined; readonly quietUntil: number; readonly throttled: number };
}

export interface ThrottleStats {
  /** Answers that throttled (each waited out and sent again, or given up). */
  readonly throttled: number;
  /** Time spent waiting them out, summed over requests. */
  readonly waitedMs: number;
  /** The rate the run settled at, when the target throttled or a cap was given. */
  readonly limitPerSecond?: number;
}

const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;
const DEFAULT_MAX_WAIT_MS = 120_000;
const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 10_000;
/** Requests per second the rate never falls below. */
const MIN_RATE = 1;
/** Additive increase per answered request, in requests per second. */
const INCREASE = 0.25;

/** The wait a throttling answer asks for, or undefined when it is no throttle (a 503 without Retry-After is a server error). */
export function throttleWait(status: number, headers: Readonly<Record<string, string>>, now = Date.now()): { readonly retryAfterMs?: number } | undefined {
  const raw = headers['retry-after'];
  if (status !== 429 && !(status === 503 && raw !== undefined)) return undefined;
  if (raw === undefined) return {};
  const s = raw.trim();
  if (/^\d+$/.test(s)) return { retryAfterMs: Number(s) * 1000 };
  const at = Date.parse(s);
  return Number.isNaN(at) ? {} : { retryAfterMs: Math.max(0, at - now) };
}

export class Throttle {
  private limit: number | undefined;
  private readonly cap: number | undefined;
  private next = 0;
  private throttled = 0;
  private waited = 0;
  /** Until when the target asked for quiet: nothing is sent before it, and a throttle of a request sent before it belongs to the same episode. */
  private quietUntil = Number.NEGATIVE_INFINITY;
  /** Wall time during which some request was held back (paced or waiting out a throttle), and where that count stands. */
  private heldWall = 0;
  private heldUntil = 0;
  private readonly maxRetryAfterMs: number;
  readonly maxWaitMs: number;
  private readonly maxRetries: number;
  /** Requests sent, and the latest send time of one answered with no throttle: what tells a request refused alone from everything throttled. */
  private sends = 0;
  private servedSentAt = Number.NEGATIVE_INFINITY;
  /** Calls under way (waiting for their turn, in flight or waiting out a throttle): one queued behind a quiet is not sent yet, but a request is not alone while it waits. */
  private calls = 0;
  /** Turns asleep until their pace comes (`turn`), woken when `ownAnswer` restores it. */
  private readonly waiting = new Set<() => void>();
  /** Kinds of refusal (endpoint and status) given up as the server's own answer, and how many times. */
  private readonly ownKinds = new Map<string, number>();

  constructor(o: ThrottleOptions = {}) {
    this.cap = o.ratePerSecond;
    this.limit = o.ratePerSecond;
    this.maxRetryAfterMs = o.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
    this.maxWaitMs = o.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.maxRetries = Math.max(1, o.maxRetries ?? DEFAULT_MAX_RETRIES);
  }

  /** A call begins (`ended` when it returns, whatever happened). */
  began(): void {
    this.calls++;
  }
  ended(): void {
    this.calls--;
  }

  /** Counts a request going out; returns its send time. */
  sending(now = Date.now()): number {
    this.sends++;
    return now;
  }

  /** Waits for the request's turn under the current rate (at once when there is none). */
  async turn(signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (this.limit === undefined || signal?.aborted) return;
      const now = Date.now();
      const at = Math.max(now, this.next, this.quietUntil);
      // A turn taken before a throttle asked for quiet waits that quiet out too: it would only be throttled again.
      if (at <= now) {
        this.next = now + 1000 / this.limit;
        return;
      }
      this.hold(now, at);
      await sleep(at - now, signal, this.waiting);
      // Woken early (the pace was restored: `ownAnswer`), the turn is asked for again at the new pace.
      if (this.limit !== undefined && Date.now() >= Math.max(at, this.quietUntil) && at >= this.next) {
        this.next = at + 1000 / this.limit;
        return;
      }
    }
  }

  /** Counts [from, to) as held, once however many requests wait in it. */
  private hold(from: number, to: number): void {
    if (to <= this.heldUntil) return;
    this.heldWall += to - Math.max(from, this.heldUntil);
    this.heldUntil = to;
  }

  /** Wall time (ms) during which the target's throttling held some request back: what a time bound gives back. */
  heldMs(now = Date.now()): number {
    return this.heldWall - Math.max(0, this.heldUntil - now);
  }

  /** An answer came that was no throttle, to a request sent at `sentAt`: the rate may rise again. */
  answered(sentAt = Date.now()): void {
    this.servedSentAt = Math.max(this.servedSentAt, sentAt);
    if (this.limit === undefined) return;
    this.limit = Math.min(this.cap ?? Number.POSITIVE_INFINITY, this.limit + INCREASE);
  }

  /**
   * A throttle: halves the rate and says how long to wait before sending again (the target's
   * Retry-After, capped, or a jittered exponential backoff). `recentRate`: what the run was sending;
   * `sentAt`: when the throttled request went out. Requests sent before the quiet the last throttle
   * asked for had ended belong to the same episode and halve the rate no further (TCP's one cut per
   * window): sixteen connections refused at once would otherwise take it to its floor. `r`: the
   * request's refusals; one of a kind given up before waits alone (KNOWN_KIND_RETRIES).
   */
  throttle(w: { readonly retryAfterMs?: number }, attempt: number, recentRate: number, sentAt = Date.now(), r?: Refusal): number {
    this.throttled++;
    const now = Date.now();
    const wait =
      w.retryAfterMs !== undefined
        ? Math.min(w.retryAfterMs, this.maxRetryAfterMs)
        : Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(attempt, 16));
    this.hold(now, now + wait);
    if (r && r.known > 0 && r.retries < this.retriesFor(r)) return wait;
    if (r) r.paced = true;
    if (sentAt >= this.quietUntil || this.limit === undefined) {
      const from = this.limit ?? Math.max(MIN_RATE, recentRate);
      this.limit = Math.max(MIN_RATE, from / 2);
    }
    this.quietUntil = Math.max(this.quietUntil, now + wait);
    return wait;
  }

  /** The record of a request's refusals, started when its first came back (before `throttle` counts it); `kind`: its endpoint and status. */
  refused(kind: string, now = Date.now()): Refusal {
    return { at: now, sends: this.sends, retries: 0, kind, known: this.ownKinds.get(kind) ?? 0, paced: false, before: { limit: this.limit, quietUntil: this.quietUntil, throttled: this.throttled } };
  }

  /** Times a request with these refusals is sent again before `givesUp` may end it: fewer the more of its kind were given up. */
  private retriesFor(r: Refusal): number {
    if (r.known === 0) return this.maxRetries;
    return r.known < KIND_PROVEN ? Math.min(KNOWN_KIND_RETRIES, this.maxRetries) : 0;
  }

  /** A request refused with a known kind was answered when sent again: the kind was transient after all, and is forgotten. */
  answeredAfter(r: Refusal): void {
    if (r.known > 0) this.ownKinds.delete(r.kind);
  }

  /**
   * A request given up (`givesUp`): its refusals were its own answer, not throttling, so the rate cuts
   * and the quiet they made are undone, unless another request was throttled since its first (then
   * something does throttle, and the cuts stand). Otherwise a server that answers one kind of request
   * 503 with Retry-After at any rate would leave the rest of the run at a sixteenth of its pace, and
   * every further such request would cut it again: 395 s for a suite run of 6.6 s. Its kind is
   * counted (KNOWN_KIND_RETRIES, KIND_PROVEN).
   */
  ownAnswer(r: Refusal): void {
    this.ownKinds.set(r.kind, (this.ownKinds.get(r.kind) ?? 0) + 1);
    // Its refusals touched no pace (given up at once, or waited alone as a known kind), or another request
    // throttled since: nothing to give back. Restoring then would undo the rises answers earned meanwhile.
    if (!r.paced || this.throttled - r.before.throttled !== r.retries) return;
    this.limit = r.before.limit;
    this.quietUntil = r.before.quietUntil;
    // The turns handed out at the cut pace (up to one a second) were never the target's wish: they are handed out again.
    this.next = Math.min(this.next, Date.now());
    for (const wake of [...this.waiting]) wake();
  }

  /**
   * Whether a request refused again stops waiting (see the module comment): undefined while backing
   * off may still help it, else why its refusal is its own. Others sent since its first refusal and
   * none answered yet (refused too, or still on their way), or others waiting to be sent: everything
   * may be throttled, so it waits.
   */
  givesUp(r: Refusal): GiveUp | undefined {
    const allowed = this.retriesFor(r);
    if (r.retries < allowed) return undefined;
    if (allowed === 0 && r.retries === 0) return Date.now() >= this.quietUntil ? 'known' : undefined;
    if (this.servedSentAt > r.at) return 'served';
    return this.calls <= 1 && this.sends - r.sends === r.retries ? 'alone' : undefined;
  }

  /** Adds time spent waiting to the run's total. */
  spent(ms: number): void {
    this.waited += ms;
  }

  stats(): ThrottleStats {
    return { throttled: this.throttled, waitedMs: Math.round(this.waited), ...(this.limit !== undefined && (this.throttled > 0 || this.cap !== undefined) ? { limitPerSecond: Math.round(this.limit * 10) / 10 } : {}) };
  }
}

/** Resolves after `ms`, or at once when `signal` aborts or one of `wakers` is called (each sleeper adds its own while it sleeps). */
export function sleep(ms: number, signal?: AbortSignal, wakers?: Set<() => void>): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      wakers?.delete(done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
    wakers?.add(done);
  });
}

/** Sends counted over the last second, for the rate a first throttle halves. */
export class RecentRate {
  private readonly stamps: number[] = [];
  add(now = Date.now()): void {
    this.stamps.push(now);
    while (this.stamps.length && this.stamps[0] < now - 1000) this.stamps.shift();
  }
  get perSecond(): number {
    return this.stamps.length;
  }
}

/** Why a refusal was taken as the server's own answer, for messages. */
export function givenUpNote(t: { readonly retries: number; readonly givenUp: GiveUp; readonly known?: number }): string {
  const n = t.known ?? 0;
  const before = `${n === 1 ? 'an earlier request to this endpoint was' : `${n} earlier requests to this endpoint were`} refused with this status however long ${n === 1 ? 'it' : 'they'} backed off`;
  if (t.givenUp === 'known') return `refused as ${before}, while the run was not throttled: it was not sent again`;
  const meanwhile = t.givenUp === 'served' ? 'while requests sent meanwhile were answered' : n ? 'with nothing else sent' : 'with nothing else sent, at a rate backed off after each refusal';
  return `the same request was refused ${t.retries + 1} times in a row, ${meanwhile}${n ? `, as ${before}` : ''}: backing off did not help`;
}

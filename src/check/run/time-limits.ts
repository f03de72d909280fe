/**
 * Time limits as wrappers around a property's run, as fast-check keeps `TimeoutProperty` and
 * `SkipAfterProperty` apart from the runner: a property's own bound (an abort signal that also
 * follows the run's interrupt), and the run's budget, shared out over the properties left.
 */
import { setMaxListeners } from 'node:events';

/** Listeners a property's bound may hold at once: one per call in flight (races send many together). */
const MAX_CALLS_IN_FLIGHT = 10_000;

/** A throttling target gives the bound back its held time, up to this many times the bound: never unbounded. */
export const MAX_THROTTLE_CREDIT = 9;

/**
 * A property's time bound: `signal` aborts when `ms` have passed or the run is interrupted. Time the
 * target's throttling held requests back (`held`, wall ms, growing) is given back to the bound, up to
 * MAX_THROTTLE_CREDIT × `ms` and never past `until` (the run's budget, the user's hard limit):
 * throttling is waited out, not charged to the target's own speed.
 */
export class PropertyBound {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout;
  private readonly onOuterAbort: () => void;
  private readonly heldAtStart: number;
  private credited = 0;

  constructor(
    readonly ms: number,
    private readonly outer?: AbortSignal,
    private readonly held?: () => number,
    private readonly until?: number,
  ) {
    setMaxListeners(MAX_CALLS_IN_FLIGHT, this.controller.signal);
    this.heldAtStart = held?.() ?? 0;
    this.timer = this.arm(ms);
    this.onOuterAbort = () => this.controller.abort(outer?.reason);
    outer?.addEventListener('abort', this.onOuterAbort, { once: true });
    if (outer?.aborted) this.controller.abort(outer.reason);
  }

  private arm(ms: number): NodeJS.Timeout {
    return setTimeout(() => {
      const owed = Math.min(Math.min((this.held?.() ?? 0) - this.heldAtStart, MAX_THROTTLE_CREDIT * this.ms) - this.credited, (this.until ?? Number.POSITIVE_INFINITY) - Date.now());
      if (owed >= 1) {
        this.credited += owed;
        this.timer = this.arm(owed);
        return;
      }
      this.controller.abort(new Error('property time bound reached'));
    }, ms);
  }

  /** Time given back to the bound for throttling so far (ms). */
  get throttleCreditMs(): number {
    return Math.round(this.credited);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether the run was interrupted (as opposed to the bound running out). */
  get interrupted(): boolean {
    return this.outer?.aborted ?? false;
  }

  /** Ends the property early (the target went down, or stopped answering). */
  end(reason: string): void {
    if (!this.controller.signal.aborted) this.controller.abort(new Error(reason));
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.onOuterAbort);
  }
}

/** A property's bound for this run: its own, or its share of the run's budget when that is shorter. */
export type Share = { readonly perPropertyMs: number; readonly budgetShareMs?: number } | { readonly spent: true };

/**
 * The run's budget: what is left, shared equally over the runnable properties left, so that a quick
 * property leaves its unused time to the next one.
 */
export class Budget {
  constructor(private readonly deadline: number | undefined) {}

  shareFor(perPropertyMs: number, runnableLeft: number, now = Date.now()): Share {
    if (this.deadline === undefined) return { perPropertyMs };
    const left = this.deadline - now;
    if (left <= 0) return { spent: true };
    const share = Math.max(1, Math.floor(left / Math.max(1, runnableLeft)));
    return share < perPropertyMs ? { perPropertyMs: share, budgetShareMs: share } : { perPropertyMs };
  }

  /** When the budget ends, as options take it (nothing without a budget). */
  endsAt(): { budgetEndsAt?: number } {
    return this.deadline === undefined ? {} : { budgetEndsAt: this.deadline };
  }

  /** Milliseconds left, or undefined without a budget. */
  left(now = Date.now()): number | undefined {
    return this.deadline === undefined ? undefined : this.deadline - now;
  }
}

export function seconds(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${+(ms / 1000).toFixed(1)} s`;
}

/**
 * The open model's clock work: admits each request at its due time, from a schedule of due times
 * (stages.ts), on an injected clock. A tick that fires late (a busy event loop, a stalled server
 * holding every connection) admits everything that fell due meanwhile, each with its own due time:
 * latency is counted from there, so a ramp is as free of coordinated omission as a constant rate.
 */
import type { EngineClock } from './engine-options.ts';

export interface PacerHooks {
  readonly clock: EngineClock;
  /** Epoch ms the schedule counts from, and the window's end: nothing due at or after it is admitted. */
  readonly t0: number;
  readonly tEnd: number;
  /** Due times in ms from t0, ascending. */
  readonly times: Iterator<number, void, undefined>;
  /** Takes one due request (epoch ms); false when no more may be admitted (the run's request cap). */
  admit(intended: number): boolean;
  /** After each tick's admissions: send what can be sent. */
  afterAdmit(): void;
  /** True when the run must end now (Ctrl-C, an abort threshold). */
  shouldStop(): boolean;
  /** True once the run's request cap is reached: this tick's queue is sent, then the run ends. */
  full(): boolean;
  /** The schedule is over (or stopped): the run ends. */
  end(): void;
}

export class Pacer {
  private nextDue: number | undefined;
  private cancel: (() => void) | undefined;

  constructor(private readonly h: PacerHooks) {
    this.advance();
  }

  private advance(): void {
    const n = this.h.times.next();
    this.nextDue = n.done ? undefined : this.h.t0 + n.value;
  }

  /** Admits every request due by `t` and inside the window. */
  admitDue(t: number): void {
    while (this.nextDue !== undefined && this.nextDue <= t && this.nextDue < this.h.tEnd) {
      if (!this.h.admit(this.nextDue)) return;
      this.advance();
    }
  }

  readonly tick = (): void => {
    this.cancel = undefined;
    const t = this.h.clock.now();
    if (this.h.shouldStop()) return this.h.end();
    const over = t >= this.h.tEnd || this.h.full();
    // Even the last tick, firing late, admits the requests that fell due before the window closed:
    // they are sent now, late, their latency counted from when they were due.
    this.admitDue(t);
    this.h.afterAdmit();
    if (over) return this.h.end();
    const next = Math.min(this.nextDue ?? this.h.tEnd, this.h.tEnd);
    this.cancel = this.h.clock.setTimeout(this.tick, Math.max(0, next - this.h.clock.now()));
  };

  dispose(): void {
    this.cancel?.();
    this.cancel = undefined;
  }
}

/**
 * 4.6 Change the master password. Registry default `unlock-prepare: not-required`: the commit is
 * accepted on its own. `head_seq` is an account-level counter (`head-seq-semantics`): raised by one
 * per change, or by the number of statements committed (an empty list leaves it where it was).
 */
import { performance } from 'node:perf_hooks';
import { dataOut, offSpec, type Handler } from '../context.ts';

/**
 * `head-seq-clock`: the change's time in microseconds, one more than the last where the clock has not
 * moved on, per account. Microseconds, so that two changes never land one apart (a millisecond clock
 * moved by one between two quick changes reads as a counter on a fast machine and not on a slow one).
 */
const lastClockHead = new Map<string, number>();
function clockHead(accountId: string): number {
  const head = Math.max(Math.round((performance.timeOrigin + performance.now()) * 1000), (lastClockHead.get(accountId) ?? 0) + 1);
  lastClockHead.set(accountId, head);
  return head;
}

export const changeUnlock: Handler<'changeUnlock'> = (ctx) => {
  const by = ctx.readings.is('head-seq-semantics', 'per-statement') ? ctx.body.statements.length : 1;
  const counted = ctx.store.bumpUnlockHead(ctx.caller.accountId, by);
  const head = ctx.unnamed.has('head-seq-clock') ? clockHead(ctx.caller.accountId) : counted;
  // unlock-head-seq-stuck: the counter lives in a local that is never written back.
  const headSeq = ctx.faults.has('unlock-head-seq-stuck') ? 1 : head;
  // head-seq-not-integer: the counter is sent as it comes out of a decimal column.
  const data = ctx.faults.has('head-seq-not-integer') ? offSpec({ head_seq: String(headSeq) }) : { head_seq: headSeq };
  return { status: 200, data: dataOut(data, ctx.faults) };
};

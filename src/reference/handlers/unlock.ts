/**
 * 4.6 Change the master password. Registry default `unlock-prepare: not-required`: the commit is
 * accepted on its own. `head_seq` is an account-level counter (`head-seq-semantics`): raised by one
 * per change, or by the number of statements committed (an empty list leaves it where it was).
 */
import { dataOut, offSpec, type Handler } from '../context.ts';

export const changeUnlock: Handler<'changeUnlock'> = (ctx) => {
  const by = ctx.readings.is('head-seq-semantics', 'per-statement') ? ctx.body.statements.length : 1;
  const head = ctx.store.bumpUnlockHead(ctx.caller.accountId, by);
  // unlock-head-seq-stuck: the counter lives in a local that is never written back.
  const headSeq = ctx.faults.has('unlock-head-seq-stuck') ? 1 : head;
  // head-seq-not-integer: the counter is sent as it comes out of a decimal column.
  const data = ctx.faults.has('head-seq-not-integer') ? offSpec({ head_seq: String(headSeq) }) : { head_seq: headSeq };
  return { status: 200, data: dataOut(data, ctx.faults) };
};

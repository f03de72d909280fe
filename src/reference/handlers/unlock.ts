/**
 * 4.6 Change the master password. Registry default `unlock-prepare: not-required`: the commit is
 * accepted on its own. `head_seq` is an account-level counter raised by one per change.
 */
import { integerOut, type Handler } from '../context.ts';

export const changeUnlock: Handler = (ctx) => {
  const head = ctx.store.bumpUnlockHead(ctx.caller.accountId);
  // unlock-head-seq-stuck: the counter lives in a local that is never written back.
  const headSeq = ctx.faults.has('unlock-head-seq-stuck') ? 1 : head;
  return { status: 200, data: { head_seq: integerOut(headSeq, ctx.faults) } };
};

/**
 * 4.4 Register a passkey. The content of `data` is not shown; the reference answers the new
 * unlocker's id, `{ passkey_id }`. The WebAuthn response and the statement are opaque.
 */
import { randomUUID } from 'node:crypto';
import { offSpec, type Handler } from '../context.ts';

export const registerPasskey: Handler<'registerPasskey'> = (ctx) => {
  const passkeyId = randomUUID();
  ctx.store.addPasskey(ctx.caller.accountId, passkeyId, ctx.body.label);
  return { status: 200, data: ctx.faults.has('passkey-data-null') ? offSpec(null) : { passkey_id: passkeyId } };
};

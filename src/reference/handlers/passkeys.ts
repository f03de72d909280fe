/**
 * 4.4 Register a passkey. The content of `data` is not shown; the reference answers the new
 * unlocker's id, `{ passkey_id }`. The WebAuthn response and the statement are opaque.
 */
import type { PasskeyBody } from '../../spec/index.ts';
import { randomUUID } from 'node:crypto';
import type { Handler } from '../context.ts';

export const registerPasskey: Handler = (ctx) => {
  const passkeyId = randomUUID();
  const label = (ctx.body as PasskeyBody).label;
  ctx.store.addPasskey(ctx.caller.accountId, passkeyId, label);
  return { status: 200, data: ctx.faults.has('passkey-data-null') ? null : { passkey_id: passkeyId } };
};

/**
 * 4.5 Revoke a browser member. Registry default `browser-exists: any-id`: revoking an unknown or
 * already revoked browser id succeeds. The reference refuses two cases it can recognise: a member
 * of another account (403) and the calling browser itself or a non-browser member of its account
 * (409), so that its own fixture credentials stay usable for the rest of a run.
 * `rotation_pending` is true unless the request brings a roster with key envelopes (the new
 * pouch keys), i.e. unless the rotation was done in the same request.
 */
import { HttpError } from '../errors.ts';
import type { Handler } from '../context.ts';

interface RevokeBody {
  readonly roster?: { readonly key_envelopes?: readonly unknown[] };
  readonly reason?: string;
}

export const revokeBrowser: Handler = (ctx) => {
  const id = ctx.params['id']!;
  const known = ctx.directory.member(id.toLowerCase());
  if (known && known.accountId !== ctx.caller.accountId) throw new HttpError(403, 'forbidden', 'this member belongs to another account');
  if (known && id.toLowerCase() === ctx.caller.memberId) throw new HttpError(409, 'cannot_revoke_self', 'a browser cannot revoke itself');
  if (known && known.kind !== 'browser') throw new HttpError(409, 'not_a_browser', 'this member is not a browser');
  ctx.store.revokeBrowser(ctx.caller.accountId, id.toLowerCase());
  const body = ctx.body as RevokeBody;
  const rotated = (body.roster?.key_envelopes?.length ?? 0) > 0;
  return { status: 200, data: { revoked: true, rotation_pending: !rotated } };
};

/**
 * 4.5 Revoke a browser member. `browser-exists` decides which ids can be revoked:
 * - `any-id` (default): revoking an unknown or already revoked browser id succeeds;
 * - `profile-ids`: only the fixture's listed browsers (the profile's `browserIds`, browser members
 *   of the primary account) besides the fixture's own members; any other id is 404. Revoking a
 *   listed browser again succeeds (revocation is idempotent in effect).
 * Either way the reference refuses two cases it can recognise: a member of another account (403)
 * and the calling browser itself or a non-browser member of its account (409), so that its own
 * fixture credentials stay usable for the rest of a run.
 * `rotation_pending` is true unless the request brings a roster with key envelopes (the new
 * pouch keys), i.e. unless the rotation was done in the same request.
 */
import { HttpError } from '../errors.ts';
import { offSpec, type Handler, type RequestContext } from '../context.ts';

/** The member an id names: a fixture member, a listed browser (primary account) or, under `any-id`, nobody known. */
function memberOf(ctx: RequestContext<'revokeBrowser'>, id: string): { accountId: string; kind: 'browser' | 'device' } | undefined {
  const known = ctx.directory.member(id);
  if (known) return known;
  if (!ctx.readings.is('browser-exists', 'profile-ids')) return undefined;
  if ((ctx.fixture.browserIds ?? []).some((b) => b.toLowerCase() === id)) return { accountId: ctx.fixture.primary.id, kind: 'browser' };
  throw new HttpError(404, 'browser_not_found', 'no such browser: only the browsers listed in the profile can be revoked');
}

export const revokeBrowser: Handler<'revokeBrowser'> = (ctx) => {
  const id = ctx.params.id.toLowerCase();
  const known = memberOf(ctx, id);
  if (known && known.accountId !== ctx.caller.accountId) throw new HttpError(403, 'forbidden', 'this member belongs to another account');
  if (known && id === ctx.caller.memberId) throw new HttpError(409, 'cannot_revoke_self', 'a browser cannot revoke itself');
  if (known && known.kind !== 'browser') throw new HttpError(409, 'not_a_browser', 'this member is not a browser');
  const fresh = ctx.store.revokeBrowser(ctx.caller.accountId, id);
  const revoked = fresh || !ctx.unnamed.has('revoked-false-when-already');
  const pending = (ctx.body.roster?.key_envelopes?.length ?? 0) === 0;
  if (ctx.faults.has('revoke-rotation-pending-missing')) return { status: 200, data: offSpec({ revoked }) };
  if (ctx.faults.has('revoke-rotation-pending-string')) return { status: 200, data: offSpec({ revoked, rotation_pending: String(pending) }) };
  return { status: 200, data: { revoked, rotation_pending: pending } };
};

/**
 * 4.1 Approve a cli-auth request. `cli-request-exists` decides which ids name a pending request:
 * - `any-id` (default): any well-formed id. Approving creates a device and answers its id;
 *   approving the same request again (same account) answers the same device id; a request approved
 *   by another account conflicts (409).
 * - `profile-ids`: only the fixture's listed requests (the profile's `cliRequestIds`); any other id
 *   is 404. The listed requests are standing ones, as a test fixture's pairing requests are: every
 *   approval creates a new device, by either account, so a run may approve a listed id many times.
 * Statement, welcome and envelopes are opaque (assumption `opaque-crypto-fields`).
 */
import { randomUUID } from 'node:crypto';
import { HttpError } from '../errors.ts';
import { offSpec, type Handler, type Reply } from '../context.ts';

export const approveDevice: Handler<'approveDevice'> = (ctx) => {
  const requestId = ctx.params.id;
  const answer = (deviceId: string): Reply<'approveDevice'> => ({ status: 200, data: ctx.faults.has('approve-camel-case') ? offSpec({ deviceId }) : { device_id: deviceId } });
  if (ctx.readings.is('cli-request-exists', 'profile-ids')) {
    const listed = (ctx.fixture.cliRequestIds ?? []).some((id) => id.toLowerCase() === requestId.toLowerCase());
    if (!listed) throw new HttpError(404, 'request_not_found', 'no such cli-auth request: only the requests listed in the profile exist');
    return answer(randomUUID());
  }
  let a = ctx.store.approval(requestId);
  if (a && a.accountId !== ctx.caller.accountId) {
    throw new HttpError(409, 'already_approved', 'this cli-auth request was approved by another account');
  }
  if (!a) {
    a = { accountId: ctx.caller.accountId, deviceId: randomUUID() };
    ctx.store.putApproval(requestId, a);
  }
  return answer(a.deviceId);
};

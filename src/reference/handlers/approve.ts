/**
 * 4.1 Approve a cli-auth request. Registry default `cli-request-exists: any-id`: any well-formed id
 * names a pending request. Approving creates a device and answers its id; approving the same
 * request again (same account) answers the same device id; a request approved by another account
 * conflicts (409). Statement, welcome and envelopes are opaque (assumption `opaque-crypto-fields`).
 */
import { randomUUID } from 'node:crypto';
import { HttpError } from '../errors.ts';
import type { Handler } from '../context.ts';

export const approveDevice: Handler = (ctx) => {
  const requestId = ctx.params['id']!;
  let a = ctx.store.approval(requestId);
  if (a && a.accountId !== ctx.caller.accountId) {
    throw new HttpError(409, 'already_approved', 'this cli-auth request was approved by another account');
  }
  if (!a) {
    a = { accountId: ctx.caller.accountId, deviceId: randomUUID() };
    ctx.store.putApproval(requestId, a);
  }
  return { status: 200, data: ctx.faults.has('approve-camel-case') ? { deviceId: a.deviceId } : { device_id: a.deviceId } };
};

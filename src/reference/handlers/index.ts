/** One handler per endpoint of section 4. */
import type { EndpointId } from '../../spec/index.ts';
import type { Handlers, Reply, RequestContext } from '../context.ts';
import { approveDevice } from './approve.ts';
import { commitOperations } from './commit.ts';
import { registerPasskey } from './passkeys.ts';
import { revokeBrowser } from './revoke.ts';
import { changeUnlock } from './unlock.ts';
import { reportUsage } from './usage.ts';

export const HANDLERS: Handlers = Object.freeze({
  approveDevice,
  commitOperations,
  reportUsage,
  registerPasskey,
  revokeBrowser,
  changeUnlock,
});

/** Runs the handler of endpoint `id` on a request to it. */
export function dispatch<Id extends EndpointId>(id: Id, ctx: RequestContext<Id>): Reply<Id> | Promise<Reply<Id>> {
  return HANDLERS[id](ctx);
}

export { applyStreamedOps, pouchKey } from './commit.ts';
export { storeRowsBefore } from './usage.ts';

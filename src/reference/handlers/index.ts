/** One handler per endpoint of section 4. */
import type { EndpointId } from '../../spec/index.ts';
import type { Handler } from '../context.ts';
import { approveDevice } from './approve.ts';
import { commitOperations } from './commit.ts';
import { registerPasskey } from './passkeys.ts';
import { revokeBrowser } from './revoke.ts';
import { changeUnlock } from './unlock.ts';
import { reportUsage } from './usage.ts';

export const HANDLERS: Readonly<Record<EndpointId, Handler>> = Object.freeze({
  approveDevice,
  commitOperations,
  reportUsage,
  registerPasskey,
  revokeBrowser,
  changeUnlock,
});

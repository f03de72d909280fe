/** Whether a profile provides what a property needs; the reason is shown on the skipped finding. */
import { pouchPlan } from '../../target/pouches.ts';
import type { Profile } from '../../target/profile.ts';
import type { Capability } from '../property.ts';

export interface CapabilityEnv {
  /** The run targets the embedded reference started by pouchproof itself. */
  readonly embedded: boolean;
}

/** Undefined when `cap` is available, else why not (one sentence). */
export function missingCapability(profile: Profile, cap: Capability, env: CapabilityEnv): string | undefined {
  const primary = profile.accounts.primary;
  switch (cap) {
    case 'browser':
      return primary.browser ? undefined : 'the profile has no browser credentials for the primary account (accounts.primary.browser)';
    case 'device': {
      const d = primary.device;
      if (!d) return 'the profile has no command-line device for the primary account (accounts.primary.device)';
      if (!d.deviceId || !d.privateKey) return 'the primary device needs deviceId and privateJwk in the profile to sign commits';
      return undefined;
    }
    case 'second-account': {
      const d = profile.accounts.secondary?.device;
      if (!d) return 'the profile has no second account with a device (accounts.secondary.device)';
      if (!d.deviceId || !d.privateKey) return 'the second account\'s device needs deviceId and privateJwk in the profile';
      return undefined;
    }
    case 'account-changes':
      return env.embedded || profile.allowAccountChanges
        ? undefined
        : 'it changes the account\'s master password (4.6) with placeholder statements; set "allowAccountChanges": true in the profile of a dedicated test account to allow it';
    case 'revocable-browser':
      return primary.revocableBrowsers?.length
        ? undefined
        : 'the profile names no browser that a run may revoke with its session (accounts.primary.revocableBrowsers): 4.5 "ends its sessions" is seen through one';
    case 'pouch': {
      const plan = pouchPlan(profile);
      return plan.kind === 'unavailable' ? plan.reason : undefined;
    }
    case 'embedded-only':
      return env.embedded ? undefined : 'only runs against the embedded reference (it needs state a shared target must not be put in)';
    default:
      return cap satisfies never;
  }
}

export function missingCapabilities(profile: Profile, needs: readonly Capability[], env: CapabilityEnv): string | undefined {
  const reasons = needs.map((c) => missingCapability(profile, c, env)).filter((r): r is string => r !== undefined);
  return reasons.length ? reasons.join('; ') : undefined;
}

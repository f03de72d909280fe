/**
 * Per-endpoint facts about the environment a request meets (to be read from the spec model's
 * endpoint metadata once it carries them): which path parameters name things that must already
 * exist under some reading (then the profile lists them), and what a refused plain request rests on.
 */
import type { AssumptionName, EndpointId, ReadingOf } from '../spec/index.ts';

export interface Listing<N extends AssumptionName = AssumptionName> {
  readonly assumption: N;
  /** The reading under which only listed ids exist. */
  readonly reading: ReadingOf<N>;
  readonly profileField: 'pouchIds' | 'cliRequestIds' | 'browserIds';
}

export interface EndpointEnvironment {
  readonly listedParams: Readonly<Record<string, Listing>>;
  /** What a refused plain request of the endpoint rests on. */
  readonly environment: AssumptionName;
}

const listing = <N extends AssumptionName>(assumption: N, reading: ReadingOf<N>, profileField: Listing['profileField']): Listing => ({ assumption, reading, profileField }) as Listing;

export const ENVIRONMENT: { readonly [E in EndpointId]: EndpointEnvironment } = {
  approveDevice: { listedParams: { id: listing('cli-request-exists', 'profile-ids', 'cliRequestIds') }, environment: 'cli-request-exists' },
  commitOperations: { listedParams: { pouchId: listing('pouch-existence', 'must-exist', 'pouchIds') }, environment: 'pouch-existence' },
  reportUsage: { listedParams: {}, environment: 'caller-kinds' },
  registerPasskey: { listedParams: {}, environment: 'opaque-crypto-fields' },
  revokeBrowser: { listedParams: { id: listing('browser-exists', 'profile-ids', 'browserIds') }, environment: 'browser-exists' },
  changeUnlock: { listedParams: {}, environment: 'unlock-prepare' },
};

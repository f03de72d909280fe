/**
 * Accounts and members of the independent server, and the matching pouchproof profile (the shape of
 * src/target/profile.ts's file). Each account has a browser (bearer token) and a command-line device
 * (bearer token, device id, ES256 key pair: the server holds the public JWK, the profile the private).
 */
import { createPublicKey, generateKeyPairSync, randomBytes, randomUUID, type JsonWebKey } from 'node:crypto';
import type { AccountState, State } from './state.ts';

export interface BrowserConfig {
  readonly token: string;
  /** The browser's member id, also its id for 4.5. */
  readonly memberId: string;
}

export interface DeviceConfig {
  readonly token: string;
  readonly deviceId: string;
  readonly memberId: string;
  readonly publicJwk: JsonWebKey;
  /** Kept only to write the profile; the server never reads it. */
  readonly privateJwk: JsonWebKey;
}

export interface AccountConfig {
  readonly id: string;
  readonly browser: BrowserConfig;
  readonly device: DeviceConfig;
  /** Other browsers of the account, with their sessions: the profile hands them over to be revoked. */
  readonly spareBrowsers: readonly BrowserConfig[];
}

export interface ServerConfig {
  readonly accounts: { readonly primary: AccountConfig; readonly secondary: AccountConfig };
}

function token(): string {
  return randomBytes(24).toString('base64url');
}

function account(): AccountConfig {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    id: randomUUID(),
    browser: { token: token(), memberId: randomUUID() },
    spareBrowsers: Array.from({ length: 2 }, () => ({ token: token(), memberId: randomUUID() })),
    device: {
      token: token(),
      deviceId: randomUUID(),
      memberId: randomUUID(),
      publicJwk: publicKey.export({ format: 'jwk' }),
      privateJwk: privateKey.export({ format: 'jwk' }),
    },
  };
}

export function generateConfig(): ServerConfig {
  return { accounts: { primary: account(), secondary: account() } };
}

/** Loads the configured accounts into a fresh state. */
export function applyConfig(state: State, config: ServerConfig): State {
  for (const a of [config.accounts.primary, config.accounts.secondary]) {
    const acc: AccountState = { id: a.id, headSeq: 0 };
    for (const b of [a.browser, ...a.spareBrowsers]) {
      state.byToken.set(b.token, { account: acc, kind: 'browser', memberId: b.memberId });
      state.browsers.set(b.memberId, { account: acc, token: b.token, revoked: false });
    }
    state.byToken.set(a.device.token, { account: acc, kind: 'device', memberId: a.device.memberId, deviceId: a.device.deviceId });
    state.deviceKeys.set(a.device.deviceId, createPublicKey({ key: a.device.publicJwk, format: 'jwk' }));
  }
  return state;
}

function profileAccount(a: AccountConfig): Record<string, unknown> {
  return {
    browser: { headers: { authorization: `Bearer ${a.browser.token}` }, memberId: a.browser.memberId },
    revocableBrowsers: a.spareBrowsers.map((b) => ({ headers: { authorization: `Bearer ${b.token}` }, memberId: b.memberId })),
    device: {
      headers: { authorization: `Bearer ${a.device.token}` },
      deviceId: a.device.deviceId,
      memberId: a.device.memberId,
      privateJwk: a.device.privateJwk,
    },
  };
}

/** The profile file's JSON for a server at `baseUrl` (4.6 allowed: the server is ours and in memory). */
export function profileFor(config: ServerConfig, baseUrl: string): Record<string, unknown> {
  return {
    name: 'independent',
    baseUrl,
    accounts: { primary: profileAccount(config.accounts.primary), secondary: profileAccount(config.accounts.secondary) },
    pouchIds: [],
    browserIds: [],
    cliRequestIds: [],
    allowAccountChanges: true,
  };
}

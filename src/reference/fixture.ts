/**
 * Who may call the reference: two accounts, each with one browser member and one command-line
 * device (with its P-256 key). Generated fresh at every start (random bearer tokens, new keys) or
 * loaded from a JSON file (`--fixture FILE`), and turned into a ready-to-use target profile.
 */
import { randomBytes, randomUUID, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { generateDeviceKey, privateKeyFromJwk, publicKeyFromJwk } from '../crypto/index.ts';
import { errorCode, errorMessage, PATTERNS, type MemberKind } from '../spec/index.ts';

export interface FixtureBrowser {
  readonly token: string;
  readonly memberId: string;
}
export interface FixtureDevice {
  readonly token: string;
  readonly memberId: string;
  readonly deviceId: string;
  readonly publicJwk: JsonWebKey;
  /** Absent in a fixture that only the server side knows: the profile then cannot sign. */
  readonly privateJwk?: JsonWebKey;
}
export interface FixtureAccount {
  readonly id: string;
  readonly browser: FixtureBrowser;
  readonly device: FixtureDevice;
  /** Other browser members with their own sessions, that a run may revoke (4.5 "ends its sessions"). */
  readonly revocableBrowsers?: readonly FixtureBrowser[];
}
export interface Fixture {
  readonly primary: FixtureAccount;
  readonly secondary: FixtureAccount;
  /**
   * Pouches that exist from the start, owned by the primary account (and, with pouch ids scoped per
   * account, by the secondary too): the only ones under `pouch-existence=must-exist`.
   */
  readonly pouchIds?: readonly string[];
  /** Standing cli-auth requests: the only ones under `cli-request-exists=profile-ids`. */
  readonly cliRequestIds?: readonly string[];
  /** Browser members of the primary account that may be revoked: the only ones under `browser-exists=profile-ids`. */
  readonly browserIds?: readonly string[];
}

/** How many ids of each list a generated fixture holds: enough for a run's properties to pick from. */
export const LISTED_IDS = 16;
/** Revocable browsers of a generated fixture's primary account: one a run, and sessions run against one reference more than once. */
export const REVOCABLE_BROWSERS = 8;

/** A member as the server sees it after authentication. */
export interface Caller {
  readonly accountId: string;
  readonly kind: MemberKind;
  readonly memberId: string;
  /** Set for devices: the kid its Service-Signature must carry. */
  readonly deviceId?: string;
}

const token = (): string => randomBytes(24).toString('base64url');

function generateAccount(): FixtureAccount {
  const keys = generateDeviceKey();
  return {
    id: randomUUID(),
    browser: { token: token(), memberId: randomUUID() },
    device: { token: token(), memberId: randomUUID(), deviceId: randomUUID(), publicJwk: keys.publicJwk, privateJwk: keys.privateJwk },
  };
}

/** Fresh tokens and keys: nothing of one run is valid in another. */
export function generateFixture(): Fixture {
  const ids = (): string[] => Array.from({ length: LISTED_IDS }, () => randomUUID());
  const revocableBrowsers = Array.from({ length: REVOCABLE_BROWSERS }, () => ({ token: token(), memberId: randomUUID() }));
  return { primary: { ...generateAccount(), revocableBrowsers }, secondary: generateAccount(), pouchIds: ids(), cliRequestIds: ids(), browserIds: ids() };
}

const Uuid = z.string().regex(PATTERNS.uuid.regex, 'not a UUID');
const Token = z.string().regex(/^[\x21-\x7e]{16,512}$/, 'a token is 16 to 512 visible ASCII characters');
const Jwk = z.looseObject({ kty: z.string() });
const BrowserSchema = z.strictObject({ token: Token, memberId: Uuid });
const AccountSchema = z.strictObject({
  id: Uuid,
  browser: BrowserSchema,
  revocableBrowsers: z.array(BrowserSchema).optional(),
  device: z.strictObject({ token: Token, memberId: Uuid, deviceId: Uuid, publicJwk: Jwk.optional(), privateJwk: Jwk.optional() }),
});
const FixtureSchema = z.strictObject({
  primary: AccountSchema,
  secondary: AccountSchema,
  pouchIds: z.array(Uuid).optional(),
  cliRequestIds: z.array(Uuid).optional(),
  browserIds: z.array(Uuid).optional(),
});

/** Checks a fixture read from JSON; throws an Error with one line naming the field at fault (never a secret). */
export function parseFixture(json: unknown): Fixture {
  const r = FixtureSchema.safeParse(json);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`fixture ${i.path.join('.') || '(root)'}: ${i.message}`);
  }
  const out = r.data;
  const tokens = new Set<string>();
  for (const which of ['primary', 'secondary'] as const) {
    const acc = out[which];
    for (const t of [acc.browser.token, acc.device.token, ...(acc.revocableBrowsers ?? []).map((b) => b.token)]) {
      if (tokens.has(t)) throw new Error(`fixture ${which}: every member needs its own token`);
      tokens.add(t);
    }
    let publicJwk = acc.device.publicJwk;
    try {
      if (acc.device.privateJwk) privateKeyFromJwk(acc.device.privateJwk);
      publicJwk ??= acc.device.privateJwk;
      if (!publicJwk) throw new Error('publicJwk or privateJwk is required');
      publicKeyFromJwk(publicJwk);
    } catch (e) {
      throw new Error(`fixture ${which}.device: ${errorMessage(e)}`);
    }
    const { d: _d, ...pub } = publicJwk;
    // the fixture is being built here; its device's public key is set once checked
    (acc.device as { publicJwk: JsonWebKey }).publicJwk = pub;
  }
  // every account was completed in the loop above
  return out as Fixture;
}

export async function loadFixture(path: string): Promise<Fixture> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new Error(`cannot read fixture ${path}: ${errorCode(e) ?? 'error'}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`fixture ${path} is not valid JSON`);
  }
  return parseFixture(json);
}

/** Token → caller, and device id → verification key: the lookups done on every request. */
export interface Directory {
  callerFor(token: string): Caller | undefined;
  deviceKey(deviceId: string): KeyObject | undefined;
  /** The account a fixture member id belongs to, and its kind. */
  member(memberId: string): { accountId: string; kind: MemberKind } | undefined;
  /** The caller serving a request without valid credentials under `credentials-required=open` (and the `auth-ignored` fault, which is that reading). */
  fallback(kind: MemberKind): Caller;
}

export function directoryOf(fx: Fixture): Directory {
  const callers = new Map<string, Caller>();
  const keys = new Map<string, KeyObject>();
  const members = new Map<string, { accountId: string; kind: MemberKind }>();
  for (const acc of [fx.primary, fx.secondary]) {
    callers.set(acc.browser.token, Object.freeze({ accountId: acc.id, kind: 'browser', memberId: acc.browser.memberId }));
    callers.set(acc.device.token, Object.freeze({ accountId: acc.id, kind: 'device', memberId: acc.device.memberId, deviceId: acc.device.deviceId }));
    keys.set(acc.device.deviceId, publicKeyFromJwk(acc.device.publicJwk));
    members.set(acc.browser.memberId, { accountId: acc.id, kind: 'browser' });
    members.set(acc.device.memberId, { accountId: acc.id, kind: 'device' });
    for (const b of acc.revocableBrowsers ?? []) {
      callers.set(b.token, Object.freeze({ accountId: acc.id, kind: 'browser', memberId: b.memberId }));
      members.set(b.memberId, { accountId: acc.id, kind: 'browser' });
    }
  }
  return {
    callerFor: (t) => callers.get(t),
    deviceKey: (id) => keys.get(id),
    member: (id) => members.get(id),
    // the primary account's browser and device are registered as callers above
    fallback: (kind) => callers.get(kind === 'browser' ? fx.primary.browser.token : fx.primary.device.token)!,
  };
}

/** One account of a profile file, as the reference writes it. */
export interface AccountDocument {
  browser: { headers: Record<string, string>; memberId: string };
  revocableBrowsers?: { headers: Record<string, string>; memberId: string }[];
  device?: { headers: Record<string, string>; deviceId: string; memberId: string; privateJwk: JsonWebKey & { kty: string } };
}

/**
 * A profile file (docs/CONTRACTS.md) as the reference writes it, JSON-ready. src/target checks at
 * compile time that it is a valid input of its profile schema, so the two cannot drift apart.
 */
export interface ProfileDocument {
  name: string;
  description: string;
  baseUrl: string;
  accounts: { primary: AccountDocument; secondary: AccountDocument };
  pouchIds: string[];
  browserIds: string[];
  cliRequestIds: string[];
  timeouts: { requestMs: number; connectMs: number };
  connections?: number;
  assumptions: Record<string, string>;
}

function accountProfile(acc: FixtureAccount): AccountDocument {
  const headers = (t: string): Record<string, string> => ({ authorization: `Bearer ${t}` });
  const jwk = acc.device.privateJwk;
  return {
    browser: { headers: headers(acc.browser.token), memberId: acc.browser.memberId },
    ...(acc.revocableBrowsers?.length ? { revocableBrowsers: acc.revocableBrowsers.map((b) => ({ headers: headers(b.token), memberId: b.memberId })) } : {}),
    // parseFixture and generateDeviceKey only ever yield keys that name their kty.
    ...(jwk?.kty ? { device: { headers: headers(acc.device.token), deviceId: acc.device.deviceId, memberId: acc.device.memberId, privateJwk: { ...jwk, kty: jwk.kty } } } : {}),
  };
}

/** Which of the fixture's id lists the profile carries: only those a switched-on reading needs, so the default profile stays as it was. */
export interface ListedIds {
  readonly pouchIds: boolean;
  readonly cliRequestIds: boolean;
  readonly browserIds: boolean;
}

const NO_LISTS: ListedIds = { pouchIds: false, cliRequestIds: false, browserIds: false };

/** A complete profile file (docs/CONTRACTS.md, src/target) for a reference listening at `baseUrl`. */
export function profileOf(fx: Fixture, baseUrl: string, lists: ListedIds = NO_LISTS): ProfileDocument {
  return {
    name: 'reference',
    description: 'generated by pouchproof serve; holds credentials and a private key of this run only',
    baseUrl,
    accounts: { primary: accountProfile(fx.primary), secondary: accountProfile(fx.secondary) },
    pouchIds: lists.pouchIds ? [...(fx.pouchIds ?? [])] : [],
    browserIds: lists.browserIds ? [...(fx.browserIds ?? [])] : [],
    cliRequestIds: lists.cliRequestIds ? [...(fx.cliRequestIds ?? [])] : [],
    timeouts: { requestMs: 10_000, connectMs: 3_000 },
    assumptions: {},
  };
}

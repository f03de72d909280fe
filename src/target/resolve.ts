/**
 * Which target a run talks to, decided in one place for every command and benchmark: a profile
 * file, a bare URL, or the embedded reference. The reference is started through the starter the
 * caller injects (the session, the command, a test: src/reference/embedded.ts), so this layer,
 * the HTTP client's, never loads the reference server; it lives until the resolved target's
 * `close()`. A profile or URL target has nothing to close.
 */
import type { Readings } from '../spec/index.ts';
import { loadProfile, parseProfile, profileForUrl, ProfileError, type Profile, type ProfileFile } from './profile.ts';

/** What to start for the embedded reference. */
export interface EmbeddedChoice {
  readonly kind: 'embedded';
  readonly faults?: readonly string[];
  readonly readings?: Readings;
  /** Choices the spec allows that the registry does not name (the reference's unnamed behaviours). */
  readonly unnamed?: readonly string[];
}

/** A started embedded server, as far as a target needs it. */
export interface EmbeddedServer {
  readonly url: string;
  /** A complete profile file, credentials included. */
  readonly profile: ProfileFile;
  readonly faults: readonly string[];
  close(): Promise<void>;
}

/** Starts the embedded reference (src/reference/embedded.ts's startEmbeddedReference). */
export type EmbeddedStarter = (c: Omit<EmbeddedChoice, 'kind'>) => Promise<EmbeddedServer>;

/** What resolving a target may need from the layers above: the embedded reference's starter, when the choice may be `embedded`. */
export interface TargetDeps {
  readonly startEmbedded?: EmbeddedStarter;
}

export type TargetChoice =
  | { readonly kind: 'profile-file'; readonly path: string }
  | { readonly kind: 'url'; readonly url: string }
  | EmbeddedChoice;

export interface ResolvedTarget {
  readonly profile: Profile;
  /** The target is the embedded reference started for this run. */
  readonly embedded: boolean;
  /** The running embedded reference (its url, profile and faults). */
  readonly reference?: EmbeddedServer;
  close(): Promise<void>;
}

/** Bad input in choosing the target (flags, profile, faults): one line, for the user. */
export class TargetError extends Error {
  constructor(message: string) {
    super(message.replace(/[\r\n]+/g, ' '));
    this.name = 'TargetError';
  }
}

/** The word that names the embedded reference where a target is expected (`--target reference`, compare's `--profile reference`): a choice made on purpose. */
export const REFERENCE_TARGET = 'reference';

/** The command-line flags' choice: `--profile`, `--target` (a URL, or `reference`), or neither (the embedded reference with its `--fault`s). */
export function chooseTarget(o: { readonly profilePath?: string; readonly url?: string } & Omit<EmbeddedChoice, 'kind'>): TargetChoice {
  if (o.profilePath !== undefined && o.url !== undefined) throw new TargetError('give either --profile or --target, not both');
  const url = o.url === REFERENCE_TARGET ? undefined : o.url;
  const outside = o.profilePath !== undefined || url !== undefined;
  if (outside && o.faults?.length) throw new TargetError('faults apply to the embedded reference only');
  if (outside && o.readings && Object.keys(o.readings).length) throw new TargetError('readings served by the reference apply to the embedded reference only');
  if (o.profilePath !== undefined) return { kind: 'profile-file', path: o.profilePath };
  if (url !== undefined) return { kind: 'url', url };
  return { kind: 'embedded', ...(o.faults ? { faults: o.faults } : {}), ...(o.readings ? { readings: o.readings } : {}), ...(o.unnamed ? { unnamed: o.unnamed } : {}) };
}

const nothingToClose = async (): Promise<void> => undefined;

async function asTargetError<T>(f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof ProfileError) throw new TargetError(e.message);
    throw e;
  }
}

async function startEmbedded(c: EmbeddedChoice, deps: TargetDeps): Promise<ResolvedTarget> {
  // A caller that can reach `embedded` passes the starter; one that forgot is a defect of pouchproof, said in one line.
  if (!deps.startEmbedded) throw new TargetError('the embedded reference is not available here: its caller passes no startEmbedded');
  const options = { ...(c.faults ? { faults: c.faults } : {}), ...(c.readings ? { readings: c.readings } : {}), ...(c.unnamed ? { unnamed: c.unnamed } : {}) };
  const reference = await deps
    .startEmbedded(options)
    .catch((e: unknown) => Promise.reject(new TargetError(`the embedded reference: ${e instanceof Error ? e.message : String(e)}`)));
  try {
    return { profile: parseProfile(reference.profile), embedded: true, reference, close: () => reference.close() };
  } catch (e) {
    await reference.close();
    throw e;
  }
}

export async function resolveTarget(choice: TargetChoice, deps: TargetDeps = {}): Promise<ResolvedTarget> {
  switch (choice.kind) {
    case 'profile-file': {
      const profile = await asTargetError(() => loadProfile(choice.path));
      return { profile, embedded: false, close: nothingToClose };
    }
    case 'url': {
      const profile = await asTargetError(() => profileForUrl(choice.url));
      return { profile, embedded: false, close: nothingToClose };
    }
    case 'embedded':
      return startEmbedded(choice, deps);
    default:
      return choice satisfies never;
  }
}

/**
 * Runs `use` with a target: a choice is resolved here and closed when `use` settles; a target
 * already resolved belongs to its caller and is left open.
 */
export async function withTarget<T>(target: TargetChoice | ResolvedTarget, use: (t: ResolvedTarget) => Promise<T>, deps: TargetDeps = {}): Promise<T> {
  if (!('kind' in target)) return use(target);
  const t = await resolveTarget(target, deps);
  try {
    return await use(t);
  } finally {
    await t.close();
  }
}

/**
 * Which target a run talks to, decided in one place for every command and benchmark: a profile
 * file, a bare URL, or the embedded reference. The reference is started here and lives until the
 * resolved target's `close()`; a profile or URL target has nothing to close.
 */
import type { ReferenceOptions, RunningReference } from '../reference/index.ts';
import { loadProfile, parseProfile, profileForUrl, ProfileError, type Profile, type ProfileFile } from './profile.ts';

/** What to start for the embedded reference. */
export interface EmbeddedChoice {
  readonly kind: 'embedded';
  readonly faults?: ReferenceOptions['faults'];
  readonly readings?: ReferenceOptions['readings'];
  /** Choices the spec allows that the registry does not name (the reference's unnamed behaviours). */
  readonly unnamed?: ReferenceOptions['unnamed'];
}

export type TargetChoice =
  | { readonly kind: 'profile-file'; readonly path: string }
  | { readonly kind: 'url'; readonly url: string }
  | EmbeddedChoice;

export interface ResolvedTarget {
  readonly profile: Profile;
  /** The target is the embedded reference started for this run. */
  readonly embedded: boolean;
  /** The running embedded reference (its url, faults and fixture). */
  readonly reference?: RunningReference;
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

async function startEmbedded(c: EmbeddedChoice): Promise<ResolvedTarget> {
  // Loaded only when needed: a run against a profile never pays for the reference's modules.
  const { startReference } = await import('../reference/index.ts');
  const reference = await startReference({
    host: '127.0.0.1',
    port: 0,
    ...(c.faults ? { faults: c.faults } : {}),
    ...(c.readings ? { readings: c.readings } : {}),
    ...(c.unnamed ? { unnamed: c.unnamed } : {}),
  }).catch((e: unknown) => Promise.reject(new TargetError(`the embedded reference: ${e instanceof Error ? e.message : String(e)}`)));
  try {
    // `satisfies`: the reference's document is a profile file by type, so this parse is a formality the compiler vouches for.
    return { profile: parseProfile(reference.profile satisfies ProfileFile), embedded: true, reference, close: () => reference.close() };
  } catch (e) {
    await reference.close();
    throw e;
  }
}

export async function resolveTarget(choice: TargetChoice): Promise<ResolvedTarget> {
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
      return startEmbedded(choice);
    default:
      return choice satisfies never;
  }
}

/**
 * Runs `use` with a target: a choice is resolved here and closed when `use` settles; a target
 * already resolved belongs to its caller and is left open.
 */
export async function withTarget<T>(target: TargetChoice | ResolvedTarget, use: (t: ResolvedTarget) => Promise<T>): Promise<T> {
  if (!('kind' in target)) return use(target);
  const t = await resolveTarget(target);
  try {
    return await use(t);
  } finally {
    await t.close();
  }
}

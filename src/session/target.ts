/**
 * The target of a session, decided in one place for the CLI, the library and the vitest entry: a
 * profile (a path, or one already loaded), a bare URL, or the embedded reference (with the faults
 * and readings it serves), with the readings the user fixed applied. Opening never probes the
 * network; whether the target answers is the session's to find out and report.
 */
import { errorMessage, DEFAULT_ASSUMPTIONS, readingEntries, resolveAssumptions, type Readings } from '../spec/index.ts';
import { probeConnection, TargetUnreachableError } from '../target/connect-probe.ts';
import type { Profile } from '../target/profile.ts';
import { parseNemesis, type NemesisPlan } from '../target/nemesis/index.ts';
import { chooseTarget, resolveTarget, TargetError, type ResolvedTarget } from '../target/resolve.ts';
import { EMBEDDED_REFERENCE } from '../reference/embedded.ts';
import { UsageError } from './usage-error.ts';

export interface TargetOptions {
  /**
   * A profile file's path, or a profile `loadProfile`, `parseProfile` or `startReference` gave.
   * Neither this nor `target`: the embedded reference, started for the session and stopped after it.
   */
  readonly profile?: string | Profile;
  /** A base URL without credentials (properties that need them are skipped). */
  readonly target?: string;
  /** Readings fixed whatever `auto` finds, by assumption name. */
  readonly assume?: Readonly<Record<string, string>>;
}

/** What the embedded reference serves, when it is the target (`start`, `mutants`, the tests). */
export interface EmbeddedOptions {
  /** Named faults to switch on. */
  readonly faults?: readonly string[];
  /** The readings it serves: the session is judged under them, as `auto` would find them. */
  readonly readings?: Readings;
  /** Choices the spec allows that no reading names: the session is not told of them. */
  readonly unnamed?: readonly string[];
}

/** A resolved target with the fixed readings applied; `fixed` is what the readings probe must keep. */
export type ReadyTarget = ResolvedTarget & { readonly fixed: Readings };

export async function openTarget(o: TargetOptions = {}, embedded: EmbeddedOptions = {}): Promise<ReadyTarget> {
  if (typeof o.profile === 'object' && o.target !== undefined) throw new UsageError('give either profile or target, not both');
  const path = typeof o.profile === 'string' ? o.profile : undefined;
  const t: ResolvedTarget =
    typeof o.profile === 'object'
      ? { profile: o.profile, embedded: false, close: async () => undefined }
      : await asUsage(() => resolveTarget(chooseTarget({ ...(path !== undefined ? { profilePath: path } : {}), ...(o.target !== undefined ? { url: o.target } : {}), ...(embedded.faults ? { faults: embedded.faults } : {}), ...(embedded.readings ? { readings: embedded.readings } : {}), ...(embedded.unnamed ? { unnamed: embedded.unnamed } : {}) }), EMBEDDED_REFERENCE));
  try {
    const served = t.embedded && embedded.readings ? { ...(embedded.readings) } : {};
    const profile = withAssumptions(t.profile, { ...served, ...(o.assume ?? {}) });
    // What the user fixed (the profile's readings that differ from the registry, and `assume`): the probe keeps them.
    const fixed = Object.fromEntries(readingEntries(profile.assumptions).filter(([k, v]) => v !== DEFAULT_ASSUMPTIONS[k] || (o.assume !== undefined && k in o.assume)));
    return { ...t, profile, fixed };
  } catch (e) {
    await t.close();
    throw e;
  }
}

export function withAssumptions(profile: Profile, overrides: Readonly<Record<string, string>>): Profile {
  if (Object.keys(overrides).length === 0) return profile;
  try {
    return { ...profile, assumptions: resolveAssumptions({ ...profile.assumptions, ...overrides }) };
  } catch (e) {
    throw new UsageError(`--assume: ${errorMessage(e)}`);
  }
}

/** The profile with the nemesis a SPEC gives (over the profile's own `nemesis`); a SPEC pouchproof cannot read is the user's to fix. */
export function withNemesis(profile: Profile, spec: string | undefined, flag = '--nemesis'): Profile {
  if (spec === undefined) return profile;
  let plan: NemesisPlan;
  try {
    plan = parseNemesis(spec);
  } catch (e) {
    throw new UsageError(`${flag}: ${errorMessage(e)}`);
  }
  if (profile.proxy) throw new UsageError(`${flag}: the nemesis holds the connections to the target itself: it cannot go through the proxy the profile (or the environment) names`);
  return { ...profile, nemesis: plan };
}

/** Why nothing can be reached at the target's host and port, or undefined when something listens. */
export async function unreachableReason(t: Pick<ResolvedTarget, 'embedded' | 'profile'>): Promise<string | undefined> {
  if (t.embedded) return undefined;
  const p = await probeConnection(t.profile, t.profile.timeouts.connectMs);
  return p.ok ? undefined : `cannot reach the target ${new URL(t.profile.baseUrl).origin}: ${p.reason}`;
}

/** For commands that write no conformance report (replay): a target that cannot be reached ends them in one line (exit 3). */
export async function requireReachable(t: ReadyTarget): Promise<void> {
  const why = await unreachableReason(t);
  if (why) throw new TargetUnreachableError(why);
}

async function asUsage<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof TargetError) throw new UsageError(e.message);
    throw e;
  }
}

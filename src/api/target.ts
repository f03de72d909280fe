/** The target of a library call: a profile (path or object), a bare URL, or the embedded reference; made ready as the CLI's flags make it. */
import { readyTarget, targetFromArgs } from '../cli/commands/run.ts';
import type { Profile } from '../target/profile.ts';
import type { ResolvedTarget } from '../target/resolve.ts';
import type { Readings } from '../spec/index.ts';

export interface TargetOptions {
  /**
   * A profile file's path, or a profile `loadProfile`, `parseProfile` or `startReference` gave.
   * Neither this nor `target`: the embedded reference, started for the call and stopped after it.
   */
  readonly profile?: string | Profile;
  /** A base URL without credentials (properties that need them are skipped). */
  readonly target?: string;
  /** Readings fixed whatever `auto` finds, by assumption name. */
  readonly assume?: Readonly<Record<string, string>>;
}

/** Resolves the target; the caller closes it. */
export async function openTarget(o: TargetOptions): Promise<ResolvedTarget & { readonly fixed: Readings }> {
  const assume = Object.entries(o.assume ?? {}).map(([k, v]) => `${k}=${v}`);
  if (o.profile === undefined || typeof o.profile === 'string') return targetFromArgs({ profile: o.profile, target: o.target, assume });
  if (o.target !== undefined) throw new TypeError('give either profile or target, not both');
  return readyTarget({ profile: o.profile, embedded: false, close: async () => undefined }, Object.fromEntries(Object.entries(o.assume ?? {})));
}

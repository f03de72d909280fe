/**
 * The CI rule. Outside CI a command given no target tests the embedded reference, which is what a
 * first try on a laptop wants. In a CI job the same fallback is a false green: a secret that is empty
 * (a pull request from a fork, a renamed secret) drops `--profile`, and the job passes on pouchproof's
 * own server. So under CI a command that would fall back refuses, unless the reference is named on
 * purpose (`--reference`, `--target reference`).
 */
import type { Argv } from 'yargs';
import { REFERENCE_TARGET } from '../target/resolve.ts';
import { UsageError } from './command.ts';

/** CI as the CI services set it (`true`, `1`, a service's name); empty, `false` and `0` are no CI, as a user clearing it means. */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = (env.CI ?? '').trim().toLowerCase();
  return v !== '' && v !== 'false' && v !== '0';
}

/** `--reference`, for the commands that fall back to the embedded reference without a target. */
export function referenceOption<T>(y: Argv<T>) {
  return y.option('reference', { type: 'boolean', describe: `the embedded reference, on purpose (the same as --target ${REFERENCE_TARGET}); without any target it is the default, except under CI` });
}

export interface TargetFlags {
  readonly profile?: string | undefined;
  readonly target?: string | undefined;
  readonly reference?: boolean | undefined;
}

/**
 * Checks the target flags of `command`: a one-line UsageError (exit 4) for `--reference` beside
 * another target, and under CI for no target at all.
 */
export function checkTargetFlags(command: string, f: TargetFlags, env: NodeJS.ProcessEnv = process.env): void {
  const outside = f.profile !== undefined || (f.target !== undefined && f.target !== REFERENCE_TARGET);
  if (f.reference === true && outside) throw new UsageError('give one of --profile, --target or --reference, not more');
  const named = outside || f.reference === true || f.target === REFERENCE_TARGET;
  if (!named && inCi(env)) {
    throw new UsageError(
      `CI is set and no target was given, so ${command} would test pouchproof's embedded reference instead of your service: give --profile FILE or --target URL (is the secret that fills it empty?), or --reference to test the embedded reference on purpose`,
    );
  }
}

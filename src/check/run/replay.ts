/**
 * Re-running one finding's case: from its replay token, which is first checked to still name the
 * same case here (token-fit.ts), or from a path already resolved (a fast-check path, or a coverage case's index).
 */
import { TargetClient } from '../../target/client.ts';
import type { Profile } from '../../target/profile.ts';
import { Environment } from '../judge/environment.ts';
import type { Property } from '../property.ts';
import { DEFAULT_PROPERTY_MS, concurrencyOf } from './options.ts';
import { runProperty } from './property-run.ts';
import type { PropertyResult } from './result.ts';
import { newCounter } from './run-properties.ts';
import type { ReplayToken } from './replay-token.ts';
import { tokenFit } from './token-fit.ts';
import { COVERAGE_PATH } from './coverage-phase.ts';

export type TokenReplay = { readonly fits: true; readonly result: PropertyResult } | { readonly fits: false; readonly why: string };

type ReplayOptions = { perRequestMs?: number; perPropertyMs?: number; signal?: AbortSignal; embedded?: boolean; client?: TargetClient };

/** A token's case, unless the token no longer fits (then nothing is sent, and `why` says so in one line). */
export async function replayToken(profile: Profile, prop: Property, t: ReplayToken, o: ReplayOptions = {}): Promise<TokenReplay> {
  const fit = tokenFit(prop, profile, t);
  if (!fit.fits) return fit;
  return { fits: true, result: await replayProperty(profile, prop, { seed: t.seed, path: fit.path, runs: t.runs }, o) };
}

export async function replayProperty(
  profile: Profile,
  prop: Property,
  given: { seed: number; path: string; runs: number } | ReplayToken,
  o: ReplayOptions = {},
): Promise<PropertyResult> {
  // A token that names its coverage case is run by that case's index here.
  const named = given.path === COVERAGE_PATH && 'property' in given ? tokenFit(prop, profile, given) : undefined;
  if (named && !named.fits) return { id: prop.id, section: prop.section, status: 'error', runs: 0, requests: 0, durationMs: 0, findings: [{ kind: 'error', property: prop.id, section: prop.section, message: `the token no longer fits: ${named.why}` }] };
  const r = { seed: given.seed, runs: given.runs, path: named?.fits ? named.path : given.path };
  // The nemesis draws from the token's seed, the run's: the replayed case's requests meet the faults they met in the run.
  const client = o.client ?? new TargetClient(profile, { nemesisSeed: r.seed });
  try {
    return await runProperty(prop, { profile, client, counter: newCounter(profile), environment: new Environment() }, {
      seed: r.seed,
      runs: r.runs,
      path: r.path,
      ...(o.perRequestMs !== undefined ? { perRequestMs: o.perRequestMs } : {}),
      perPropertyMs: o.perPropertyMs ?? DEFAULT_PROPERTY_MS,
      ...(o.signal ? { signal: o.signal } : {}),
      embedded: o.embedded ?? false,
      endOnFailure: false,
      shrink: true,
      coverage: true,
      concurrency: concurrencyOf(prop, profile, 1),
      unknownReadings: new Map(),
    });
  } finally {
    if (!o.client) await client.close().catch(() => undefined);
  }
}

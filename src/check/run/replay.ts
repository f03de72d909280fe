/** Re-running one finding's case from its replay token's parts: a fast-check path, or a coverage case's index. */
import { TargetClient } from '../../target/client.ts';
import type { Profile } from '../../target/profile.ts';
import { Environment } from '../judge/environment.ts';
import type { Property } from '../property.ts';
import { DEFAULT_PROPERTY_MS, concurrencyOf } from './options.ts';
import { runProperty } from './property-run.ts';
import type { PropertyResult } from './result.ts';
import { newCounter } from './run-properties.ts';

export async function replayProperty(
  profile: Profile,
  prop: Property,
  r: { seed: number; path: string; runs: number },
  o: { perRequestMs?: number; perPropertyMs?: number; signal?: AbortSignal; embedded?: boolean; client?: TargetClient } = {},
): Promise<PropertyResult> {
  const client = o.client ?? new TargetClient(profile);
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
      coverage: true,
      concurrency: concurrencyOf(prop, profile, 1),
      unknownReadings: new Map(),
    });
  } finally {
    if (!o.client) await client.close().catch(() => undefined);
  }
}

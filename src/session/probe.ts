/**
 * The readings probe of a session (`--assume auto`): how long it may take (decided here once), and
 * what the session takes from it: the readings to judge under, and the ones it could not identify.
 */
import { discoverReadings, probeClient, type Discovery } from '../discover/index.ts';
import type { AssumptionName } from '../spec/index.ts';
import { resolveAssumptions } from '../spec/index.ts';
import type { ReadyTarget } from './target.ts';

/** The probe's own bound: a well-behaved target answers its few dozen requests in well under a second. */
export const PROBE_LIMIT_MS = 30_000;

/** The probe takes at most a quarter of the session's budget (and its own bound), so the properties keep the rest. */
export function probeBounds(maxDurationMs: number, perRequestMs?: number): { readonly timeLimitMs: number; readonly requestTimeoutMs?: number } {
  return { timeLimitMs: Math.min(PROBE_LIMIT_MS, Math.floor(maxDurationMs / 4)), ...(perRequestMs ? { requestTimeoutMs: perRequestMs } : {}) };
}

export interface Probed {
  /** The target with the readings found (and those the user fixed over them). */
  readonly target: ReadyTarget;
  readonly discovery: Discovery;
  /** Readings the probe could not identify (and the user did not fix): judgements resting on them are unknown. */
  readonly unknownReadings: ReadonlyMap<AssumptionName, string>;
}

export async function probeReadings(target: ReadyTarget, bounds: ReturnType<typeof probeBounds>, o: { readonly rateLimitPerSecond?: number } = {}): Promise<Probed> {
  const client = probeClient(target.profile, o.rateLimitPerSecond !== undefined ? { throttle: { ratePerSecond: o.rateLimitPerSecond } } : {});
  try {
    const fixed = target.fixed;
    const discovery = await discoverReadings(target.profile, client, { embedded: target.embedded, fixed, ...bounds });
    const assumptions = resolveAssumptions({ ...(discovery.readings), ...(fixed) });
    const unknownReadings = new Map(discovery.table.flatMap((r) => (r.status === 'unknown' && fixed[r.assumption] === undefined ? [[r.assumption, r.why] as const] : [])));
    return { target: { ...target, profile: { ...target.profile, assumptions } }, discovery, unknownReadings };
  } finally {
    await client.close().catch(() => undefined);
  }
}

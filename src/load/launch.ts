/**
 * `runLoad`: a load run as a command sees it. Checks the input (parameters, thresholds, rate,
 * duration) before any target is started, resolves the target (closing what it started), refuses
 * a non-loopback target without `allowRemote`, picks connections and workers, and runs it. The
 * scenario comes loaded (its catalogue sits above this layer); writing reports is the caller's.
 */
import type { NemesisPlan } from '../target/nemesis/index.ts';
import { availableParallelism } from 'node:os';
import { probeConnection, TargetUnreachableError } from '../target/connect-probe.ts';
import { shownProxy } from '../target/proxy.ts';
import { withTarget, type ResolvedTarget, type TargetChoice } from '../target/resolve.ts';
import { isLoopbackUrl } from './remote.ts';
import type { LoadRunResult } from './result.ts';
import { executeLoad } from './run.ts';
import { resolveParams, type ParamValue, type Scenario } from './scenario.ts';
import { shareOf, sleepUntil, type ShardSpec, type StartAt } from './shard.ts';
import { parseThreshold } from './thresholds.ts';

/** Bad input to a load run: the CLI prints the message as one line and exits 4. */
export class LoadUsageError extends Error {}

/** A scenario and the module URL a worker thread imports to rebuild it. */
export interface LoadedScenario {
  readonly scenario: Scenario;
  readonly url: string;
}

export interface RunLoadOptions {
  readonly scenario: LoadedScenario;
  readonly params?: Readonly<Record<string, ParamValue>>;
  /** A target to resolve (and close at the end), or one already resolved (left open). */
  readonly target: TargetChoice | ResolvedTarget;
  readonly durationMs?: number;
  readonly maxRequests?: number;
  /** Open model at this many requests per second; absent: closed model. */
  readonly rate?: number;
  readonly connections?: number;
  /** Worker threads; 0 runs in this thread. */
  readonly workers?: number;
  readonly thresholds?: readonly string[];
  readonly allowRemote?: boolean;
  readonly seed?: number;
  readonly timeoutMs?: number;
  readonly warmupMs?: number;
  readonly runId?: string;
  readonly onProgress?: (line: string) => void;
  /** How often `onProgress` is called (default: every 5 s). */
  readonly progressEveryMs?: number;
  /** Aborting ends the run early (Ctrl-C); the partial figures are still reported. */
  readonly signal?: AbortSignal;
  /** Run shard `index` of `count`: its share of the rate (open) or connections (closed) and of maxRequests. */
  readonly shard?: ShardSpec;
  /** A wall-clock start shared by shards (see parseStartAt). */
  readonly startAt?: StartAt;
  /** Faults on the engine's own connections and retries after no answer (docs/nemesis.md), over the profile's `nemesis`. */
  readonly nemesis?: NemesisPlan;
}

/** Connections are opened and warmed this long before a shared start, not earlier (idle ones get closed). */
const PRE_START_MS = 10_000;

export interface RunLoadOutput {
  readonly result: LoadRunResult;
  /** The target's secrets, for redacting whatever is written from the result. */
  readonly secrets: readonly string[];
}

export const DEFAULT_DURATION_MS = 30_000;
/** Every run is bounded by a request count as well as by its duration. */
export const DEFAULT_MAX_REQUESTS = 10_000_000;
/** Open model: connections enough for a long stall at a high rate. */
export const DEFAULT_OPEN_CONNECTIONS = 64;

/** `YYYYMMDD-HHMMSS-load-<scenario>` in UTC. */
export function loadRunId(scenario: string, at = new Date()): string {
  const iso = at.toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}-load-${scenario}`;
}

function usage<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new LoadUsageError((e as Error).message);
  }
}

export async function runLoad(o: RunLoadOptions): Promise<RunLoadOutput> {
  const { scenario, url: scenarioUrl } = o.scenario;
  const params = usage(() => resolveParams(scenario, o.params ?? {}));
  const thresholds = usage(() => (o.thresholds ?? []).map(parseThreshold));
  if (o.rate !== undefined && o.rate <= 0) throw new LoadUsageError('--rate must be positive');
  const durationMs = o.durationMs ?? DEFAULT_DURATION_MS;
  const maxRequests = o.maxRequests ?? DEFAULT_MAX_REQUESTS;
  if (!(durationMs > 0) || !(maxRequests >= 1)) throw new LoadUsageError('a load run needs a positive duration and request count');
  const shard = o.shard;
  if (shard && maxRequests < shard.count) throw new LoadUsageError(`--max-requests ${maxRequests} cannot be split over ${shard.count} shards`);

  return withTarget(o.target, async (target) => {
    const { embedded } = target;
    const profile = o.nemesis ? { ...target.profile, nemesis: o.nemesis } : target.profile;
    if (profile.nemesis && profile.proxy) throw new LoadUsageError('the nemesis holds the connections to the target itself: it cannot go through a proxy');
    const proxy = profile.proxy ? `the proxy ${shownProxy(profile.proxy.url)} (${profile.proxy.from === 'profile' ? 'the profile\'s proxy' : profile.proxy.from})` : undefined;
    // Through a proxy the load leaves the machine whatever the target's name resolves to here.
    if (!embedded && !o.allowRemote && (proxy || !(await isLoopbackUrl(profile.baseUrl)))) {
      const where = proxy ? `is reached through ${proxy}` : 'is not on the loopback interface';
      throw new LoadUsageError(`${new URL(profile.baseUrl).host} ${where}; pass --allow-remote to load it`);
    }
    if (proxy) {
      o.onProgress?.(`through ${proxy}: its latency and capacity are part of every figure (a shard run inside the network, e.g. pouchproof load k8s, measures the target alone)`);
    }
    const allConnections = o.connections ?? scenario.defaultConnections ?? (o.rate ? Math.max(DEFAULT_OPEN_CONNECTIONS, profile.connections) : profile.connections);
    // The open model's rate is what is shared; its connections are only a pool, which each shard keeps whole.
    const connections = shard && !o.rate ? shareOf(allConnections, shard.count, shard.index) : allConnections;
    if (shard && connections < 1) throw new LoadUsageError(`${allConnections} connections cannot be split over ${shard.count} shards (closed model); give --connections at least ${shard.count}`);
    // Embedded: the server keeps the main thread, the load one worker. Remote: use the cores.
    const workers = Math.min(connections, o.workers ?? (embedded ? 1 : Math.max(1, Math.min(4, availableParallelism()))));
    if (!Number.isInteger(connections) || connections < 1) throw new LoadUsageError('--connections must be a positive integer');
    if (!Number.isInteger(workers) || workers < 0) throw new LoadUsageError('--workers must be a non-negative integer');
    const faults = target.reference?.faults;
    if (o.startAt) await sleepUntil(o.startAt.atMs - PRE_START_MS - (o.warmupMs ?? 1000), o.signal);
    // One line naming what to fix (a CA, a client certificate, a proxy's refusal) instead of a run of failed requests.
    if (!embedded) {
      const reach = await probeConnection(profile, profile.timeouts.connectMs);
      if (!reach.ok) throw new TargetUnreachableError(`cannot reach the target ${new URL(profile.baseUrl).origin}: ${reach.reason}`);
    }
    const result = await executeLoad({
      scenario,
      scenarioUrl,
      params,
      profile,
      model: o.rate ? { kind: 'open', rate: shard ? o.rate / shard.count : o.rate } : { kind: 'closed' },
      connections,
      workers,
      durationMs,
      maxRequests: shard ? shareOf(maxRequests, shard.count, shard.index) : maxRequests,
      timeoutMs: o.timeoutMs ?? profile.timeouts.requestMs,
      seed: o.seed ?? (Date.now() & 0x7fffffff),
      warmupMs: o.warmupMs,
      thresholds,
      runId: o.runId ?? loadRunId(scenario.name),
      ...(shard ? { shard } : {}),
      ...(o.startAt ? { startAtMs: o.startAt.atMs, requestedStartMs: o.startAt.requestedMs } : {}),
      target: { url: profile.baseUrl, embedded, ...(faults ? { faults } : {}) },
      ...(o.signal ? { signal: o.signal } : {}),
      onProgress: o.onProgress,
      ...(o.progressEveryMs !== undefined ? { progressEveryMs: o.progressEveryMs } : {}),
    }).catch((e: Error) => Promise.reject(e instanceof RangeError ? new LoadUsageError(e.message) : e));
    return { result, secrets: profile.secrets };
  });
}

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
import { withTarget, type EmbeddedStarter, type ResolvedTarget, type TargetChoice } from '../target/resolve.ts';
import { ScenarioSourceError } from './define.ts';
import { LiveMetrics } from './metrics/metrics.ts';
import { METRICS_LINGER_MS, parseMetricsListen, serveMetrics, type MetricsListen } from './metrics/metrics-server.ts';
import { isLoopbackUrl } from './remote.ts';
import type { LoadRunResult } from './result.ts';
import { executeLoad } from './execute.ts';
import { resolveParams, type ParamValue, type Scenario } from './scenario.ts';
import { shareOf, sleepUntil, type ShardSpec, type StartAt } from './shards/shard.ts';
import { shareModel, validateModel, type LoadModel } from './engine/engine.ts';
import { parseStages, peakTarget, stagesDurationMs, type Stages } from './stages.ts';
import { parseThreshold, shareOfThreshold } from './gates/thresholds.ts';
import { errorMessage } from '../spec/index.ts';

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
  /** Starts the embedded reference when `target` chooses it: injected by the caller (src/reference/embedded.ts), never imported here. */
  readonly startEmbedded?: EmbeddedStarter;
  readonly durationMs?: number;
  readonly maxRequests?: number;
  /** Open model at this many requests per second; absent: closed model. */
  readonly rate?: number;
  /**
   * A load shape, `'30s:100/s,2m:1000/s,30s:0/s'` (a ramping arrival rate, open model) or
   * `'30s:10c,1m:10c'` (ramping connections, closed model), or the same parsed. It sets the run's
   * duration; a shard takes its share of every stage.
   */
  readonly stages?: string | Stages;
  readonly connections?: number;
  /** Worker threads; 0 runs in this thread. */
  readonly workers?: number;
  readonly thresholds?: readonly string[];
  /**
   * Thresholds judged only to stop the run (those with `:abort`), not in its verdict: a shard's, whose
   * verdict is its merge's. Latency and error bounds apply as written; rps and goodput bounds to this
   * shard's share of them.
   */
  readonly abortThresholds?: readonly string[];
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
  /** `HOST:PORT`: serve live Prometheus metrics there while the run lasts (metrics-server.ts). */
  readonly metricsListen?: string;
  /** Called with the metrics URL once it is served. */
  readonly onMetricsListening?: (url: string) => void;
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
    throw new LoadUsageError(errorMessage(e));
  }
}

/** The run's load model (this shard's share of it), checked by its own executor. */
function modelOf(rate: number | undefined, stages: Stages | undefined, shard: ShardSpec | undefined, connections: number, durationMs: number): LoadModel {
  const whole: LoadModel = stages
    ? stages.unit === 'rate'
      ? { kind: 'open', rate: peakTarget(stages.stages), stages: stages.stages }
      : { kind: 'closed', stages: stages.stages }
    : rate
      ? { kind: 'open', rate }
      : { kind: 'closed' };
  const model = shard ? shareModel(whole, shard.count, shard.index) : whole;
  validateModel(model, connections, durationMs);
  return model;
}

/** The run's metrics endpoint, listening before the run starts (a port in use is a usage error, not a run lost). */
async function liveMetrics(listen: MetricsListen, scenario: string, shard: ShardSpec | undefined, onListening: ((url: string) => void) | undefined) {
  const live = new LiveMetrics({ scenario, shard: shard?.index ?? 0 });
  const server = await usageAsync(serveMetrics(listen, live));
  onListening?.(server.url);
  return { live, server };
}

function usageAsync<T>(p: Promise<T>): Promise<T> {
  return p.catch((e: Error) => Promise.reject(new LoadUsageError(e.message)));
}

/** The run's shape from its options, each checked before any target is touched. */
function runShape(o: RunLoadOptions) {
  const { scenario } = o.scenario;
  const params = usage(() => resolveParams(scenario, o.params ?? {}));
  const thresholds = usage(() => (o.thresholds ?? []).map(parseThreshold));
  const abortThresholds = usage(() => (o.abortThresholds ?? []).map(parseThreshold)).map((t) => shareOfThreshold(t, o.shard?.count ?? 1));
  if (o.rate !== undefined && o.rate <= 0) throw new LoadUsageError('--rate must be positive');
  const given = o.stages;
  const stages = typeof given === 'string' ? usage(() => parseStages(given)) : given;
  if (stages && o.durationMs !== undefined) throw new LoadUsageError('--stages sets the run\'s duration: leave out --duration');
  if (stages && o.rate !== undefined) throw new LoadUsageError('--stages shapes the rate itself: leave out --rate');
  const durationMs = stages ? stagesDurationMs(stages.stages) : (o.durationMs ?? DEFAULT_DURATION_MS);
  const maxRequests = o.maxRequests ?? DEFAULT_MAX_REQUESTS;
  if (!(durationMs > 0) || !(maxRequests >= 1)) throw new LoadUsageError('a load run needs a positive duration and request count');
  const shard = o.shard;
  if (shard && maxRequests < shard.count) throw new LoadUsageError(`--max-requests ${maxRequests} cannot be split over ${shard.count} shards`);
  const listenAt = o.metricsListen;
  const listen = listenAt !== undefined ? usage(() => parseMetricsListen(listenAt)) : undefined;
  return { params, thresholds, abortThresholds, stages, durationMs, maxRequests, listen };
}

type Profile = ResolvedTarget['profile'];

/** Refuses a target off this machine unless allowed (the nemesis never goes through a proxy), and says when a proxy's figures are part of the run's. */
async function guardReach(o: RunLoadOptions, profile: Profile, embedded: boolean): Promise<void> {
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
}

/** Connections, workers and the load model: this shard's share of them, checked. */
function sizing(o: RunLoadOptions, stages: Stages | undefined, durationMs: number, profile: Profile, embedded: boolean): { connections: number; workers: number; model: LoadModel } {
  const { scenario } = o.scenario;
  const shard = o.shard;
  const open = o.rate !== undefined || stages?.unit === 'rate';
  const rampedConnections = stages?.unit === 'connections' ? peakTarget(stages.stages) : undefined;
  const allConnections = o.connections ?? rampedConnections ?? scenario.defaultConnections ?? (open ? Math.max(DEFAULT_OPEN_CONNECTIONS, profile.connections) : profile.connections);
  // The open model's rate is what is shared; its connections are only a pool, which each shard keeps whole.
  const connections = shard && !open ? shareOf(allConnections, shard.count, shard.index) : allConnections;
  const model = usage(() => modelOf(o.rate, stages, shard, connections, durationMs));
  if (shard && connections < 1) throw new LoadUsageError(`${allConnections} connections cannot be split over ${shard.count} shards (closed model); give --connections at least ${shard.count}`);
  // Embedded: the server keeps the main thread, the load one worker. Remote: use the cores.
  const workers = Math.min(connections, o.workers ?? (embedded ? 1 : Math.max(1, Math.min(4, availableParallelism()))));
  if (!Number.isInteger(connections) || connections < 1) throw new LoadUsageError('--connections must be a positive integer');
  if (!Number.isInteger(workers) || workers < 0) throw new LoadUsageError('--workers must be a non-negative integer');
  return { connections, workers, model };
}

export async function runLoad(o: RunLoadOptions): Promise<RunLoadOutput> {
  const { scenario, url: scenarioUrl } = o.scenario;
  const { params, thresholds, abortThresholds, stages, durationMs, maxRequests, listen } = runShape(o);
  const shard = o.shard;

  return withTarget(o.target, async (target) => {
    const { embedded } = target;
    const profile = o.nemesis ? { ...target.profile, nemesis: o.nemesis } : target.profile;
    await guardReach(o, profile, embedded);
    const { connections, workers, model } = sizing(o, stages, durationMs, profile, embedded);
    const faults = target.reference?.faults;
    if (o.startAt) await sleepUntil(o.startAt.atMs - PRE_START_MS - (o.warmupMs ?? 1000), o.signal);
    // One line naming what to fix (a CA, a client certificate, a proxy's refusal) instead of a run of failed requests.
    if (!embedded) {
      const reach = await probeConnection(profile, profile.timeouts.connectMs);
      if (!reach.ok) throw new TargetUnreachableError(`cannot reach the target ${new URL(profile.baseUrl).origin}: ${reach.reason}`);
    }
    const metrics = listen ? await liveMetrics(listen, scenario.name, shard, o.onMetricsListening) : undefined;
    const result = await executeLoad({
      scenario,
      scenarioUrl,
      params,
      profile,
      model,
      connections,
      workers,
      durationMs,
      maxRequests: shard ? shareOf(maxRequests, shard.count, shard.index) : maxRequests,
      timeoutMs: o.timeoutMs ?? profile.timeouts.requestMs,
      seed: o.seed ?? (Date.now() & 0x7fffffff),
      warmupMs: o.warmupMs,
      thresholds,
      ...(abortThresholds.length > 0 ? { abortThresholds } : {}),
      runId: o.runId ?? loadRunId(scenario.name),
      ...(shard ? { shard } : {}),
      ...(o.startAt ? { startAtMs: o.startAt.atMs, requestedStartMs: o.startAt.requestedMs } : {}),
      target: { url: profile.baseUrl, embedded, ...(faults ? { faults } : {}) },
      ...(o.signal ? { signal: o.signal } : {}),
      onProgress: o.onProgress,
      ...(o.progressEveryMs !== undefined ? { progressEveryMs: o.progressEveryMs } : {}),
      ...(metrics ? { live: metrics.live } : {}),
    })
      .finally(() => metrics?.server.close(METRICS_LINGER_MS))
      .catch((e: Error) => Promise.reject(e instanceof RangeError || e instanceof ScenarioSourceError ? new LoadUsageError(e.message) : e));
    return { result, secrets: profile.secrets };
  }, o);
}

/**
 * `runLoad`: a load run as the command line and `npm start` see it. Chooses the target (a profile,
 * a bare URL, or the embedded reference), refuses non-loopback targets without `allowRemote`,
 * resolves the scenario and its parameters, runs it and writes `reports/<run-id>/` with load.json,
 * load.md and load.html.
 */
import { availableParallelism } from 'node:os';
import { loadScenarioByName } from '../../scenarios/index.ts';
import { executeLoad, type LoadRunResult } from '../load/run.ts';
import { isLoopbackUrl } from '../load/remote.ts';
import { resolveParams, type ParamValue } from '../load/scenario.ts';
import { parseThreshold } from '../load/thresholds.ts';
import { startReference, type RunningReference } from '../reference/index.ts';
import { loadProfile, parseProfile, profileForUrl, type Profile } from '../target/profile.ts';
import { toLoadHtml } from './load-html.ts';
import { toLoadJson } from './load-json.ts';
import { toLoadMarkdown } from './load-md.ts';
import { writeReportDir } from './write.ts';

/** Bad input to a load run: the CLI prints the message as one line and exits 2. */
export class LoadUsageError extends Error {}

export interface RunLoadOptions {
  readonly scenario: string;
  readonly params?: Readonly<Record<string, ParamValue>>;
  /** A profile already loaded, or a profile file, or a bare URL; none of them: the embedded reference. */
  readonly profile?: Profile;
  readonly profilePath?: string;
  readonly target?: string;
  /** Faults of the embedded reference. */
  readonly faults?: readonly string[];
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
  /** Root of the reports; false: write nothing. Default "reports". */
  readonly reportsDir?: string | false;
  readonly runId?: string;
  readonly onProgress?: (line: string) => void;
  /** Aborting ends the run early (Ctrl-C); the partial figures are still reported. */
  readonly signal?: AbortSignal;
}

export interface RunLoadOutput {
  readonly result: LoadRunResult;
  /** The report directory, when written. */
  readonly dir?: string;
  readonly files: readonly string[];
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

/** The three files of a load run, for writing alone or beside another report (`npm start`). */
export function loadReportFiles(r: LoadRunResult): Record<string, string> {
  return { 'load.json': toLoadJson(r), 'load.md': toLoadMarkdown(r), 'load.html': toLoadHtml(r) };
}

function usage<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new LoadUsageError((e as Error).message);
  }
}

export async function runLoad(o: RunLoadOptions): Promise<RunLoadOutput> {
  const found = await loadScenarioByName(o.scenario).catch((e: Error) => {
    throw new LoadUsageError(e.message);
  });
  const params = usage(() => resolveParams(found.scenario, o.params ?? {}));
  const thresholds = usage(() => (o.thresholds ?? []).map(parseThreshold));
  if (o.rate !== undefined && o.rate <= 0) throw new LoadUsageError('--rate must be positive');
  const durationMs = o.durationMs ?? DEFAULT_DURATION_MS;
  const maxRequests = o.maxRequests ?? DEFAULT_MAX_REQUESTS;
  if (!(durationMs > 0) || !(maxRequests >= 1)) throw new LoadUsageError('a load run needs a positive duration and request count');
  if ([o.profile, o.profilePath, o.target].filter((x) => x !== undefined).length > 1) throw new LoadUsageError('give one of --profile and --target, not both');
  if (o.faults?.length && (o.profile || o.profilePath || o.target)) throw new LoadUsageError('faults apply to the embedded reference only');

  let ref: RunningReference | undefined;
  let profile: Profile;
  try {
    if (o.profile) profile = o.profile;
    else if (o.profilePath) profile = await loadProfile(o.profilePath).catch((e: Error) => Promise.reject(new LoadUsageError(e.message)));
    else if (o.target) profile = usage(() => profileForUrl(o.target!));
    else {
      const started = await startReference({ faults: o.faults ?? [] }).catch((e: Error) => Promise.reject(new LoadUsageError(e.message)));
      ref = started;
      profile = parseProfile(started.profile);
    }
    if (!ref && !o.allowRemote && !(await isLoopbackUrl(profile.baseUrl))) {
      throw new LoadUsageError(`${new URL(profile.baseUrl).host} is not on the loopback interface; pass --allow-remote to load it`);
    }
    const connections = o.connections ?? found.scenario.defaultConnections ?? (o.rate ? Math.max(DEFAULT_OPEN_CONNECTIONS, profile.connections) : profile.connections);
    // Embedded: the server keeps the main thread, the load one worker. Remote: use the cores.
    const workers = Math.min(connections, o.workers ?? (ref ? 1 : Math.max(1, Math.min(4, availableParallelism()))));
    if (!Number.isInteger(connections) || connections < 1) throw new LoadUsageError('--connections must be a positive integer');
    if (!Number.isInteger(workers) || workers < 0) throw new LoadUsageError('--workers must be a non-negative integer');
    const runId = o.runId ?? loadRunId(found.scenario.name);
    const result = await executeLoad({
      scenario: found.scenario,
      scenarioUrl: found.url,
      params,
      profile,
      model: o.rate ? { kind: 'open', rate: o.rate } : { kind: 'closed' },
      connections,
      workers,
      durationMs,
      maxRequests,
      timeoutMs: o.timeoutMs ?? profile.timeouts.requestMs,
      seed: o.seed ?? (Date.now() & 0x7fffffff),
      warmupMs: o.warmupMs,
      thresholds,
      runId,
      target: { url: profile.baseUrl, embedded: !!ref, ...(ref ? { faults: ref.faults } : {}) },
      ...(o.signal ? { signal: o.signal } : {}),
      onProgress: o.onProgress,
    }).catch((e: Error) => Promise.reject(e instanceof RangeError ? new LoadUsageError(e.message) : e));
    if (o.reportsDir === false) return { result, files: [] };
    const written = await writeReportDir(o.reportsDir ?? 'reports', runId, loadReportFiles(result), profile.secrets);
    return { result, dir: written.dir, files: written.files };
  } finally {
    await ref?.close();
  }
}

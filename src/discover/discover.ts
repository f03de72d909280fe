/**
 * Reading discovery (`--assume auto`, `pouchproof probe`): before a run, a few requests per
 * assumption tell which reading of each "not shown" the target takes. Stages, because later probes
 * build on earlier answers:
 *
 * 1. a preflight (one plain usage report): a target that is down, stalls or answers garbage ends
 *    discovery at once, every assumption `unknown` with the reason;
 * 2. everything that needs no commit (usage, bodies, access), and the commit base: which JWS form
 *    verifies and whether a fresh pouch id can be committed to;
 * 3. the commit probes, on that base;
 * 4. seq, alone, so that no other probe's commit falls between its own.
 *
 * Probes within a stage run concurrently, within the profile's `connections`. Every probe uses fresh
 * ids and never resets anything, so discovery is safe on a shared target; the master-password probe
 * runs only where the run may change the account. Readings the user fixed (profile or `--assume`)
 * are probed all the same, and kept: a different observation is reported as a mismatch, never
 * silently overridden.
 */
import { performance } from 'node:perf_hooks';
import { DEFAULT_ASSUMPTIONS, readingEntries, type AssumptionName, type Readings } from '../spec/index.ts';
import type { TargetClient } from '../target/client.ts';
import type { Profile } from '../target/profile.ts';
import { probeBrowsers, probeCallerKinds, probeCliRequests, probeCredentials, probeHeadSeq } from './access.ts';
import { probeContentType, probeDuplicateKeys, probeEmptyLists, probeErrorResponse, probeUnknownFields } from './bodies.ts';
import { usageRow } from './build.ts';
import { NO_DEVICE, probeCommitAccess, type CommitBase } from './commit-base.ts';
import { probeChaining, probeConflicts, probeCrossAccount, probeOperationId, probeRevisionUnique, probeSeq } from './commits.ts';
import { DiscoveryEnv, OutOfTime, Scope, answerOf, shortAnswer } from './env.ts';
import { DISCOVERABLE, notObservable, unknown, type ProbeResult } from './result.ts';
import { probeCanonical, probeHighS, probeKidBinding, probeSignatureCallers } from './signatures.ts';
import { NO_USAGE_CALLER, probeCalendar, probeCharacters, probeDayWindow, probeNegative, probeStored } from './usage.ts';

export interface DiscoverOptions {
  /** The target is the embedded reference (the master-password probe may then run). */
  readonly embedded?: boolean;
  /** Readings the user fixed explicitly (profile `assumptions`, `--assume NAME=VALUE`): kept as given. */
  readonly fixed?: Readings;
  /** Per-request time bound (default 5 s, capped by the profile's). */
  readonly requestTimeoutMs?: number;
  /** Bound of the whole discovery (default 30 s). */
  readonly timeLimitMs?: number;
}

export interface Mismatch {
  readonly assumption: AssumptionName;
  readonly fixed: string;
  readonly observed: string;
}

export interface Discovery {
  /** The readings to judge the run under: every reading found, then the fixed ones over them. */
  readonly readings: Readings;
  /** One row per assumption a server decides with alternatives, registry order. */
  readonly table: readonly ProbeResult[];
  readonly fixed: Readings;
  /** Fixed readings the target was seen not to take. */
  readonly mismatches: readonly Mismatch[];
  readonly requests: number;
  readonly durationMs: number;
}

interface Probe {
  readonly covers: readonly AssumptionName[];
  readonly run: (scope: Scope) => Promise<ProbeResult[]>;
}

const probe = (covers: readonly AssumptionName[], run: Probe['run']): Probe => ({ covers, run });

/** Runs one probe; whatever happens, one result per assumption it covers. */
async function runProbe(env: DiscoveryEnv, p: Probe): Promise<ProbeResult[]> {
  const scope = new Scope(env);
  try {
    const out = await p.run(scope);
    const missing = p.covers.filter((n) => !out.some((r) => r.assumption === n));
    return [...out, ...missing.map((n) => unknown(n, 'the probe returned no result for it', scope.evidence))];
  } catch (e) {
    const why = e instanceof OutOfTime ? e.message : `the probe failed: ${env.redact(e instanceof Error ? e.message : String(e))}`;
    return p.covers.map((n) => unknown(n, why, scope.evidence));
  }
}

const runAll = async (env: DiscoveryEnv, probes: readonly Probe[]): Promise<ProbeResult[]> => (await Promise.all(probes.map((p) => runProbe(env, p)))).flat();

/** The same result for every assumption `probes` cover (they cannot run). */
const skipAll = (probes: readonly Probe[], result: (n: AssumptionName) => ProbeResult): ProbeResult[] => probes.flatMap((p) => p.covers.map(result));

export async function discoverReadings(profile: Profile, client: TargetClient, o: DiscoverOptions = {}): Promise<Discovery> {
  const t0 = performance.now();
  const env = new DiscoveryEnv({ profile, client, requestTimeoutMs: o.requestTimeoutMs ?? 5_000, deadline: Date.now() + (o.timeLimitMs ?? 30_000) });
  const results = await probeAll(env, o.embedded ?? false);
  return conclude(results, o.fixed ?? {}, env.requests, performance.now() - t0);
}

const USAGE_PROBES: readonly Probe[] = [
  probe(['usage-stored-meaning', 'usage-row-key'], probeStored),
  probe(['usage-counters-negative'], probeNegative),
  probe(['usage-day-window'], probeDayWindow),
  probe(['day-calendar-valid'], probeCalendar),
  probe(['characters-are-code-points'], probeCharacters),
  probe(['unknown-fields-ignored'], probeUnknownFields),
  probe(['duplicate-keys'], probeDuplicateKeys),
  probe(['content-type-json-only'], probeContentType),
  probe(['caller-kinds'], probeCallerKinds),
];

function commitProbes(base: CommitBase): Probe[] {
  const on = (run: (s: Scope, b: CommitBase) => Promise<ProbeResult[]>) => (s: Scope) => run(s, base);
  return [
    probe(['conflict-behaviour', 'conflict-status', 'batch-atomicity'], on(probeConflicts)),
    probe(['batch-chaining'], on(probeChaining)),
    probe(['revision-id-unique'], on(probeRevisionUnique)),
    probe(['operation-id-idempotency'], on(probeOperationId)),
    probe(['cross-account-isolation'], on(probeCrossAccount)),
    probe(['canonical-json'], on(probeCanonical)),
    probe(['high-s-accepted'], on(probeHighS)),
    probe(['kid-binding'], on(probeKidBinding)),
    probe(['signature-required-callers'], on(probeSignatureCallers)),
  ];
}

/** The commit probes' names, for when there is no base to run them on. */
const COMMIT_NAMES: readonly AssumptionName[] = [
  'conflict-behaviour', 'conflict-status', 'batch-atomicity', 'batch-chaining', 'revision-id-unique', 'operation-id-idempotency',
  'cross-account-isolation', 'canonical-json', 'high-s-accepted', 'kid-binding', 'signature-required-callers', 'seq-semantics',
];

async function probeAll(env: DiscoveryEnv, embedded: boolean): Promise<ProbeResult[]> {
  const pre = new Scope(env);
  const device = env.identity('device') !== undefined;
  let preflight: Awaited<ReturnType<Scope['send']>>;
  try {
    preflight = await pre.send(device ? 'preflight: a plain usage report' : 'preflight: a plain usage report without credentials', {
      endpoint: 'reportUsage',
      params: { sourceId: env.sourceId() },
      body: { rows: [usageRow()] },
      ...(device ? {} : { as: 'anonymous' as const }),
    });
  } catch (e) {
    const why = e instanceof OutOfTime ? e.message : `the preflight failed: ${env.redact(e instanceof Error ? e.message : String(e))}`;
    return DISCOVERABLE.map((n) => unknown(n, why, pre.evidence));
  }
  const answer = answerOf(preflight);
  if (answer === 'inconclusive') {
    const why = `the target did not answer a plain request usably (${shortAnswer(preflight)}); nothing was probed`;
    return DISCOVERABLE.map((n) => unknown(n, env.redact(why), pre.evidence));
  }
  const usageWhy = !device ? NO_USAGE_CALLER : answer === 'refused' ? 'a plain usage report by the device is refused, so no usage probe can tell a reading from that refusal' : undefined;
  const usage = usageWhy ? skipAll(USAGE_PROBES, (n) => (device ? unknown(n, usageWhy, pre.evidence) : notObservable(n, usageWhy))) : undefined;

  let access: Awaited<ReturnType<typeof probeCommitAccess>> | undefined;
  const stage1 = await runAll(env, [
    ...(usage ? [] : USAGE_PROBES),
    probe(['error-response'], probeErrorResponse),
    probe(['credentials-required'], probeCredentials),
    probe(['cli-request-exists'], probeCliRequests),
    probe(['browser-exists'], probeBrowsers),
    probe(['head-seq-semantics'], (s) => probeHeadSeq(s, embedded)),
    probe(['jws-form', 'pouch-existence'], async (s) => {
      access = await probeCommitAccess(s);
      return access.results;
    }),
  ]);
  const base = access?.base;
  const noBase = (n: AssumptionName): ProbeResult => (env.signer() ? unknown(n, access?.why ?? 'the commit base could not be settled') : notObservable(n, NO_DEVICE));
  const emptyLists = probe(['empty-lists'], (s) => probeEmptyLists(s, base));
  if (!base) {
    const stage2 = usageWhy ? [(device ? unknown('empty-lists', usageWhy) : notObservable('empty-lists', usageWhy))] : await runAll(env, [emptyLists]);
    return [...(usage ?? []), ...stage1, ...stage2, ...COMMIT_NAMES.map(noBase)];
  }
  const stage2 = await runAll(env, [...commitProbes(base), ...(usageWhy ? [] : [emptyLists])]);
  const stage3 = await runAll(env, [probe(['seq-semantics'], (s) => probeSeq(s, base))]);
  return [...(usage ?? []), ...stage1, ...stage2, ...stage3, ...(usageWhy ? [(device ? unknown('empty-lists', usageWhy) : notObservable('empty-lists', usageWhy))] : [])];
}

function conclude(results: readonly ProbeResult[], fixed: Readings, requests: number, durationMs: number): Discovery {
  const byName = new Map<AssumptionName, ProbeResult>();
  for (const r of results) if (!byName.has(r.assumption)) byName.set(r.assumption, r);
  const table = DISCOVERABLE.map((n) => byName.get(n) ?? (notObservable(n, 'no probe reveals it')));
  const readings: Record<string, string> = {};
  for (const r of table) if (r.status === 'found') readings[r.assumption] = r.reading;
  const mismatches: Mismatch[] = [];
  for (const [name, value] of readingEntries(fixed)) {
    const r = byName.get(name);
    if (r?.status === 'found' && !r.consistent.some((c) => c === value)) mismatches.push({ assumption: name, fixed: value, observed: r.reading });
    readings[name] = value;
  }
  return { readings: Object.freeze(readings), table, fixed, mismatches, requests, durationMs };
}

/** The readings as NAME=VALUE overrides of the defaults (what differs from the registry). */
export function nonDefault(readings: Readings): Readings {
  const out: Record<string, string> = {};
  for (const [name, value] of readingEntries(readings)) if (DEFAULT_ASSUMPTIONS[name] !== value) out[name] = value;
  return out;
}

/**
 * `pouchproof run`: the conformance suite against a profile, a bare URL, or (with neither) the
 * embedded reference on an ephemeral port. Also exports the pieces `replay`, `mutants` and `start`
 * share: the target from the flags, option parsing, the Ctrl-C handling and report writing.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Argv } from 'yargs';
import type { Property } from '../../check/property.ts';
import { DEFAULT_RUNS, FAIL_ON_KINDS, runProperties, type FailOnKind, type ProgressEvent, type RunOptions, type RunResult } from '../../check/runner.ts';
import { parseDuration } from '../../load/units.ts';

export { DEFAULT_RUNS };
import { selectProperties } from '../../check/select.ts';
import { ConsoleView } from '../../report/console.ts';
import { buildReport, type Report } from '../../report/report-json.ts';
import { writeReports, type WrittenReports } from '../../report/write.ts';
import { DEFAULT_ASSUMPTIONS, resolveAssumptions, type AssumptionName, type Readings, type ReadingsMode } from '../../spec/index.ts';
import { discoverReadings, type Discovery } from '../../check/discover/index.ts';
import { readingsConsoleLines, readingsJson, readingsMarkdown } from '../../report/readings.ts';
import { TargetClient } from '../../target/client.ts';
import { probeConnection } from '../../target/connect-probe.ts';
import type { Profile } from '../../target/profile.ts';
import { chooseTarget, resolveTarget, TargetError, type ResolvedTarget } from '../../target/resolve.ts';
import { UsageError, type CommandModule } from '../command.ts';
import { interruptible } from '../interrupt.ts';

export { interruptible };

export const DEFAULT_REPORT_DIR = 'reports';

/** `--max-duration` when none is given: a run that fits a CI job's step (probe, properties, reports). */
export const DEFAULT_MAX_DURATION = '10m';
/** The readings probe's own bound (discover.ts's default). */
const PROBE_LIMIT_MS = 30_000;

/** The version in pouchproof's package.json: the nearest one up named pouchproof (the sources and the built `dist/` sit at different depths). */
export function toolVersion(): string {
  for (let dir = new URL('.', import.meta.url); ; ) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'pouchproof') return pkg.version ?? '0.0.0';
    } catch {
      // no package.json here: look further up
    }
    const up = new URL('..', dir);
    if (up.href === dir.href) return '0.0.0';
    dir = up;
  }
}

/** Every property of the suite (properties/index.ts). */
export async function loadAllProperties(): Promise<readonly Property[]> {
  const mod = (await import('../../../properties/index.ts')) as { ALL_PROPERTIES: readonly Property[] };
  return mod.ALL_PROPERTIES;
}

/** `--assume` words: `auto`, `defaults`, and NAME=VALUE (repeatable, or comma-separated). */
export function parseAssumeMode(values: readonly string[] | undefined, fallback: ReadingsMode): ReadingsMode {
  const words = (values ?? []).flatMap((v) => String(v).split(',')).map((w) => w.trim());
  if (words.includes('auto') && words.includes('defaults')) throw new UsageError('--assume: give auto or defaults, not both');
  return words.includes('auto') ? 'auto' : words.includes('defaults') ? 'defaults' : fallback;
}

/** `--assume NAME=VALUE` (repeatable, or comma-separated) into an override record (`auto` and `defaults` are modes, not readings). */
export function parseAssume(values: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of (values ?? []).flatMap((v) => String(v).split(','))) {
    const item = raw.trim();
    if (item === '' || item === 'auto' || item === 'defaults') continue;
    const eq = item.indexOf('=');
    if (eq <= 0 || eq === item.length - 1) throw new UsageError(`--assume expects NAME=VALUE, got "${item}"`);
    out[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return out;
}

export function withAssumptions(profile: Profile, overrides: Record<string, string>): Profile {
  if (Object.keys(overrides).length === 0) return profile;
  try {
    return { ...profile, assumptions: resolveAssumptions({ ...profile.assumptions, ...overrides }) };
  } catch (e) {
    throw new UsageError(`--assume: ${(e as Error).message}`);
  }
}

/** Fails with a one-line usage error when nothing listens at the target's host and port. */
export async function preflight(profile: Profile): Promise<void> {
  const p = await probeConnection(profile.baseUrl, profile.timeouts.connectMs);
  if (!p.ok) throw new UsageError(`cannot reach the target ${new URL(profile.baseUrl).origin}: ${p.reason}`);
}

/** `--profile`, `--target` or the embedded reference, with `--assume` applied and, for an outside target, reachable. */
export async function targetFromArgs(argv: { profile?: unknown; target?: unknown; assume?: unknown }): Promise<ResolvedTarget & { readonly fixed: Readings }> {
  const overrides = parseAssume(argv.assume as string[] | undefined);
  const t = await asUsageError(async () =>
    resolveTarget(chooseTarget({
      ...(argv.profile !== undefined ? { profilePath: String(argv.profile) } : {}),
      ...(argv.target !== undefined ? { url: String(argv.target) } : {}),
    })),
  );
  return readyTarget(t, overrides);
}

/** A resolved target with `--assume` overrides applied and, for an outside target, reachable; closed if not. */
export async function readyTarget(t: ResolvedTarget, overrides: Record<string, string>): Promise<ResolvedTarget & { readonly fixed: Readings }> {
  try {
    const profile = withAssumptions(t.profile, overrides);
    if (!t.embedded) await preflight(profile);
    // What the user fixed (the profile's readings that differ from the registry, and --assume): discovery keeps them.
    const fixed = Object.fromEntries(Object.entries(profile.assumptions).filter(([k, v]) => v !== DEFAULT_ASSUMPTIONS[k as keyof typeof DEFAULT_ASSUMPTIONS] || k in overrides)) as Readings;
    return { ...t, profile, fixed };
  } catch (e) {
    await t.close();
    throw e;
  }
}

/** A target the embedded reference serves, for `start` and `mutants`. */
export function embeddedTarget(faults?: readonly string[], readings?: Readings): Promise<ResolvedTarget> {
  return asUsageError(async () => {
    const t = await resolveTarget({ kind: 'embedded', ...(faults ? { faults } : {}), ...(readings ? { readings } : {}) });
    // The reference's readings are the run's: the suite is judged as `--assume auto` would find them.
    return readings ? { ...t, profile: { ...t.profile, assumptions: resolveAssumptions({ ...(t.profile.assumptions as Record<string, string>), ...(readings as Record<string, string>) }) } } : t;
  });
}

async function asUsageError<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof TargetError) throw new UsageError(e.message);
    throw e;
  }
}

export function parseSeed(v: unknown): number {
  if (v === undefined) return randomInt(0, 2 ** 31 - 1);
  const n = typeof v === 'string' && v.trim() === '' ? NaN : Number(v);
  if (!Number.isSafeInteger(n) || n < -(2 ** 31) || n >= 2 ** 31) throw new UsageError(`--seed must be an integer between ${-(2 ** 31)} and ${2 ** 31 - 1}, got ${String(v)}`);
  return n;
}

export function parsePositive(name: string, v: unknown, fallback: number | undefined, max = 1_000_000): number | undefined {
  if (v === undefined) return fallback;
  const n = typeof v === 'string' && v.trim() === '' ? NaN : Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`--${name} must be an integer from 1 to ${max}, got ${String(v)}`);
  return n;
}

export function parseOnly(v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  const list = (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(',')).map((s) => s.trim()).filter(Boolean);
  return list.length ? list : undefined;
}


export interface SuiteArgs {
  readonly target: ResolvedTarget;
  readonly props: readonly Property[];
  readonly seed: number;
  readonly runs: number;
  readonly only?: string[];
  readonly perRequestMs?: number;
  readonly perPropertyMs?: number;
  /** The run's time budget (see `RunOptions.maxDurationMs`). */
  readonly maxDurationMs?: number;
  readonly signal?: AbortSignal;
  readonly view?: ConsoleView;
  readonly extra?: Partial<RunOptions>;
  /** `--fail-on`: kinds of finding that fail the run besides violations and server errors. */
  readonly failOn?: readonly FailOnKind[];
}

export async function runSuite(a: SuiteArgs): Promise<RunResult> {
  return runProperties(a.target.profile, a.props, {
    seed: a.seed,
    runs: a.runs,
    only: a.only,
    perRequestMs: a.perRequestMs,
    perPropertyMs: a.perPropertyMs,
    ...(a.maxDurationMs !== undefined ? { maxDurationMs: a.maxDurationMs } : {}),
    signal: a.signal,
    embedded: a.target.embedded,
    onProgress: a.view?.onProgress,
    ...(a.failOn?.length ? { failOn: a.failOn } : {}),
    ...a.extra,
  });
}

export function reportOf(a: SuiteArgs, run: RunResult, more: { load?: unknown; mutants?: unknown; readings?: unknown } = {}): Report {
  const p = a.target.profile;
  return buildReport(run, {
    version: toolVersion(),
    targetName: p.name,
    embedded: a.target.embedded,
    ...(a.target.reference?.faults.length ? { faults: a.target.reference.faults } : {}),
    runs: a.runs,
    only: a.only,
    perRequestMs: a.perRequestMs,
    perPropertyMs: a.perPropertyMs,
    ...(a.maxDurationMs !== undefined ? { maxDurationMs: a.maxDurationMs } : {}),
    ...(a.failOn?.length ? { failOn: a.failOn } : {}),
    assumptions: p.assumptions,
    properties: a.props,
    secrets: p.secrets,
    ...more,
  });
}

export async function saveReport(reportDir: string, report: Report, secrets: readonly string[], extra: Record<string, string> = {}): Promise<WrittenReports> {
  try {
    return await writeReports(reportDir, report, secrets, extra);
  } catch (e) {
    throw new UsageError(`cannot write the reports to ${reportDir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The options `run` and `start` share. */
export function suiteOptions(y: Argv): Argv {
  return y
    .option('seed', { type: 'string', requiresArg: true, describe: 'seed for every generator (default: random, printed)' })
    .option('runs', { type: 'string', requiresArg: true, describe: `cases per property (default ${DEFAULT_RUNS}; some properties run fewer)` })
    .option('only', { type: 'string', array: true, describe: 'property id globs, e.g. usage.* (repeatable or comma-separated)' })
    .option('report-dir', { type: 'string', default: DEFAULT_REPORT_DIR, describe: 'where reports/<run-id>/ and reports/latest go' })
    .option('assume', { type: 'string', array: true, describe: 'readings of what the spec does not show: auto (default: probe the target first), defaults (the registry\'s), or NAME=VALUE (repeatable; fixed whatever auto finds)' })
    .option('per-request-ms', { type: 'string', requiresArg: true, describe: 'time bound of one request (default: the profile\'s timeouts.requestMs)' })
    .option('per-property-ms', { type: 'string', requiresArg: true, describe: 'time bound of one property (default 30000)' })
    .option('max-duration', { type: 'string', requiresArg: true, describe: `overall time budget of the run, e.g. 90s or 10m (default ${DEFAULT_MAX_DURATION}): shared out over the properties left; what it leaves uncovered is listed` })
    .option('fail-on', { type: 'string', array: true, describe: `also fail the run (exit 1) on findings of these kinds, reported apart otherwise: ${FAIL_ON_KINDS.join(', ')}` });
}

/** `--fail-on KIND` (repeatable, or comma-separated): kinds of finding that also fail the run. */
export function parseFailOn(v: unknown): FailOnKind[] | undefined {
  if (v === undefined) return undefined;
  const words = (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(',')).map((s) => s.trim()).filter(Boolean);
  const bad = words.filter((w) => !(FAIL_ON_KINDS as readonly string[]).includes(w));
  if (bad.length || words.length === 0) throw new UsageError(`--fail-on expects ${FAIL_ON_KINDS.join(', ')}; got "${bad.join(',') || String(v)}"`);
  return [...new Set(words as FailOnKind[])];
}

export interface ParsedSuiteArgs {
  /** `auto`: the target's readings are probed before the properties run, and the run is judged under them. */
  readings: ReadingsMode;
  seed: number;
  runs: number;
  only?: string[];
  reportDir: string;
  perRequestMs?: number;
  perPropertyMs?: number;
  /** The whole run's time budget (probe and properties). */
  maxDurationMs: number;
  /** `--fail-on`: kinds of finding (besides violations and server errors) that fail the run. */
  failOn?: FailOnKind[];
}

/** `--max-duration` as the load command's durations are written (30s, 500ms, 2m). */
export function parseMaxDuration(v: unknown): number {
  const text = v === undefined ? DEFAULT_MAX_DURATION : String(v);
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (e) {
    throw new UsageError(`--max-duration: ${(e as Error).message}`);
  }
  if (ms < 1000 || ms > 24 * 3_600_000) throw new UsageError(`--max-duration must be from 1s to 1440m, got ${text}`);
  return ms;
}

export function parseSuiteArgs(argv: Record<string, unknown>): ParsedSuiteArgs {
  const perRequestMs = parsePositive('per-request-ms', argv['per-request-ms'], undefined, 600_000);
  const perPropertyMs = parsePositive('per-property-ms', argv['per-property-ms'], undefined, 3_600_000);
  const only = parseOnly(argv.only);
  const failOn = parseFailOn(argv['fail-on']);
  return {
    readings: parseAssumeMode(argv.assume as string[] | undefined, 'auto'),
    seed: parseSeed(argv.seed),
    runs: parsePositive('runs', argv.runs, DEFAULT_RUNS, 100_000)!,
    ...(only ? { only } : {}),
    reportDir: typeof argv['report-dir'] === 'string' && argv['report-dir'] !== '' ? argv['report-dir'] : DEFAULT_REPORT_DIR,
    ...(perRequestMs ? { perRequestMs } : {}),
    ...(perPropertyMs ? { perPropertyMs } : {}),
    maxDurationMs: parseMaxDuration(argv['max-duration']),
    ...(failOn ? { failOn } : {}),
  };
}

/**
 * Under `--assume auto`, the target's readings, probed before the suite: the run is then judged under
 * what the target was seen to do where the spec is silent (what the user fixed stays fixed).
 */
export async function discovered(
  target: ResolvedTarget & { readonly fixed?: Readings },
  line: (text: string) => void,
  bounds: { readonly timeLimitMs: number; readonly requestTimeoutMs?: number },
): Promise<{ target: ResolvedTarget; discovery: Discovery }> {
  const client = new TargetClient(target.profile);
  try {
    const fixed = target.fixed ?? {};
    const discovery = await discoverReadings(target.profile, client, { embedded: target.embedded, fixed, ...bounds });
    for (const l of readingsConsoleLines(discovery)) line(l);
    const assumptions = resolveAssumptions({ ...(discovery.readings as Record<string, string>), ...(fixed as Record<string, string>) });
    return { target: { ...target, profile: { ...target.profile, assumptions } }, discovery };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The readings the probe could not identify (and the user did not fix): judgements resting on them are unknown. */
export function unidentified(d: Discovery): ReadonlyMap<AssumptionName, string> {
  return new Map(d.table.filter((r) => r.status === 'unknown' && d.fixed[r.assumption] === undefined).map((r) => [r.assumption, r.status === 'unknown' ? r.why : ''] as const));
}

/** What the caller of `conformance` sees of it: where its lines go, its progress, its stop signal, and what runs after the suite. */
export interface ConformanceHooks {
  readonly line: (text: string) => void;
  readonly onProgress?: (e: ProgressEvent) => void;
  readonly signal?: AbortSignal;
  /** Runs after the suite unless it was stopped (`start`'s load run): what it returns joins the report. */
  readonly after?: (run: RunResult, signal: AbortSignal | undefined) => Promise<{ load?: unknown; files?: Record<string, string> } | undefined>;
}

export interface ConformanceRun {
  readonly run: RunResult;
  readonly report: Report;
  /** The profile the run was judged under (readings included), whose secrets the reports mask. */
  readonly profile: Profile;
  /** Report files besides the standard ones (`readings.md`, and the `after` hook's). */
  readonly files: Record<string, string>;
}

/** The readings probe (under `auto`), then the suite: the report, written nowhere (the CLI and the library API share it). */
export async function conformance(given: ResolvedTarget & { readonly fixed?: Readings }, a: ParsedSuiteArgs, h: ConformanceHooks): Promise<ConformanceRun> {
  const props = await loadAllProperties();
  if (a.only && selectProperties(props, a.only).length === 0) throw new UsageError(`--only ${a.only.join(',')} matches no property; see pouchproof list`);
  const started = Date.now();
  // The probe takes at most a quarter of the budget (and its own 30 s bound), so the properties keep the rest.
  const probeBounds = { timeLimitMs: Math.min(PROBE_LIMIT_MS, Math.floor(a.maxDurationMs / 4)), ...(a.perRequestMs ? { requestTimeoutMs: a.perRequestMs } : {}) };
  const { target, discovery } = a.readings === 'auto' ? await discovered(given, h.line, probeBounds) : { target: given, discovery: undefined };
  const where = target.embedded ? `the embedded reference at ${target.profile.baseUrl}` : `${target.profile.name} (${target.profile.baseUrl})`;
  h.line(`pouchproof: ${where}, seed ${a.seed}, ${a.runs} runs per property`);
  const args: SuiteArgs = { target, props, seed: a.seed, runs: a.runs, only: a.only, perRequestMs: a.perRequestMs, perPropertyMs: a.perPropertyMs, maxDurationMs: a.maxDurationMs, ...(h.signal ? { signal: h.signal } : {}), ...(a.failOn ? { failOn: a.failOn } : {}) };
  // The probe's time comes out of the budget: it counts from before the probe.
  const unknownReadings = discovery ? unidentified(discovery) : undefined;
  const run = await runSuite({ ...args, extra: { budgetFrom: started, ...(h.onProgress ? { onProgress: h.onProgress } : {}), ...(unknownReadings?.size ? { unknownReadings } : {}) } });
  const more = h.after && !h.signal?.aborted ? await h.after(run, h.signal) : undefined;
  const { files, ...extra } = more ?? {};
  const report = reportOf(args, run, { ...extra, ...(discovery ? { readings: readingsJson(discovery) } : {}) });
  return { run, report, profile: target.profile, files: { ...(discovery ? { 'readings.md': readingsMarkdown(discovery) } : {}), ...files } };
}

/** Runs the suite with a console view and writes the reports; resolves to the exit code. */
export async function runAndReport(
  given: ResolvedTarget & { readonly fixed?: Readings },
  a: ParsedSuiteArgs,
  after?: (run: RunResult, signal: AbortSignal, view: ConsoleView) => Promise<{ load?: unknown; files?: Record<string, string> } | undefined>,
): Promise<number> {
  const view = new ConsoleView({ out: process.stdout });
  const intr = interruptible();
  try {
    const { run, report, profile, files } = await conformance(given, a, {
      line: (l) => view.line(l),
      onProgress: view.onProgress,
      signal: intr.signal,
      ...(after ? { after: (r: RunResult) => after(r, intr.signal, view) } : {}),
    });
    let written;
    try {
      written = await saveReport(a.reportDir, report, profile.secrets, files);
    } catch (e) {
      view.summary(report);
      throw e;
    }
    view.summary(report, written.dir);
    if (run.interrupted || intr.signal.aborted) return 130;
    if (run.results.length > 0 && run.results.every((r) => r.status === 'skipped')) {
      // A green exit for a run that checked nothing would let a misconfigured CI job pass forever.
      process.stderr.write('pouchproof: nothing was checked: every property was skipped (see the reasons above; a profile with credentials is needed)\n');
      return 2;
    }
    return run.exitCode;
  } finally {
    intr.dispose();
  }
}

const run: CommandModule = {
  describe: 'run the conformance suite against a target (default: the embedded reference)',
  examples: [
    ['pouchproof run', 'the whole suite against the embedded reference'],
    ["pouchproof run --profile staging.json --seed 42 --only 'commits.*' --report-dir out", 'commit properties against staging, reproducibly'],
  ],
  builder: (y) =>
    suiteOptions(
      y
        .option('profile', { type: 'string', describe: 'target profile JSON file' })
        .option('target', { type: 'string', describe: 'base URL of a target without credentials (properties needing them are skipped)' }),
    ),
  async handler(argv) {
    const parsed = parseSuiteArgs(argv);
    const target = await targetFromArgs(argv);
    try {
      return await runAndReport(target, parsed);
    } finally {
      await target.close();
    }
  },
};
export default run;

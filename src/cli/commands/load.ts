import { parseNemesis, type NemesisPlan } from '../../target/nemesis/index.ts';
import { loadNemesisLine } from '../../report/nemesis.ts';
import type { Argv } from 'yargs';
import { asUsage, defineCommand, UsageError, type FlagsOf } from '../command.ts';
import { oneLineErrors } from '../one-line-errors.ts';
import { interruptible } from '../interrupt.ts';
import { SCENARIO_NAMES, loadScenario } from '../../../scenarios/index.ts';
import {
  LoadUsageError,
  loadRunId,
  type RunLoadOptions,
  parseDuration,
  parseRate,
  parseShard,
  parseStartAt,
  shardSuffix,
  type ShardSpec,
  type StartAt,
  formatShardBlocks,
  parseThreshold,
  BaselineError,
  ThresholdError,
  prepareGates,
  runGated,
  abortLine,
} from '../../load/index.ts';
import {
  loadReportFiles,
  writeLoadReport,
  shardReportFiles,
  latencyScope,
  ms,
  thresholdName,
  capacityConsole,
  baselineConsole,
} from '../../report/load/index.ts';
import { writeReportDir } from '../../report/write.ts';
import { EMBEDDED_REFERENCE } from '../../reference/embedded.ts';
import { redact } from '../../target/redact.ts';
import { chooseTarget, REFERENCE_TARGET, TargetError } from '../../target/resolve.ts';
import { checkTargetFlags, referenceOption } from '../ci.ts';
import { numberOption } from '../args.ts';
import { assertReportDir, checkSeed } from '../../session/index.ts';
import { errorMessage } from '../../spec/index.ts';
import { loadExitCode } from '../../check/run/index.ts';

/** `--param name=value`, repeated, as raw values for the scenario's declarations to check. */
export function parseParams(list: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list) {
    const i = item.indexOf('=');
    if (i <= 0) throw new UsageError(`--param expects name=value, got "${item}"`);
    out[item.slice(0, i)] = item.slice(i + 1);
  }
  return out;
}

/** The options of `load`. */
function loadOptions(y: Argv) {
  return referenceOption(
    y
      .option('scenario', { type: 'string', demandOption: true, describe: `the scenario to run: ${SCENARIO_NAMES.join(', ')}, or a file of your own (./my-scenario.ts, .js, .mjs; docs/load.md)` })
      .option('profile', { type: 'string', describe: 'target profile file (credentials, device key)' })
      .option('target', { type: 'string', describe: `target base URL, without credentials, or ${REFERENCE_TARGET}` }),
  )
    .option('duration', { type: 'string', describe: 'how long to measure (e.g. 30s, 500ms, 2m; default 30s); with --find-capacity the whole search\'s budget (default 2m)' })
    .option('max-requests', numberOption('stop after this many requests as well'))
    .option('rate', { type: 'string', describe: 'open model: requests per second (e.g. 500/s); latency counts from each request\'s intended send time' })
    .option('stages', { type: 'string', describe: "a load shape, rate or connections moving linearly within each stage: '30s:100/s,2m:1000/s,30s:0/s' (open model) or '30s:10c,1m:10c' (closed); sets the duration" })
    .option('connections', numberOption('connections (closed model: each sends as fast as it can)'))
    .option('workers', numberOption('worker threads generating load (0: the main thread)'))
    .option('threshold', { type: 'string', array: true, default: [], describe: "e.g. 'p99<50ms', 'errors<0.1%', 'goodput>2000/s'; relative to --baseline: 'p99<+10%', 'goodput>-5%', 'errors<+0.5pp'; broken → exit 1; ':abort' or ':abort-after=30s' ends the run as soon as it breaks" })
    .option('find-capacity', { type: 'string', describe: "search the highest open-model rate within this objective, e.g. 'p99<50ms' or 'p99<50ms,errors<0.1%' (errors<1% unless given); --rate is the start rate" })
    .option('max-rate', { type: 'string', describe: 'capacity search: the highest rate tried (e.g. 5000/s)' })
    .option('step-duration', { type: 'string', describe: 'capacity search: how long each rate is measured (default 5s)' })
    .option('baseline', { type: 'string', describe: 'a stored load.json (or its run directory) to compare this run with' })
    .option('param', { type: 'string', array: true, default: [], describe: 'scenario parameter name=value (repeatable)' })
    .option('fault', { type: 'string', array: true, default: [], describe: 'embedded reference only (it names the reference, under CI too): switch on a named fault' })
    .option('allow-remote', { type: 'boolean', default: false, describe: 'allow a target that is not on the loopback interface' })
    .option('seed', numberOption('seed of the body generator'))
    .option('nemesis', { type: 'string', requiresArg: true, describe: 'faults on the engine\'s own connections, seeded, with retries after no answer, e.g. lose-response=2%,reset-mid-request=1% (docs/nemesis.md)' })
    .option('report-dir', { type: 'string', describe: 'where reports/<run-id>/ and reports/latest go (default: reports)' })
    // The old spelling of --report-dir: still read, hidden from --help, with a warning.
    .option('reports', { type: 'string', hidden: true, deprecated: 'use --report-dir' })

    .option('shard', { type: 'string', describe: "run shard I of N (0-based, e.g. 0/4): its share of the rate or connections, its own identifiers; writes shard.json and shard.hlog for 'load merge', which judges the thresholds" })
    .option('start-at', { type: 'string', describe: 'start measuring at this time (ISO with zone, or epoch ms; at most 1 h ahead), shared by the shards' })
    .option('print-shard', { type: 'boolean', default: false, describe: "also print the shard files to stdout between markers, for 'kubectl logs' to collect" })
    .option('metrics-listen', { type: 'string', describe: 'serve live Prometheus metrics at HOST:PORT/metrics while the run lasts (e.g. 127.0.0.1:9464; :9464 for every interface)' });
}

/** `pouchproof load`: one load scenario against a target, or against the embedded reference. */
const load = defineCommand({
  describe: 'run a load scenario',
  examples: [
    ['pouchproof load --scenario commit-throughput --duration 30s --reference', 'against the embedded reference (without a target too, except under CI)'],
    ["pouchproof load --scenario commit-throughput --profile staging.json --rate 500/s --threshold 'p99<50ms'", 'open model at 500 req/s; exit 1 when p99 breaks 50 ms'],
    ['pouchproof load --scenario ./examples/mixed-commits.ts --param pouches=100 --reference', 'a scenario of your own, made with defineScenario'],
  ],
  builder: loadOptions,
  // Bad input is reported as one line with exit code 4 before anything is started; a target not reached, exit 3.
  handler: oneLineErrors((argv) => handle(argv), [UsageError, LoadUsageError, TargetError, BaselineError, ThresholdError]),
});

/** `--nemesis SPEC` as a plan; a SPEC pouchproof cannot read is bad input (exit 4). */
function nemesisPlanOf(spec: string): NemesisPlan {
  try {
    return parseNemesis(spec);
  } catch (e) {
    throw new UsageError(`--nemesis: ${errorMessage(e)}`);
  }
}

/** `--report-dir`, or the deprecated `--reports` with a warning when it is the one given. */
function reportDirOf(argv: { readonly 'report-dir'?: string | undefined; readonly reports?: string | undefined }): string {
  if (typeof argv['reports'] === 'string') process.stderr.write('pouchproof: --reports is deprecated; use --report-dir (as run, start, compare and mutants do)\n');
  const dir = argv['report-dir'] ?? argv['reports'];
  return typeof dir === 'string' && dir !== '' ? dir : 'reports';
}

/** What the flags do not say about a run: the scenario and target already resolved, the shard, the thresholds judged in this process. */
interface RunParts {
  readonly scenario: RunLoadOptions['scenario'];
  readonly target: RunLoadOptions['target'];
  readonly shard: ShardSpec | undefined;
  readonly startAt: StartAt | undefined;
  readonly thresholds: readonly string[];
  /** Those a shard judges on its own share, to stop early. */
  readonly abortThresholds: readonly string[];
}

/** The engine's options from the flags; a malformed duration, rate or seed is a usage error. */
function runOptionsOf(argv: FlagsOf<typeof loadOptions>, run: RunParts): RunLoadOptions {
  const { duration, rate } = argv;
  const { shard } = run;
  return {
    scenario: run.scenario,
    target: run.target,
    startEmbedded: EMBEDDED_REFERENCE.startEmbedded,
    params: parseParams(argv.param),
    ...(duration !== undefined ? { durationMs: asUsage(() => parseDuration(duration)) } : {}),
    ...(argv['max-requests'] !== undefined ? { maxRequests: argv['max-requests'] } : {}),
    ...(rate !== undefined ? { rate: asUsage(() => parseRate(rate)) } : {}),
    ...(argv['stages'] !== undefined ? { stages: argv.stages } : {}),
    ...(argv['connections'] !== undefined ? { connections: argv.connections } : {}),
    ...(argv['workers'] !== undefined ? { workers: argv.workers } : {}),
    thresholds: run.thresholds,
    // A shard judges its own share against the abort thresholds; its verdict is the merge's.
    ...(shard ? { abortThresholds: run.abortThresholds } : {}),
    ...(shard ? { shard, runId: `${loadRunId(run.scenario.scenario.name)}-${shardSuffix(shard)}` } : {}),
    ...(run.startAt ? { startAt: run.startAt } : {}),
    allowRemote: argv['allow-remote'],
    ...(argv['seed'] !== undefined ? { seed: checkSeed(argv.seed) } : {}),
    onProgress: (line) => process.stdout.write(`${line}\n`),
    ...(argv['nemesis'] !== undefined ? { nemesis: nemesisPlanOf(argv.nemesis) } : {}),
    ...(argv['metrics-listen'] !== undefined ? { metricsListen: argv['metrics-listen'], onMetricsListening: (url: string) => process.stdout.write(`live metrics at ${url}\n`) } : {}),
  };
}

/** The run in a few console lines: rates, latency, failures, checks, thresholds, gates, and where the report is. */
function consoleLines(r: Awaited<ReturnType<typeof runGated>>['result'], dir: string, shard: ShardSpec | undefined): string[] {
  return [
    `${r.totals.sent} requests in ${(r.totals.wallMs / 1000).toFixed(1)} s: ${r.rates.rps.toFixed(1)} req/s, ${r.rates.okPerSecond.toFixed(1)} succeeded/s, goodput ${r.rates.goodput.toFixed(1)} ${r.unit}/s`,
    `latency ms: p50 ${ms(r.latency.p50)}  p90 ${ms(r.latency.p90)}  p99 ${ms(r.latency.p99)}  p99.9 ${ms(r.latency.p999)}  max ${ms(r.latency.max)}`,
    latencyScope(r),
    `not succeeded: ${r.totals.notOk}${Object.keys(r.reasons).length ? ` (${Object.entries(r.reasons).map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}; error rate ${(r.errorRate * 100).toFixed(3)}%`,
    ...r.checks.map((c) => `check ${c.passed ? 'passed' : 'FAILED'}: ${c.name} — ${c.message}`),
    ...r.thresholds.map((t) => `threshold ${t.passed ? 'passed' : 'BROKEN'}: ${thresholdName(t)} (actual ${t.actualText})`),
    `generator: ${r.generator.note}`,
    ...(r.nemesis ? [`nemesis: ${loadNemesisLine(r)}`] : []),
    ...baselineConsole(r),
    ...capacityConsole(r),
    `report: ${dir}/load.html`,
    ...(r.failedBecause ? [`FAILED: ${r.failedBecause}`] : []),
    ...(r.interrupted ? ['interrupted: the figures cover the part that ran'] : []),
    ...(r.aborted ? [`ended early: ${abortLine(r.aborted)}; the figures cover the part that ran`] : []),
    ...(shard ? [`shard ${shard.index}/${shard.count}: thresholds and the verdict are judged on the whole by 'pouchproof load merge'`] : []),
  ];
}

async function handle(argv: FlagsOf<typeof loadOptions>): Promise<number> {
  const reportDir = reportDirOf(argv);
  await assertReportDir(reportDir);
  const scenario = await loadScenario(argv.scenario).catch((e: Error) => Promise.reject(new UsageError(e.message)));
  const target = chooseTarget({
    ...(argv['profile'] !== undefined ? { profilePath: argv.profile } : {}),
    ...(argv['target'] !== undefined ? { url: argv.target } : {}),
    faults: argv.fault.flatMap((f) => f.split(',')).map((f) => f.trim()).filter(Boolean),
  });
  const { shard: shardArg, 'start-at': startAtArg, 'max-rate': maxRate, 'step-duration': stepDuration, duration } = argv;
  const shard = shardArg !== undefined ? asUsage(() => parseShard(shardArg)) : undefined;
  const startAt = startAtArg !== undefined ? asUsage(() => parseStartAt(startAtArg, Date.now())) : undefined;
  if (argv['print-shard'] && !shard) throw new UsageError('--print-shard needs --shard I/N');
  const thresholdSources = argv.threshold;
  // A shard's throughput is a share, so thresholds are judged on the merge; checked here, though.
  if (shard) asUsage(() => thresholdSources.map(parseThreshold));
  if (startAt?.warning) process.stderr.write(`pouchproof: ${startAt.warning}\n`);
  const gates = await prepareGates(scenario.scenario.name, {
    thresholds: argv.threshold,
    ...(argv['baseline'] !== undefined ? { baseline: argv.baseline } : {}),
    ...(argv['find-capacity'] !== undefined ? { findCapacity: argv['find-capacity'] } : {}),
    ...(maxRate !== undefined ? { maxRate: asUsage(() => parseRate(maxRate)) } : {}),
    ...(stepDuration !== undefined ? { stepMs: asUsage(() => parseDuration(stepDuration)) } : {}),
  });
  if (shard && (gates.capacity || argv['baseline'] !== undefined)) {
    throw new UsageError("--shard measures a share of the load: --find-capacity and --baseline judge a whole run (merge the shards with 'pouchproof load merge' first)");
  }
  const opts = runOptionsOf(argv, { scenario, target, shard, startAt, thresholds: shard ? [] : gates.absolute, abortThresholds: gates.absolute.filter((t) => /:\s*abort/.test(t)) });
  // Last of the checks, so that bad input is named as such under CI too; a `--fault` names the reference on purpose.
  const faulted = target.kind === 'embedded' && (target.faults?.length ?? 0) > 0;
  checkTargetFlags('load', faulted ? { reference: true } : argv);
  const what = gates.capacity ? `capacity search within ${gates.capacity.objective}` : argv['stages'] !== undefined ? `in stages ${argv.stages}` : `for ${duration ?? '30s'}`;
  process.stdout.write(`pouchproof load: ${scenario.scenario.name} ${what}${target.kind === 'embedded' ? ' against the embedded reference' : ''}\n`);
  const intr = interruptible();
  let out: Awaited<ReturnType<typeof runGated>>;
  try {
    out = await runGated({ ...opts, signal: intr.signal }, gates);
  } finally {
    intr.dispose();
  }
  const r = out.result;
  const shardFiles = shard ? shardReportFiles(r, thresholdSources) : {};
  const written = shard
    ? await writeReportDir(reportDir, r.runId, { ...loadReportFiles(r), ...shardFiles }, out.secrets)
    : await writeLoadReport(reportDir, r, out.secrets);
  process.stdout.write(consoleLines(r, written.dir, shard).join('\n') + '\n');
  if (argv['print-shard'] && shard) process.stdout.write(redact(formatShardBlocks(`${shard.index}/${shard.count}`, shardFiles), out.secrets));
  if (r.interrupted) return 130;
  // A shard measures a share of the load: it is judged when the shards are merged (load merge).
  return shard ? 0 : loadExitCode(r);
}
export default load;

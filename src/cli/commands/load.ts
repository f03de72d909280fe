import type { Argv } from 'yargs';
import { UsageError, type CommandModule } from '../command.ts';
import { interruptible } from '../interrupt.ts';
import { SCENARIO_NAMES, loadScenarioByName } from '../../../scenarios/index.ts';
import { LoadUsageError, type RunLoadOptions } from '../../load/launch.ts';
import { parseDuration, parseRate } from '../../load/units.ts';
import { writeLoadReport } from '../../report/load-report.ts';
import { BaselineError } from '../../load/baseline.ts';
import { ThresholdError } from '../../load/thresholds.ts';
import { capacityConsole } from '../../report/load-capacity.ts';
import { baselineConsole } from '../../report/load-baseline.ts';
import { prepareGates, runGated } from '../../load/gates.ts';
import { ms } from '../../report/load-md.ts';
import { chooseTarget, TargetError } from '../../target/resolve.ts';

function parseParams(list: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list) {
    const i = item.indexOf('=');
    if (i <= 0) throw new UsageError(`--param expects name=value, got "${item}"`);
    out[item.slice(0, i)] = item.slice(i + 1);
  }
  return out;
}

function wrap<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** `pouchproof load`: one load scenario against a target, or against the embedded reference. */
const load: CommandModule = {
  describe: 'run a load scenario',
  builder: (y: Argv) =>
    y
      .option('scenario', { type: 'string', choices: SCENARIO_NAMES, demandOption: true, describe: 'the scenario to run' })
      .option('profile', { type: 'string', describe: 'target profile file (credentials, device key)' })
      .option('target', { type: 'string', describe: 'target base URL, without credentials' })
      .option('duration', { type: 'string', describe: 'how long to measure (e.g. 30s, 500ms, 2m; default 30s); with --find-capacity the whole search\'s budget (default 2m)' })
      .option('max-requests', { type: 'number', describe: 'stop after this many requests as well' })
      .option('rate', { type: 'string', describe: 'open model: requests per second (e.g. 500/s); latency counts from each request\'s intended send time' })
      .option('connections', { type: 'number', describe: 'connections (closed model: each sends as fast as it can)' })
      .option('workers', { type: 'number', describe: 'worker threads generating load (0: the main thread)' })
      .option('threshold', { type: 'string', array: true, default: [], describe: "e.g. 'p99<50ms', 'errors<0.1%', 'goodput>2000/s'; relative to --baseline: 'p99<+10%', 'goodput>-5%', 'errors<+0.5pp'; broken → exit 1" })
      .option('find-capacity', { type: 'string', describe: "search the highest open-model rate within this objective, e.g. 'p99<50ms' or 'p99<50ms,errors<0.1%' (errors<1% unless given); --rate is the start rate" })
      .option('max-rate', { type: 'string', describe: 'capacity search: the highest rate tried (e.g. 5000/s)' })
      .option('step-duration', { type: 'string', describe: 'capacity search: how long each rate is measured (default 5s)' })
      .option('baseline', { type: 'string', describe: 'a stored load.json (or its run directory) to compare this run with' })
      .option('param', { type: 'string', array: true, default: [], describe: 'scenario parameter name=value (repeatable)' })
      .option('fault', { type: 'string', array: true, default: [], describe: 'embedded reference only: switch on a named fault' })
      .option('allow-remote', { type: 'boolean', default: false, describe: 'allow a target that is not on the loopback interface' })
      .option('seed', { type: 'number', describe: 'seed of the body generator' })
      .option('reports', { type: 'string', default: 'reports', describe: 'directory the run report goes under' }),
  async handler(argv) {
    // Bad input is reported here, as one line with exit code 2, before anything is started.
    try {
      return await handle(argv);
    } catch (e) {
      if (!(e instanceof UsageError || e instanceof LoadUsageError || e instanceof TargetError || e instanceof BaselineError || e instanceof ThresholdError)) throw e;
      process.stderr.write(`pouchproof: ${e.message.replace(/[\r\n]+/g, ' ')}\n`);
      return 2;
    }
  },
};

async function handle(argv: Record<string, unknown>): Promise<number> {
  const scenario = await loadScenarioByName(argv['scenario'] as string).catch((e: Error) => Promise.reject(new UsageError(e.message)));
  const target = chooseTarget({
    ...(argv['profile'] !== undefined ? { profilePath: argv['profile'] as string } : {}),
    ...(argv['target'] !== undefined ? { url: argv['target'] as string } : {}),
    faults: (argv['fault'] as string[]).flatMap((f) => f.split(',')).map((f) => f.trim()).filter(Boolean),
  });
  const gates = await prepareGates(scenario.scenario.name, {
    thresholds: argv['threshold'] as string[],
    ...(argv['baseline'] !== undefined ? { baseline: argv['baseline'] as string } : {}),
    ...(argv['find-capacity'] !== undefined ? { findCapacity: argv['find-capacity'] as string } : {}),
    ...(argv['max-rate'] !== undefined ? { maxRate: wrap(() => parseRate(argv['max-rate'] as string)) } : {}),
    ...(argv['step-duration'] !== undefined ? { stepMs: wrap(() => parseDuration(argv['step-duration'] as string)) } : {}),
  });
  const opts: RunLoadOptions = {
    scenario,
    target,
    params: parseParams(argv['param'] as string[]),
    ...(argv['duration'] !== undefined ? { durationMs: wrap(() => parseDuration(argv['duration'] as string)) } : {}),
    ...(argv['max-requests'] !== undefined ? { maxRequests: argv['max-requests'] as number } : {}),
    ...(argv['rate'] !== undefined ? { rate: wrap(() => parseRate(argv['rate'] as string)) } : {}),
    ...(argv['connections'] !== undefined ? { connections: argv['connections'] as number } : {}),
    ...(argv['workers'] !== undefined ? { workers: argv['workers'] as number } : {}),
    thresholds: gates.absolute,
    allowRemote: argv['allow-remote'] as boolean,
    ...(argv['seed'] !== undefined ? { seed: argv['seed'] as number } : {}),
    onProgress: (line) => process.stdout.write(`${line}\n`),
  };
  const what = gates.capacity ? `capacity search within ${gates.capacity.objective}` : `for ${(argv['duration'] as string | undefined) ?? '30s'}`;
  process.stdout.write(`pouchproof load: ${scenario.scenario.name} ${what}${target.kind === 'embedded' ? ' against the embedded reference' : ''}\n`);
  const intr = interruptible();
  let out;
  try {
    out = await runGated({ ...opts, signal: intr.signal }, gates);
  } finally {
    intr.dispose();
  }
  const written = await writeLoadReport(argv['reports'] as string, out.result, out.secrets);
  const r = out.result;
  const lines = [
    `${r.totals.sent} requests in ${(r.totals.wallMs / 1000).toFixed(1)} s: ${r.rates.rps.toFixed(1)} req/s, ${r.rates.okPerSecond.toFixed(1)} succeeded/s, goodput ${r.rates.goodput.toFixed(1)} ${r.unit}/s`,
    `latency ms: p50 ${ms(r.latency.p50)}  p90 ${ms(r.latency.p90)}  p99 ${ms(r.latency.p99)}  p99.9 ${ms(r.latency.p999)}  max ${ms(r.latency.max)}`,
    `not succeeded: ${r.totals.notOk}${Object.keys(r.reasons).length ? ` (${Object.entries(r.reasons).map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}; error rate ${(r.errorRate * 100).toFixed(3)}%`,
    ...r.checks.map((c) => `check ${c.passed ? 'passed' : 'FAILED'}: ${c.name} — ${c.message}`),
    ...r.thresholds.map((t) => `threshold ${t.passed ? 'passed' : 'BROKEN'}: ${t.threshold} (actual ${t.actualText})`),
    `generator: ${r.generator.note}`,
    ...baselineConsole(r),
    ...capacityConsole(r),
    `report: ${written.dir}/load.html`,
    ...(r.interrupted ? ['interrupted: the figures cover the part that ran'] : []),
  ];
  process.stdout.write(lines.join('\n') + '\n');
  return r.interrupted ? 130 : r.exitCode;
}
export default load;

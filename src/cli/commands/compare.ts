/**
 * `pouchproof compare`: competing implementations side by side. Every target (a profile, a bare URL,
 * or `reference`, the embedded reference) gets its readings probed and the same seeded suite, one
 * after another; the matrices and the classified divergences are printed and written to
 * `compare.json` and `compare.md`. With `--load SCENARIO`, the same load run against each target in
 * turn. Exit 1 when any target has a violation or server error (or did not answer).
 */
import type { Argv } from 'yargs';
import { SCENARIO_NAMES, loadScenarioByName } from '../../../scenarios/index.ts';
import { compareTargets, type CompareTarget } from '../../compare/index.ts';
import { LoadUsageError, runLoad, parseDuration } from '../../load/index.ts';
import { EMBEDDED_REFERENCE } from '../../reference/embedded.ts';
import { TargetUnreachableError } from '../../target/connect-probe.ts';
import { compareConsoleLines, compareJson, compareMarkdown, type LoadComparison } from '../../report/compare-reports.ts';
import { compareHtml } from '../../report/compare-html.ts';
import { writeReportDir } from '../../report/write.ts';
import { chooseTarget, REFERENCE_TARGET, resolveTarget, TargetError, type ResolvedTarget } from '../../target/resolve.ts';
import { asUsage, defineCommand, UsageError } from '../command.ts';
import { interruptible } from '../interrupt.ts';
import { comparisonExitCode, makeRunId } from '../../check/run/index.ts';
import { assertReportDir, loadAllProperties, unreachableReason, withNemesis } from '../../session/index.ts';
import { numberOption, parseNemesisFlag, parseOnly, parsePositive, parseSeed } from '../args.ts';


function listOf(v: readonly string[] | undefined): string[] {
  return (v ?? []).filter((s) => s !== '');
}

async function resolveAll(argv: { readonly profile?: readonly string[] | undefined; readonly target?: readonly string[] | undefined }): Promise<ResolvedTarget[]> {
  const specs = [...listOf(argv.profile).map((p) => ({ flag: 'profile', value: p })), ...listOf(argv.target).map((u) => ({ flag: 'target', value: u }))];
  if (specs.length < 2) throw new UsageError('compare needs at least two targets: --profile FILE or --target URL, repeated (`reference` names the embedded reference)');
  const out: ResolvedTarget[] = [];
  try {
    for (const s of specs) {
      const choice = s.value === REFERENCE_TARGET ? chooseTarget({}) : chooseTarget(s.flag === 'profile' ? { profilePath: s.value } : { url: s.value });
      out.push(await resolveTarget(choice, EMBEDDED_REFERENCE));
    }
    return out;
  } catch (e) {
    await Promise.all(out.map((t) => t.close().catch(() => undefined)));
    if (e instanceof TargetError) throw new UsageError(e.message);
    throw e;
  }
}

/** Unique names: the profile's, then its host where two share one. */
function named(targets: readonly ResolvedTarget[]): CompareTarget[] {
  const base = targets.map((t) => (t.embedded ? REFERENCE_TARGET : t.profile.name || new URL(t.profile.baseUrl).host));
  const names = base.map((n, i) => (base.filter((x) => x === n).length > 1 ? `${n}@${new URL(targets[i].profile.baseUrl).host}` : n));
  return targets.map((t, i) => ({ name: names.filter((x) => x === names[i]).length > 1 ? `${names[i]}#${i + 1}` : names[i], profile: t.profile, embedded: t.embedded }));
}

const compare = defineCommand({
  describe: 'the same generated cases against several targets: properties, readings (and load) × targets, divergences classified',
  examples: [
    ['pouchproof compare --profile reference --profile staging.json', 'the same cases against the embedded reference and a staging server'],
    ['pouchproof compare --profile a.json --profile b.json --load commit-throughput', 'properties, readings and a load run, side by side'],
  ],
  builder: (y: Argv) =>
    y
      .option('profile', { type: 'string', array: true, describe: 'target profile JSON file (repeatable); `reference` is the embedded reference' })
      .option('target', { type: 'string', array: true, describe: 'base URL of a target without credentials (repeatable)' })
      .option('seed', numberOption('seed for every generator, the same for every target (default: random, printed)'))
      .option('runs', numberOption('cases per property (default 25)'))
      .option('only', { type: 'string', array: true, describe: 'property id globs, e.g. usage.* (repeatable or comma-separated)' })
      .option('per-property-ms', numberOption('time bound of one property (default 30000)'))
      .option('nemesis', { type: 'string', requiresArg: true, describe: 'faults on pouchproof\'s own connections to every target, seeded, with retries after no answer (docs/nemesis.md)' })
      .option('load', { type: 'string', choices: SCENARIO_NAMES, describe: 'also run this load scenario against each target in turn' })
      .option('load-duration', { type: 'string', default: '5s', describe: 'duration of each target\'s load run' })
      .option('allow-remote', { type: 'boolean', default: false, describe: 'allow load against a target off the loopback interface' })
      .option('report-dir', { type: 'string', default: 'reports', describe: 'where reports/<run-id>/ and reports/latest go' }),
  async handler(argv) {
    await assertReportDir(argv['report-dir']);
    const seed = parseSeed(argv['seed']);
    const runs = parsePositive('runs', argv['runs'], 25, 100_000);
    const perPropertyMs = parsePositive('per-property-ms', argv['per-property-ms'], undefined, 3_600_000);
    const only = parseOnly(argv['only']);
    const { load: loadName, 'load-duration': loadDuration } = argv;
    const loadDurationMs = loadName ? asUsage(() => parseDuration(loadDuration)) : 0;
    const scenario = loadName ? await loadScenarioByName(loadName).catch((e: Error) => Promise.reject(new UsageError(e.message))) : undefined;
    const props = await loadAllProperties();
    const nemesis = parseNemesisFlag(argv['nemesis']);
    const resolved = await resolveAll(argv);
    const intr = interruptible();
    try {
      // Every side through a nemesis of its own, drawn from the same seed: the same faults hit the same exchanges.
      const targets = named(resolved).map((t) => ({ ...t, profile: withNemesis(t.profile, nemesis) }));
      const say = (l: string) => process.stdout.write(`${l}\n`);
      for (const t of targets) {
        const why = await unreachableReason(t);
        // A target that cannot be reached is still compared: its side reports it, the others stand.
        if (why) say(`${t.name}: ${why}`);
      }
      say(`pouchproof compare: ${targets.map((t) => `${t.name} (${t.profile.baseUrl})`).join(' vs ')}, seed ${seed}, ${runs} runs per property`);
      const c = await compareTargets(targets, { props, seed, runs, ...(only ? { only } : {}), ...(perPropertyMs ? { perPropertyMs } : {}), signal: intr.signal, onLine: say });
      let load: LoadComparison | undefined;
      if (scenario && !intr.signal.aborted) {
        const rows = [];
        for (let i = 0; i < resolved.length && !intr.signal.aborted; i++) {
          say(`${targets[i].name}: load ${scenario.scenario.name} for ${loadDuration}`);
          try {
            const r = (await runLoad({ scenario, target: resolved[i], durationMs: loadDurationMs, allowRemote: argv['allow-remote'] === true, seed, signal: intr.signal })).result;
            rows.push({ side: targets[i].name, requests: r.totals.sent, rps: r.rates.rps, okPerSecond: r.rates.okPerSecond, p50Ms: r.latency.p50 / 1000, p99Ms: r.latency.p99 / 1000, errorRate: r.errorRate,
              checks: r.checks.length ? r.checks.map((k) => `${k.name} ${k.passed ? 'passed' : 'FAILED'}`).join(', ') : 'none' });
          } catch (e) {
            if (!(e instanceof LoadUsageError) && !(e instanceof TargetUnreachableError)) throw e;
            rows.push({ side: targets[i].name, requests: 0, rps: 0, okPerSecond: 0, p50Ms: NaN, p99Ms: NaN, errorRate: NaN, checks: `not run: ${e.message}` });
          }
        }
        load = { scenario: scenario.scenario.name, settings: `${loadDuration} each, closed model, default connections`, rows };
      }
      for (const l of compareConsoleLines(c, load)) say(l);
      const secrets = targets.flatMap((t) => t.profile.secrets);
      const written = await writeReportDir(argv['report-dir'], `${makeRunId(seed)}-compare`, { 'compare.json': compareJson(c, load), 'compare.md': compareMarkdown(c, load), 'compare.html': compareHtml(c, load) }, secrets).catch((e: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot write the reports: ${e.code ?? e.message}`);
      });
      say(`reports: ${written.dir}/compare.md, compare.html, compare.json`);
      if (intr.signal.aborted) return 130;
      const loadBroken = load?.rows.some((r) => r.checks.includes('FAILED')) ?? false;
      return comparisonExitCode(c, loadBroken);
    } finally {
      intr.dispose();
      await Promise.all(resolved.map((t) => t.close().catch(() => undefined)));
    }
  },
});

export default compare;

import { LOAD_CHECKS } from '../../../scenarios/checks.ts';
import { compareKillers, mutantsSummary, runMutants, type FaultDescriptor, type MutantsResult } from '../../mutants/index.ts';
import { ConsoleView } from '../../report/console.ts';
import { killHow, killMatrixMarkdown } from '../../report/mutants-md.ts';
import { writeReportDir } from '../../report/write.ts';
import { faultReadingConflict, parseReadingArgs } from '../../reference/index.ts';
import { type Readings, errorMessage } from '../../spec/index.ts';
import { defineCommand, UsageError } from '../command.ts';
import { DEFAULT_RUNS, mutantsExitCode } from '../../check/run/index.ts';
import { assertReportDir, DEFAULT_REPORT_DIR, loadAllProperties, openTarget, PROBE_LIMIT_MS, probeBounds, probeReadings, reportOf, saveReport, toolVersion } from '../../session/index.ts';
import { numberOption, parsePositive, parseSeed } from '../args.ts';
import { interruptible } from '../interrupt.ts';


/**
 * The faults to run: those named by --fault (all by default), less those a --reading contradicts (an
 * error when named) and, with --unnamed, those that are a reading, which the probe identifies as such.
 * Answers the readings parsed too: a bad fault name is reported before a bad reading.
 */
async function selectFaults(
  fault: readonly string[] | undefined,
  reading: readonly string[] | undefined,
  probed: boolean,
): Promise<{ faults: FaultDescriptor[]; skipped: string[]; readings: Readings | undefined }> {
  const { FAULTS } = await import('../../reference/index.ts');
  const wanted = fault?.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  for (const w of wanted ?? []) if (!FAULTS.some((f) => f.name === w)) throw new UsageError(`unknown fault "${w}"; known: ${FAULTS.map((f) => f.name).join(', ')}`);
  const all = wanted?.length ? FAULTS.filter((f) => wanted.includes(f.name)) : FAULTS;
  let readings: Readings | undefined;
  try {
    readings = reading ? parseReadingArgs(reading) : undefined;
  } catch (e) {
    throw new UsageError(`--reading: ${errorMessage(e)}`);
  }
  const skipped: string[] = [];
  for (const f of all) {
    const why = readings && faultReadingConflict(f.name, readings);
    if (why && wanted?.length) throw new UsageError(`--reading: ${why}; leave that fault out`);
    if (why) skipped.push(`${f.name} (${why})`);
  }
  // With the readings probed first, a fault that is a reading is identified as that reading, not killed: the probe's table says so.
  if (probed) for (const f of all) if (f.deviatesFrom && !skipped.some((s) => s.startsWith(`${f.name} (`))) skipped.push(`${f.name} (it is the reading ${f.deviatesFrom}: with --unnamed the readings are probed first, which identify it)`);
  return { faults: all.filter((f) => !skipped.some((s) => s.startsWith(`${f.name} (`))), skipped, readings };
}

/** Starts the reference with some faults, the readings and the unnamed behaviours; with unnamed ones, probes its readings first as a run does. */
function targetStarter(readings: Readings | undefined, unnamed: readonly string[] | undefined) {
  return async (fs: readonly string[]) => {
    const t = await openTarget({}, { faults: fs, ...(readings ? { readings } : {}), ...(unnamed?.length ? { unnamed } : {}) });
    if (!unnamed?.length) return t;
    const probed = await probeReadings(t, probeBounds(PROBE_LIMIT_MS * 4));
    return { profile: probed.target.profile, unknownReadings: probed.unknownReadings, close: () => t.close() };
  };
}

/**
 * Writes mutants.json and mutants.md, with the first clean run's report.json when there was one,
 * and answers the directory they went to.
 */
async function writeReports(
  result: MutantsResult,
  md: string,
  o: { reportDir: unknown; props: Awaited<ReturnType<typeof loadAllProperties>>; runs: number; seed: number },
): Promise<string> {
  const summary = mutantsSummary(result);
  const reportDir = typeof o.reportDir === 'string' ? o.reportDir : DEFAULT_REPORT_DIR;
  const first = result.clean.find((c) => c.run && c.profile);
  const files = { 'mutants.json': `${JSON.stringify({ tool: { name: 'pouchproof', version: toolVersion() }, ...summary }, null, 2)}\n`, 'mutants.md': md };
  if (first?.run && first.profile) {
    const target = { profile: first.profile, embedded: true, fixed: {}, close: async () => undefined };
    const report = reportOf({ target, profile: first.profile, props: o.props, runs: o.runs }, first.run, { mutants: summary });
    return (await saveReport(reportDir, report, first.profile.secrets, files)).dir;
  }
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return (await writeReportDir(reportDir, `mutants-${stamp}-${(o.seed >>> 0).toString(16).padStart(8, '0')}`, files, [])).dir;
}

/**
 * `pouchproof mutants`: the suite against the reference once per named fault (stopping at the
 * first kill unless --full), then against the correct reference over --seeds seeds. Prints the
 * kill matrix and writes it (mutants.json, mutants.md, and in report.json) to the report dir.
 */
const mutants = defineCommand({
  describe: 'run the suite once per named fault of the reference and print the kill matrix',
  examples: [
    ['pouchproof mutants', 'every named fault of the reference against the suite: the kill matrix'],
    ['pouchproof mutants --fault lax-pattern --full', 'one fault, every property'],
  ],
  builder: (y) =>
    y
      .option('seed', numberOption('seed (default: random, printed)'))
      .option('runs', numberOption(`cases per property (default ${DEFAULT_RUNS})`))
      .option('seeds', { ...numberOption('seeds for the correct reference (false findings); 0 skips'), default: 5 })
      .option('fault', { type: 'string', array: true, describe: 'only these faults (repeatable)' })
      .option('full', { type: 'boolean', default: false, describe: 'run every property against every fault (slower; shows every killer)' })
      .option('report-dir', { type: 'string', default: DEFAULT_REPORT_DIR, describe: 'where reports/<run-id>/ and reports/latest go' })
      .option('per-property-ms', numberOption('time bound of one property'))
      .option('reading', { type: 'string', array: true, describe: 'serve (and assume) this reading of a "not shown" in every run: NAME=VALUE (repeatable); a fault must still be killed' })
      .option('unnamed', { type: 'string', array: true, describe: 'serve this unnamed behaviour beside every fault and probe the readings first, as a run does (--assume auto): a fault must still be killed, not left unknown (repeatable; see serve --list-unnamed)' }),
  async handler(argv) {
    const seed = parseSeed(argv.seed);
    const runs = parsePositive('runs', argv.runs, DEFAULT_RUNS, 100_000);
    const seeds = argv.seeds;
    if (!Number.isInteger(seeds) || seeds < 0 || seeds > 100) throw new UsageError(`--seeds must be an integer from 0 to 100, got ${argv.seeds}`);
    const perPropertyMs = parsePositive('per-property-ms', argv['per-property-ms'], undefined, 3_600_000);
    const unnamed = argv.unnamed?.flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
    const { faults, skipped, readings } = await selectFaults(argv.fault, argv.reading, Boolean(unnamed?.length));
    await assertReportDir(argv['report-dir']);
    const props = await loadAllProperties();
    const view = new ConsoleView({ out: process.stdout });
    for (const s of skipped) view.line(`skipped ${s}`);
    view.line(`pouchproof mutants: ${faults.length} faults, seed ${seed}, ${runs} runs per property${argv.full ? ', full' : ', stopping at the first kill'}${readings ? `, readings ${Object.entries(readings).map(([k, v]) => `${k}=${v}`).join(', ')}` : ''}`);
    const intr = interruptible();
    try {
      const start = targetStarter(readings, unnamed);
      const result = await runMutants(props, faults, start, {
        seed, runs, seeds, full: Boolean(argv.full), perPropertyMs, signal: intr.signal, loadChecks: LOAD_CHECKS,
        onFault: (r) => view.line(`${r.killed ? view.paint('green', 'killed  ') : view.paint('red', 'SURVIVED')} ${r.fault.padEnd(32)} ${r.kills.map((k) => `${k.property}${killHow(k)}`).join(', ') || '—'}${r.requestsToDetection !== undefined ? `  (${r.requestsToDetection} requests)` : ''}${r.killed && !compareKillers(r).asExpected ? view.paint('yellow', `  not by an expected killer (${r.expectedKillers.join(', ')})`) : ''}`),
        onClean: (c) => view.line(`clean   ${c.loadCheck ?? `seed ${c.seed}`}: ${c.falseFindings.length ? view.paint('red', `${c.falseFindings.length} false finding(s): ${c.falseFindings.map((x) => `${x.property} ${x.kind}`).join(', ')}`) : '0 false findings'} (${c.requests} requests)`),
      });
      const md = killMatrixMarkdown(result);
      process.stdout.write(`\n${md}`);
      view.line(`reports: ${await writeReports(result, md, { reportDir: argv['report-dir'], props, runs, seed })}`);
      if (result.interrupted) return 130;
      return mutantsExitCode(result);
    } finally {
      intr.dispose();
    }
  },
});
export default mutants;

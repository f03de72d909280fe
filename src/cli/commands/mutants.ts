import { LOAD_CHECKS } from '../../../scenarios/checks.ts';
import { compareKillers, mutantsSummary, runMutants, type FaultDescriptor } from '../../check/orchestrate/mutants.ts';
import { ConsoleView } from '../../report/console.ts';
import { killHow, killMatrixMarkdown } from '../../report/mutants-md.ts';
import { writeReportDir } from '../../report/write.ts';
import { faultReadingConflict, parseReadingArgs, type FaultName } from '../../reference/index.ts';
import type { Readings } from '../../spec/index.ts';
import { defineCommand, UsageError } from '../command.ts';
import { DEFAULT_RUNS } from '../../check/run/index.ts';
import { DEFAULT_REPORT_DIR, loadAllProperties, openTarget, PROBE_LIMIT_MS, probeBounds, probeReadings, reportOf, saveReport, toolVersion } from '../../session/index.ts';
import { numberOption, parsePositive, parseSeed } from '../args.ts';
import { interruptible } from '../interrupt.ts';


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
    const runs = parsePositive('runs', argv.runs, DEFAULT_RUNS, 100_000)!;
    const seeds = argv.seeds;
    if (!Number.isInteger(seeds) || seeds < 0 || seeds > 100) throw new UsageError(`--seeds must be an integer from 0 to 100, got ${argv.seeds}`);
    const perPropertyMs = parsePositive('per-property-ms', argv['per-property-ms'], undefined, 3_600_000);
    const { FAULTS } = (await import('../../reference/fault-catalogue.ts')) as { FAULTS: readonly FaultDescriptor[] };
    const wanted = argv.fault?.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
    for (const w of wanted ?? []) if (!FAULTS.some((f) => f.name === w)) throw new UsageError(`unknown fault "${w}"; known: ${FAULTS.map((f) => f.name).join(', ')}`);
    const all = wanted?.length ? FAULTS.filter((f) => wanted.includes(f.name)) : FAULTS;
    let readings: Readings | undefined;
    try {
      readings = argv.reading ? parseReadingArgs(argv.reading) : undefined;
    } catch (e) {
      throw new UsageError(`--reading: ${(e as Error).message}`);
    }
    const skipped: string[] = [];
    for (const f of all) {
      const why = readings && faultReadingConflict(f.name as FaultName, readings);
      if (why && wanted?.length) throw new UsageError(`--reading: ${why}; leave that fault out`);
      if (why) skipped.push(`${f.name} (${why})`);
    }
    const unnamed = argv.unnamed?.flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
    // With the readings probed first, a fault that is a reading is identified as that reading, not killed: the probe's table says so.
    if (unnamed?.length) for (const f of all) if (f.deviatesFrom && !skipped.some((s) => s.startsWith(`${f.name} (`))) skipped.push(`${f.name} (it is the reading ${f.deviatesFrom}: with --unnamed the readings are probed first, which identify it)`);
    const faults = all.filter((f) => !skipped.some((s) => s.startsWith(`${f.name} (`)));
    const props = await loadAllProperties();
    const view = new ConsoleView({ out: process.stdout });
    for (const s of skipped) view.line(`skipped ${s}`);
    view.line(`pouchproof mutants: ${faults.length} faults, seed ${seed}, ${runs} runs per property${argv.full ? ', full' : ', stopping at the first kill'}${readings ? `, readings ${Object.entries(readings).map(([k, v]) => `${k}=${v}`).join(', ')}` : ''}`);
    const intr = interruptible();
    try {
      const start = async (fs: readonly string[]) => {
        const t = await openTarget({}, { faults: fs, ...(readings ? { readings } : {}), ...(unnamed?.length ? { unnamed } : {}) });
        if (!unnamed?.length) return t;
        const probed = await probeReadings(t, probeBounds(PROBE_LIMIT_MS * 4));
        return { profile: probed.target.profile, unknownReadings: probed.unknownReadings, close: () => t.close() };
      };
      const result = await runMutants(props, faults, start, {
        seed, runs, seeds, full: Boolean(argv.full), perPropertyMs, signal: intr.signal, loadChecks: LOAD_CHECKS,
        onFault: (r) => view.line(`${r.killed ? view.paint('green', 'killed  ') : view.paint('red', 'SURVIVED')} ${r.fault.padEnd(32)} ${r.kills.map((k) => `${k.property}${killHow(k)}`).join(', ') || '—'}${r.requestsToDetection !== undefined ? `  (${r.requestsToDetection} requests)` : ''}${r.killed && !compareKillers(r).asExpected ? view.paint('yellow', `  not by an expected killer (${r.expectedKillers.join(', ')})`) : ''}`),
        onClean: (c) => view.line(`clean   ${c.loadCheck ?? `seed ${c.seed}`}: ${c.falseFindings.length ? view.paint('red', `${c.falseFindings.length} false finding(s): ${c.falseFindings.map((x) => `${x.property} ${x.kind}`).join(', ')}`) : '0 false findings'} (${c.requests} requests)`),
      });
      const md = killMatrixMarkdown(result);
      process.stdout.write(`\n${md}`);
      const summary = mutantsSummary(result);
      const reportDir = typeof argv['report-dir'] === 'string' ? argv['report-dir'] : DEFAULT_REPORT_DIR;
      const first = result.clean.find((c) => c.run && c.profile);
      const files = { 'mutants.json': `${JSON.stringify({ tool: { name: 'pouchproof', version: toolVersion() }, ...(summary as object) }, null, 2)}\n`, 'mutants.md': md };
      if (first?.run && first.profile) {
        const target = { profile: first.profile, embedded: true, fixed: {}, close: async () => undefined };
        const report = reportOf({ target, profile: first.profile, props, runs }, first.run, { mutants: summary });
        const written = await saveReport(reportDir, report, first.profile.secrets, files);
        view.line(`reports: ${written.dir}`);
      } else {
        const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
        const written = await writeReportDir(reportDir, `mutants-${stamp}-${(seed >>> 0).toString(16).padStart(8, '0')}`, files, []);
        view.line(`reports: ${written.dir}`);
      }
      if (result.interrupted) return 130;
      return result.exitCode;
    } finally {
      intr.dispose();
    }
  },
});
export default mutants;

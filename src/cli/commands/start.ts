import { loadScenarioByName } from '../../../scenarios/index.ts';
import { runLoad } from '../../load/index.ts';
import { loadExitCode } from '../../check/run/index.ts';
import { loadReportFiles } from '../../report/load/index.ts';
import { defineCommand } from '../command.ts';
import { openTarget } from '../../session/index.ts';
import { parseSuiteArgs, runAndReport, suiteOptions } from './run.ts';
import { errorMessage } from '../../spec/index.ts';

/** Upper bound of the load part of `npm start`, all told (warm-up, start-up and checks included). */
export const START_LOAD_MS = 15_000;
const LOAD_OVERHEAD_MS = 3_000;

/**
 * `npm start`: the whole suite against the embedded reference, then a short closed-model
 * commit-throughput run whose figures join the report (summary line, and load.json, load.md and
 * load.html beside report.json).
 */
const start = defineCommand({
  describe: 'the full job against the embedded reference: conformance run, then a short commit-throughput run',
  examples: [
    ['npm start', 'the same: the suite, then a short load run, against the embedded reference'],
    ['pouchproof start --no-load --seed 7', 'the suite only, with a fixed seed'],
  ],
  // Declared as `load` so that yargs' negation (`--no-load`) names a known option under strict parsing.
  builder: (y) => suiteOptions(y).option('load', { type: 'boolean', default: true, describe: 'the short load run after the suite (--no-load skips it)' }),
  async handler(argv) {
    const parsed = parseSuiteArgs(argv);
    const skipLoad = argv.load === false;
    const target = await openTarget();
    try {
      return await runAndReport(target, parsed, async (_run, _signal, view) => {
        if (skipLoad) return undefined;
        view.line(`load: commit throughput for up to ${START_LOAD_MS / 1000} s`);
        try {
          const { result } = await runLoad({
            scenario: await loadScenarioByName('commit-throughput'),
            target,
            durationMs: START_LOAD_MS - LOAD_OVERHEAD_MS,
            workers: 1,
            warmupMs: 1000,
            seed: parsed.session.seed,
          });
          const { histogram: _histogram, ...figures } = result;
          // report.json's load figures keep their exit code, the policy's (src/check/run/exit-code.ts).
          return { load: { ...figures, exitCode: loadExitCode(result) }, files: loadReportFiles(result) };
        } catch (e) {
          view.line(`load: failed: ${errorMessage(e)}`);
          return { load: { error: errorMessage(e) } };
        }
      });
    } finally {
      await target.close();
    }
  },
});
export default start;

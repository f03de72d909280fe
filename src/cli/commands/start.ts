import type { CommandModule } from '../command.ts';
import type { Profile } from '../../target/profile.ts';
import { parseSuiteArgs, runAndReport, startEmbedded, suiteOptions } from './run.ts';

/** Upper bound of the load part of `npm start`. */
export const START_LOAD_MS = 15_000;

/**
 * HOOK (issue 6): the short commit-throughput run of `npm start`. src/load is written separately;
 * when it exports `quickCommitThroughput(profile, { durationMs, signal })` from src/load/index.ts,
 * its figures join the report as `load`. Until then this reports why the load part did not run.
 */
type QuickLoad = (profile: Profile, o: { durationMs: number; signal: AbortSignal }) => Promise<unknown>;

async function findQuickLoad(): Promise<QuickLoad | undefined> {
  const spec = '../../load/index.ts';
  try {
    const mod = (await import(spec)) as { quickCommitThroughput?: QuickLoad };
    return typeof mod.quickCommitThroughput === 'function' ? mod.quickCommitThroughput : undefined;
  } catch {
    return undefined;
  }
}

/** `npm start`: the whole suite against the embedded reference, then a short load run. */
const start: CommandModule = {
  describe: 'the full job against the embedded reference: conformance run, then a short commit-throughput run',
  builder: (y) => suiteOptions(y).option('no-load', { type: 'boolean', default: false, describe: 'skip the short load run' }),
  async handler(argv) {
    const parsed = parseSuiteArgs(argv);
    const skipLoad = argv['no-load'] === true || argv.load === false;
    const target = await startEmbedded();
    try {
      return await runAndReport(target, parsed, async (_run, signal, view) => {
        if (skipLoad) return undefined;
        const quick = await findQuickLoad();
        if (!quick) {
          view.line('load: no short commit-throughput run available yet (src/load/index.ts quickCommitThroughput); skipped');
          return { load: { skipped: 'src/load does not export quickCommitThroughput yet' } };
        }
        view.line(`load: commit throughput for up to ${START_LOAD_MS / 1000} s`);
        try {
          return { load: await quick(target.profile, { durationMs: START_LOAD_MS, signal }) };
        } catch (e) {
          view.line(`load: failed: ${(e as Error).message}`);
          return { load: { error: (e as Error).message } };
        }
      });
    } finally {
      await target.close();
    }
  },
};
export default start;

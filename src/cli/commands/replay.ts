import { defineCommand, UsageError } from '../command.ts';
import { encodeReplayToken, readReplayToken, type PropertyResult, type ReplayToken, toolVersion, EXIT, isFailing, replayProperty, tokenFit } from '../../check/run/index.ts';
import { replayReport } from './replay-report.ts';
import { ConsoleView } from '../../report/console.ts';
import { counterexampleText, curlLines, mismatchLine } from '../../report/finding-text.ts';
import { loadAllProperties, requireReachable, withNemesis } from '../../session/index.ts';
import { numberOption, parseNemesisFlag, parsePositive, targetFromArgs } from '../args.ts';
import { referenceOption } from '../ci.ts';
import { REFERENCE_TARGET } from '../../target/resolve.ts';

/** The token of --help's example: made by the encoder, so the example is one the decoder takes. */
export const EXAMPLE_TOKEN = encodeReplayToken({ property: 'usage.never-summed', seed: 42, path: '0:1', runs: 1 });

/** The line said before replaying a token another version of pouchproof made (its cases may have changed since), or undefined. */
export function versionNote(token: ReplayToken, current = toolVersion()): string | undefined {
  if (token.tool === current) return undefined;
  const made = token.tool === undefined ? 'a version of pouchproof from before tokens named theirs' : `pouchproof ${token.tool}`;
  return `note: this token was made by ${made}, and this is pouchproof ${current}: the property's cases may have changed since`;
}

/** The one line of a token that no longer fits: nothing was sent. */
export const noLongerFits = (why: string): string => `no longer fits: ${why}; nothing was run (run the property again to find the case anew)`;

/**
 * How a replay ends: reproduced (exit 1), passed (exit 0), or, when the case could not be judged (the
 * target did not answer, the time bound ended it), neither: "not reproduced" would be a false green.
 */
export function replayEnding(r: Pick<PropertyResult, 'status' | 'findings' | 'inconclusive'>): { readonly line: string; readonly code: number } {
  if (r.findings.some((f) => isFailing(f.kind))) return { line: 'reproduced: the finding still holds', code: EXIT.failed };
  if (r.status === 'passed') return { line: 'not reproduced: the property passes on this target', code: EXIT.passed };
  return { line: `not judged: ${r.inconclusive ?? r.findings[0]?.message ?? r.status}; the finding is neither reproduced nor shown gone`, code: EXIT.inconclusive };
}

/** `pouchproof replay TOKEN`: re-runs one finding's counterexample against any target. */
const replay = defineCommand({
  describe: 'reproduce one finding from its replay token',
  examples: [
    [`pouchproof replay ${EXAMPLE_TOKEN} --profile staging.json`, 'the finding\'s counterexample again, against a target (the token comes from the finding)'],
    ['pouchproof replay --report reports/latest/report.json --profile staging.json', 'every finding of a report again, one line each'],
  ],
  // The token is a positional; main.ts registers commands by name only, so strictness is kept for options alone.
  builder: (y) =>
    referenceOption(
      y
        .strict(false)
        .strictOptions(true)
        // Unwrapped: the example's token is one word to copy, which a wrap at 80 columns would cut.
        .wrap(null)
        .usage('pouchproof replay TOKEN | --report DIR/report.json [--profile FILE | --target URL | --reference] [--nemesis SPEC]')
        .option('profile', { type: 'string', describe: 'target profile JSON file' })
        .option('target', { type: 'string', describe: `base URL of a target without credentials, or ${REFERENCE_TARGET}` }),
    )
      .option('assume', { type: 'string', array: true, describe: 'NAME=VALUE reading of a "not shown" (repeatable)' })
      .option('per-request-ms', numberOption('time bound of one request'))
      .option('nemesis', { type: 'string', requiresArg: true, describe: 'the run\'s --nemesis SPEC: the replayed case\'s requests meet the faults they met in the run (docs/nemesis.md)' })
      .option('report', { type: 'string', requiresArg: true, describe: 'replay every finding of this report.json, one line each (still failing, now passing, no longer fits)' }),
  async handler(argv) {
    const positionals = (argv._ ?? []).map(String).filter((s) => s !== 'replay');
    if (argv.report !== undefined) {
      if (positionals.length) throw new UsageError('replay takes a token or --report, not both');
      return replayReport(argv.report, argv);
    }
    if (positionals.length > 1) throw new UsageError('replay takes one token');
    const raw = positionals[0];
    if (!raw) throw new UsageError('replay needs a token: pouchproof replay TOKEN');
    const read = readReplayToken(raw.trim());
    if ('why' in read) throw new UsageError(read.why);
    const { token } = read;
    const prop = (await loadAllProperties()).find((p) => p.id === token.property);
    if (!prop) throw new UsageError(`the token names property ${token.property}, which this version of pouchproof does not have`);
    const perRequestMs = parsePositive('per-request-ms', argv['per-request-ms'], undefined, 600_000);
    const nemesis = parseNemesisFlag(argv.nemesis);
    const target = await targetFromArgs('replay', argv);
    try {
      // Checked before anything is sent; the profile's own nemesis stays when the flag is absent.
      const profile = withNemesis(target.profile, nemesis);
      await requireReachable(target);
      const view = new ConsoleView({ out: process.stdout });
      const fit = tokenFit(prop, profile, token);
      if (!fit.fits) {
        view.line(noLongerFits(fit.why));
        return 2;
      }
      const note = versionNote(token);
      if (note) view.line(note);
      view.line(`replaying ${prop.id} (§${prop.section}) against ${target.profile.baseUrl}: seed ${token.seed}, path ${token.path}${token.coverageCase ? ` (${token.coverageCase.variant} of ${token.coverageCase.constraint})` : ''}`);
      if (nemesis !== undefined) view.line(`nemesis: ${nemesis}, seeded ${token.seed}: the faults the run's requests met`);
      const r = await replayProperty(profile, prop, { seed: token.seed, path: fit.path, runs: token.runs }, { perRequestMs, embedded: target.embedded });
      view.line(view.resultLine(r));
      if (r.status === 'skipped' || r.status === 'error') {
        process.stderr.write(`pouchproof: cannot replay here: ${r.findings[0]?.message ?? r.status}\n`);
        return EXIT.inconclusive;
      }
      for (const f of r.findings) {
        view.line(`${f.kind}: ${f.message}`);
        const counterexample = counterexampleText(f);
        if (f.mismatch) view.line(`  ${mismatchLine(f.mismatch)}`);
        if (counterexample) view.line(`  counterexample: ${counterexample}`);
        for (const c of curlLines(f)) view.line(`  ${c}`);
      }
      const end = replayEnding(r);
      view.line(end.line);
      return end.code;
    } finally {
      await target.close();
    }
  },
});
export default replay;

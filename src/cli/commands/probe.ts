/**
 * `pouchproof probe`: the reading fingerprint of one target, i.e. which reading of every "not
 * shown" it takes, observed with a few requests per assumption (src/discover). Against a
 * profile, a bare URL, or the embedded reference (named, or with no target outside CI: src/cli/ci.ts), optionally switched to readings
 * with `--reading NAME=VALUE`. Prints the table (or `--json`) and exits 0, or, when it could tell
 * nothing at all, 3 for a target that cannot be reached and 2 for one that answers garbage: either gets
 * `unknown` rows with the reason, and a CI step that probes it does not go green on a table of unknowns.
 */
import type { Argv } from 'yargs';
import { discoverReadings, probeClient } from '../../discover/index.ts';
import { readingsConsoleLines, readingsJson } from '../../report/readings.ts';
import { errorMessage, parseReadings, type Readings } from '../../spec/index.ts';
import { loadProfile, parseProfile, profileForUrl, ProfileError, type Profile } from '../../target/profile.ts';
import { defineCommand, UsageError } from '../command.ts';
import { checkTargetFlags, referenceOption, type TargetFlags } from '../ci.ts';
import { REFERENCE_TARGET } from '../../target/resolve.ts';
import { EXIT } from '../../check/run/index.ts';
import { unreachableReason } from '../../session/index.ts';

/** `NAME=VALUE` arguments, each possibly comma-separated, validated by the registry. */
export function parseNameValues(flag: string, args: readonly string[] | undefined): Readings {
  const out: Record<string, string> = {};
  for (const item of (args ?? []).flatMap((a) => a.split(',')).map((a) => a.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    if (eq <= 0 || eq === item.length - 1) throw new UsageError(`${flag} expects NAME=VALUE, got "${item}"`);
    out[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  try {
    return parseReadings(out);
  } catch (e) {
    throw new UsageError(`${flag}: ${errorMessage(e)}`);
  }
}

interface Target {
  readonly profile: Profile;
  readonly embedded: boolean;
  readonly label: string;
  close(): Promise<void>;
}

async function resolve(argv: TargetFlags, readings: Readings): Promise<Target> {
  const profileArg = argv.profile;
  if (profileArg !== undefined && argv.target !== undefined) throw new UsageError('give either --profile or --target, not both');
  checkTargetFlags('probe', argv);
  const targetArg = argv.target === REFERENCE_TARGET ? undefined : argv.target;
  if (Object.keys(readings).length > 0 && (profileArg !== undefined || targetArg !== undefined)) {
    throw new UsageError('--reading switches the embedded reference; it cannot be combined with --profile or --target');
  }
  try {
    if (typeof profileArg === 'string') {
      const profile = await loadProfile(profileArg);
      return { profile, embedded: false, label: `${profile.name} (${profile.baseUrl})`, close: async () => undefined };
    }
    if (typeof targetArg === 'string') {
      const profile = profileForUrl(targetArg);
      return { profile, embedded: false, label: profile.baseUrl, close: async () => undefined };
    }
  } catch (e) {
    if (e instanceof ProfileError) throw new UsageError(e.message);
    throw e;
  }
  const { startReference } = await import('../../reference/index.ts');
  let ref: Awaited<ReturnType<typeof startReference>>;
  try {
    ref = await startReference({ host: '127.0.0.1', port: 0, readings });
  } catch (e) {
    throw new UsageError(errorMessage(e));
  }
  const served = Object.entries(ref.readings).map(([n, v]) => `${n}=${String(v)}`);
  return {
    profile: parseProfile(ref.profile),
    embedded: true,
    label: `the embedded reference at ${ref.url}${served.length ? ` (readings: ${served.join(', ')})` : ''}`,
    close: () => ref.close(),
  };
}

const probe = defineCommand({
  describe: 'run reading discovery: which reading of each "not shown" of the spec a target takes (what --assume auto runs first)',
  examples: [
    ['pouchproof probe --profile staging.json', 'which reading of each "not shown" the target takes'],
    ['pouchproof probe --reference --reading batch-atomicity=partial --verbose', 'the embedded reference in another reading, with every exchange'],
  ],
  builder: (y: Argv) =>
    referenceOption(
      y
        .option('profile', { type: 'string', describe: 'target profile JSON file' })
        .option('target', { type: 'string', describe: `base URL of a target without credentials (most probes then say "not observable"), or ${REFERENCE_TARGET}` }),
    )
      .option('reading', { type: 'string', array: true, describe: 'with the embedded reference: serve this reading, NAME=VALUE (repeatable)' })
      .option('assume', { type: 'string', array: true, describe: 'readings you fix: NAME=VALUE (repeatable); a target seen to take another is reported as a mismatch' })
      .option('json', { type: 'boolean', default: false, describe: 'print the table as JSON' })
      .option('verbose', { type: 'boolean', default: false, describe: 'print every request and answer behind each row' }),
  async handler(argv) {
    const readings = parseNameValues('--reading', argv.reading);
    const fixed = parseNameValues('--assume', argv.assume);
    const target = await resolve(argv, readings);
    const client = probeClient(target.profile);
    try {
      const d = await discoverReadings(target.profile, client, { embedded: target.embedded, fixed });
      if (argv['json']) process.stdout.write(`${JSON.stringify({ target: target.profile.baseUrl, ...readingsJson(d) }, null, 2)}\n`);
      else process.stdout.write(`probed ${target.label}\n${readingsConsoleLines(d, { verbose: argv['verbose'] === true }).join('\n')}\n`);
      const nothing = d.table.length > 0 && d.table.every((r) => r.status === 'unknown');
      if (!nothing) return EXIT.passed;
      return (await unreachableReason(target)) ? EXIT.unreachable : EXIT.inconclusive;
    } finally {
      await client.close();
      await target.close();
    }
  },
});

export default probe;

/**
 * Scores pouchproof against the independent server's bugs: for each bug, one at a time, the server
 * runs with that bug alone (in its own process) and pouchproof runs against it with a fixed seed and a
 * bounded time. A bug is caught when the run has a `violation` or `server-error` finding (other than
 * the false alarms pouchproof also raises against the correct build: FALSE_ALARMS in run-once.ts).
 *
 *   npx tsx test/independent/score.ts [--only BUG,...] [--out FILE] [--seed N] [--max-duration-ms N]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { BUGS, isBugName } from './bugs.ts';
import { isFailing, isFalseAlarm, runOnce, type Outcome } from './run-once.ts';

interface Args {
  readonly only: readonly string[];
  readonly out: string;
  readonly seed: number;
  readonly maxDurationMs: number;
}

class UsageError extends Error {}

const USAGE = 'usage: npx tsx test/independent/score.ts [--only BUG,...] [--out FILE] [--seed N] [--max-duration-ms N]';

function positive(flag: string, v: string | undefined): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${flag} needs a positive integer, got ${JSON.stringify(v ?? '')}`);
  return n;
}

function parseArgs(argv: readonly string[]): Args {
  let only: string[] = BUGS.map((b) => b.name);
  let out = 'reports/independent-score.json';
  let seed = 1;
  let maxDurationMs = 180_000;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    if (flag === '--only') only = (value ?? '').split(',').filter((s) => s !== '');
    else if (flag === '--out') out = value ?? '';
    else if (flag === '--seed') seed = positive(flag, value);
    else if (flag === '--max-duration-ms') maxDurationMs = positive(flag, value);
    else throw new UsageError(`unknown argument ${JSON.stringify(flag)}`);
    i++;
  }
  const unknown = only.filter((n) => !isBugName(n));
  if (unknown.length > 0) throw new UsageError(`unknown bug name(s): ${unknown.join(', ')} (see BUGS in test/independent/bugs.ts)`);
  if (only.length === 0) throw new UsageError('--only names no bug');
  if (out === '') throw new UsageError('--out needs a file name');
  return { only, out, seed, maxDurationMs };
}

interface Row {
  readonly bug: string;
  readonly catalogue: string;
  readonly caught: boolean;
  readonly outcome: Outcome | { readonly error: string };
}

/** Caught: a violation or server error other than the correct build's recorded false alarms. */
const caughtBy = (o: Outcome): boolean => o.findings.some((f) => isFailing(f) && !isFalseAlarm(f));

function line(r: Row): string {
  const counts = 'error' in r.outcome ? `error: ${r.outcome.error}` : Object.entries(r.outcome.counts).map(([k, n]) => `${k} ${n}`).join(', ');
  const secs = 'error' in r.outcome ? '' : ` ${r.outcome.seconds}s`;
  return `${r.caught ? 'CAUGHT' : 'missed'}  ${r.bug.padEnd(10)}${secs.padStart(6)}  ${counts}`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const rows: Row[] = [];
  for (const name of args.only) {
    const bug = BUGS.find((b) => b.name === name)!;
    let row: Row;
    try {
      const outcome = await runOnce([name], { seed: args.seed, maxDurationMs: args.maxDurationMs });
      row = { bug: name, catalogue: bug.catalogue, caught: caughtBy(outcome), outcome };
    } catch (e) {
      row = { bug: name, catalogue: bug.catalogue, caught: false, outcome: { error: e instanceof Error ? e.message : String(e) } };
    }
    rows.push(row);
    process.stdout.write(`${line(row)}\n`);
  }
  const caught = rows.filter((r) => r.caught).length;
  const pct = ((100 * caught) / rows.length).toFixed(1);
  process.stdout.write(`caught ${caught} of ${rows.length} (${pct} %)\n`);
  mkdirSync(dirname(args.out), { recursive: true });
  writeFileSync(args.out, `${JSON.stringify({ seed: args.seed, maxDurationMs: args.maxDurationMs, caught, total: rows.length, rows }, null, 2)}\n`);
  process.stdout.write(`results: ${args.out}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`score: ${e instanceof UsageError ? `${e.message}\n${USAGE}` : e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
});

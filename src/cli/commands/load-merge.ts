import type { Argv } from 'yargs';
import { defineCommand, UsageError, type FlagsOf } from '../command.ts';
import { oneLineErrors } from '../one-line-errors.ts';
import { HdrLogError, MergeError, mergeShards, ShardInputError, collectShards, ShardMarkerError, ShardRecordError } from '../../load/index.ts';
import { loadReportFiles, ms } from '../../report/load/index.ts';
import { EXIT, mergedLoadExitCode } from '../../check/run/index.ts';
import { writeReportDir } from '../../report/write.ts';
import { writeExactDir } from '../../report/write-exact.ts';

const BAD_INPUT = [UsageError, MergeError, ShardInputError, ShardMarkerError, ShardRecordError, HdrLogError];

/** The options of `load merge`. */
function mergeOptions(y: Argv) {
  return y
    .positional('inputs', { type: 'string', array: true, describe: 'shard report directories, directories of them, shard.json files, or files of kubectl logs' })
    .option('threshold', { type: 'string', array: true, describe: "judged on the merge (default: the thresholds the shards were given); broken → exit 1" })
    .option('expect-shards', { type: 'number', describe: 'N: the shards there should be (default: as the shards say)' })
    .option('report-dir', { type: 'string', describe: 'write load.json, load.md and load.html into this directory (default: a new run directory under --reports)' })
    .option('reports', { type: 'string', default: 'reports', describe: 'directory the merged report goes under' });
}

/** `pouchproof load merge DIR|FILES…`: the shards of one run, judged as one run. */
const loadMerge = defineCommand({
  describe: 'merge the shards of a load run (report directories, shard.json files, or collected kubectl logs) and judge the thresholds on the whole',
  examples: [
    ["pouchproof load merge reports/shards --expect-shards 4 --threshold 'p99<50ms'", 'four shard report directories, judged as one run'],
    ['kubectl logs -l job-name=pouchproof-load --tail=-1 > shards.log && pouchproof load merge shards.log', 'the shards of a Kubernetes Job, from their logs'],
  ],
  builder: mergeOptions,
  handler: oneLineErrors((argv) => handle(argv), BAD_INPUT),
});

async function handle(argv: FlagsOf<typeof mergeOptions>): Promise<number> {
  const inputs = (argv.inputs ?? []).map(String);
  const expect = argv['expect-shards'];
  if (expect !== undefined && !(Number.isInteger(expect) && expect >= 1)) throw new UsageError('--expect-shards must be a positive integer');
  const shards = await collectShards(inputs);
  const { result: r } = mergeShards(shards, {
    ...(argv['threshold'] !== undefined ? { thresholds: argv.threshold } : {}),
    ...(expect !== undefined ? { expectShards: expect } : {}),
  });
  const files = loadReportFiles(r);
  // Shard files carry the public URL only; nothing secret reaches a merge.
  const dir = argv['report-dir'] !== undefined ? await writeExactDir(argv['report-dir'], files) : (await writeReportDir(argv.reports, r.runId, files, [])).dir;
  // a merge that did not throw has its merged figures
  const m = r.merged!;
  const lines = [
    `merged ${m.present.length} of ${m.count} shards: ${r.totals.sent} requests in ${(r.totals.wallMs / 1000).toFixed(1)} s, ${r.rates.rps.toFixed(1)} req/s, goodput ${r.rates.goodput.toFixed(1)} ${r.unit}/s`,
    `latency ms: p50 ${ms(r.latency.p50)}  p90 ${ms(r.latency.p90)}  p99 ${ms(r.latency.p99)}  p99.9 ${ms(r.latency.p999)}  max ${ms(r.latency.max)}  (${r.latency.count} samples)`,
    `error rate ${(r.errorRate * 100).toFixed(3)}%`,
    ...(m.missing.length ? [`MISSING shards: ${m.missing.join(', ')}: the figures cover the others only`] : []),
    ...(m.duplicates.length ? [`shards given more than once (counted once): ${m.duplicates.join(', ')}`] : []),
    ...m.late.map((l) => `late: shard ${l.index} started ${(l.lateMs / 1000).toFixed(1)} s after the shared start`),
    ...r.checks.map((c) => `check ${c.passed ? 'passed' : 'FAILED'}: ${c.name} — ${c.message}`),
    ...r.thresholds.map((t) => `threshold ${t.passed ? 'passed' : 'BROKEN'}: ${t.threshold} (actual ${t.actualText})`),
    `report: ${dir}/load.html`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  const code = mergedLoadExitCode(r);
  if (code === EXIT.inconclusive) process.stderr.write(`pouchproof: inconclusive: ${m.missing.length} of ${m.count} shards missing (${m.missing.join(', ')})\n`);
  return code;
}
export default loadMerge;

/** The files a shard adds to its report directory for `load merge`: shard.json and shard.hlog. */
import { ERROR_LATENCY_TAG, LATENCY_TAG, writeHdrLog, type LoadRunResult, PHASES, phaseTag, SHARD_HLOG, SHARD_JSON, toShardRecord } from '../../load/index.ts';
import { publicUrl } from './json.ts';

export function shardReportFiles(r: LoadRunResult, thresholds: readonly string[]): Record<string, string> {
  const record = toShardRecord({ ...r, target: { ...r.target, url: publicUrl(r.target.url) } }, thresholds);
  const { startMs, shard } = record.result;
  // The phases travel as tagged histograms beside the total, so a merge adds them the same way.
  const phases = r.phases ? Object.fromEntries(PHASES.map((p) => [phaseTag(p), r.phases![p].histogram])) : {};
  const hlog = writeHdrLog({ [LATENCY_TAG]: r.histogram, [ERROR_LATENCY_TAG]: r.errorHistogram, ...phases }, startMs, startMs + r.totals.wallMs, `pouchproof load ${r.runId}: shard ${shard.index}/${shard.count}, latency in microseconds from the intended send time (${LATENCY_TAG}: every request, ${ERROR_LATENCY_TAG}: failed ones, ${phaseTag('wait')} etc.: the phases of the answered ones)`);
  return { [SHARD_JSON]: `${JSON.stringify(record, null, 2)}\n`, [SHARD_HLOG]: hlog };
}

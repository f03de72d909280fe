/** The Markdown summary of a load run: what was sent, what came back, how fast, and what broke. */
import { loadNemesisLine } from '../nemesis.ts';
import { type LoadRunResult, type MergeNotes, PHASES, formatStages } from '../../load/index.ts';
import { loadExitCode } from '../../check/run/index.ts';
import { publicUrl } from './json.ts';

export const ms = (us: number): string => (us >= 100_000 ? (us / 1000).toFixed(0) : us >= 10_000 ? (us / 1000).toFixed(1) : (us / 1000).toFixed(2));
export const n0 = (x: number): string => Math.round(x).toLocaleString('en-US');
export const pct = (x: number): string => `${(x * 100).toFixed(x < 0.001 && x > 0 ? 3 : 2)}%`;

/** What the latency figures cover, and the failed requests' own percentiles (said wherever latency is shown). */
export function latencyScope(r: Pick<LoadRunResult, 'errorLatency'>): string {
  const e = r.errorLatency;
  const failed = e.count > 0 ? `p50 ${ms(e.p50)} ms, p90 ${ms(e.p90)} ms, p99 ${ms(e.p99)} ms (${n0(e.count)} requests)` : 'none failed';
  return `latency covers every request, failed ones included (a timeout counts until it was abandoned); failed-only: ${failed}`;
}

/** A threshold as written, marked when it is a default bound rather than the user's. */
export const thresholdName = (t: LoadRunResult['thresholds'][number]): string => (t.byDefault ? `${t.threshold} (default bound)` : t.threshold);

export function modelText(r: Pick<LoadRunResult, 'model' | 'rate' | 'connections' | 'stages'>): string {
  if (r.stages) {
    const shape = formatStages(r.stages);
    return r.model === 'open' ? `open model, ramping arrival rate ${shape} (latency from intended send time)` : `closed model, ramping connections ${shape}`;
  }
  return r.model === 'open' ? `open model, ${n0(r.rate ?? 0)} req/s (latency from intended send time)` : `closed model, ${r.connections} connections`;
}

/** `sections`: further Markdown (capacity search, baseline comparison) shown after the summary. */
export function toLoadMarkdown(r: LoadRunResult, sections: readonly string[] = []): string {
  const L: string[] = [];
  const secs = r.totals.wallMs / 1000;
  L.push(`# Load run ${r.runId}: ${r.scenario}`, '');
  L.push(`${r.description}.`, '');
  L.push(`- Target: ${publicUrl(r.target.url)}${r.target.embedded ? ' (embedded reference' + (r.target.faults?.length ? `, faults: ${r.target.faults.join(', ')}` : '') + ')' : ''}`);
  L.push(`- ${modelText(r)}; ${r.connections} connections, ${r.workers || 'no'} worker thread${r.workers === 1 ? '' : 's'}; ${secs.toFixed(1)} s measured; seed ${r.seed}`);
  L.push(`- Parameters: ${Object.entries(r.params).map(([k, v]) => `${k}=${v}`).join(', ') || 'none'}`);
  L.push(`- Verdict: **${loadExitCode(r) === 0 ? 'passed' : 'FAILED'}**${r.failedBecause ? `: ${r.failedBecause}` : ''}${r.interrupted ? ' (interrupted with Ctrl-C: the figures cover the part that ran)' : ''}${r.aborted ? ' (ended early by an abort threshold: the figures cover the part that ran)' : ''}`, '');
  if (r.merged) L.push(...shardLines(r.merged));
  for (const x of sections) L.push(x, '');
  L.push('## Throughput', '', '| requests/s | successful/s | goodput (' + r.unit + '/s) | sent | succeeded | not succeeded | server errors | dropped | error rate |', '|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  L.push(`| ${r.rates.rps.toFixed(1)} | ${r.rates.okPerSecond.toFixed(1)} | ${r.rates.goodput.toFixed(1)} | ${n0(r.totals.sent)} | ${n0(r.totals.ok)} | ${n0(r.totals.notOk)} | ${n0(r.totals.errors)} | ${n0(r.totals.dropped)} | ${pct(r.errorRate)} |`, '');
  if (r.nemesis) L.push(`Nemesis: ${loadNemesisLine(r)}.`, '');
  L.push('## Latency (ms)', '', '| p50 | p90 | p99 | p99.9 | max | samples |', '|---:|---:|---:|---:|---:|---:|');
  L.push(`| ${ms(r.latency.p50)} | ${ms(r.latency.p90)} | ${ms(r.latency.p99)} | ${ms(r.latency.p999)} | ${ms(r.latency.max)} | ${n0(r.latency.count)} |`, '', `The ${latencyScope(r)}.`, '');
  L.push(...phaseLines(r));
  const reasons = Object.entries(r.reasons).sort((a, b) => b[1] - a[1]);
  if (reasons.length) {
    L.push('## Not succeeded, by reason', '', '| reason | count |', '|---|---:|');
    for (const [k, v] of reasons) L.push(`| ${k.replace(/\|/g, '\\|')} | ${n0(v)} |`);
    L.push('');
  }
  if (Object.keys(r.kinds).length > 1) {
    L.push('## By request kind', '', '| kind | sent | succeeded | units |', '|---|---:|---:|---:|');
    for (const [k, v] of Object.entries(r.kinds)) L.push(`| ${k} | ${n0(v.sent)} | ${n0(v.ok)} | ${n0(v.units)} |`);
    L.push('');
  }
  if (r.curves?.length) {
    L.push('## Cost curves', '');
    for (const c of r.curves) {
      L.push(`### ${c.axis}${c.verdict.superlinear ? ' — worse than linear' : ''}`, '', c.verdict.message, '', `| ${c.axis} | bytes/request | fastest ms (judged) | p50 ms | p99 ms | requests/s | goodput/s |`, '|---:|---:|---:|---:|---:|---:|---:|');
      for (const p of c.points) L.push(`| ${p.value} | ${n0(p.bytesPerRequest)} | ${ms(p.min)} | ${ms(p.p50)} | ${ms(p.p99)} | ${p.rps.toFixed(1)} | ${p.goodput.toFixed(1)} |`);
      L.push('');
    }
  }
  if (r.checks.length) {
    L.push('## Checks', '');
    for (const c of r.checks) L.push(`- ${c.passed ? 'passed' : '**FAILED**'}: ${c.name} — ${c.message}`);
    L.push('');
  }
  if (r.thresholds.length) {
    L.push('## Thresholds', '', '| threshold | actual | result |', '|---|---:|---|');
    for (const t of r.thresholds) L.push(`| \`${t.threshold}\`${t.byDefault ? ' (default bound)' : ''} | ${t.actualText} | ${t.passed ? 'passed' : '**broken**'} |`);
    L.push('');
  }
  const conflicts = Object.entries(r.stats).filter(([k]) => k.endsWith('conflicts'));
  for (const [k, c] of conflicts) {
    const applied = r.stats[k.replace(/conflicts$/, 'applied')] ?? 0;
    if (c + applied > 0) L.push(`Conflict rate${k.includes('.') ? ` (${k.split('.')[0]})` : ''}: ${pct(c / (c + applied))} of ${n0(c + applied)} commits at the offered load (${modelText(r)}).`, '');
  }
  if (Object.keys(r.stats).length) L.push('## Scenario figures', '', ...Object.entries(r.stats).map(([k, v]) => `- ${k}: ${n0(v)}`), '');
  L.push('## Load generator', '', `${r.generator.note}.`, '');
  return L.join('\n');
}

/** What each phase of the answered requests took: where the time went (server, network or generator). */
export const PHASES_NOTE = 'for the requests that got a response: blocked is the wait from the intended send time for a connection (queue, busy generator); connect and TLS count only the requests that opened a connection; wait is the time to first byte';

function phaseLines(r: LoadRunResult): string[] {
  const p = r.phases;
  if (!p) return [];
  const L = ['## Phases of a request (ms)', '', '| phase | p50 | p90 | p99 | p99.9 | max | mean | samples |', '|---|---:|---:|---:|---:|---:|---:|---:|'];
  for (const k of PHASES) {
    const s = p[k].latency;
    L.push(`| ${k} | ${ms(s.p50)} | ${ms(s.p90)} | ${ms(s.p99)} | ${ms(s.p999)} | ${ms(s.max)} | ${ms(s.mean)} | ${n0(s.count)} |`);
  }
  L.push('', `Phases ${PHASES_NOTE}.`, '');
  return L;
}

/** What a merge was made of: the shards present, and those missing, given twice or late. */
export function shardLines(m: MergeNotes): string[] {
  const L = ['## Shards', '', `- Merged ${m.present.length} of ${m.count} shards${m.requestedStartMs !== undefined ? `, shared start ${new Date(m.requestedStartMs).toISOString()}` : ''}`];
  if (m.missing.length) L.push(`- **Missing shards: ${m.missing.join(', ')}**: the figures cover the others only`);
  if (m.duplicates.length) L.push(`- Shards given more than once (counted once): ${m.duplicates.join(', ')}`);
  for (const l of m.late) L.push(`- Shard ${l.index} started ${(l.lateMs / 1000).toFixed(1)} s late`);
  L.push('');
  return L;
}

/**
 * `summary.md`: Markdown for a CI step summary (`$GITHUB_STEP_SUMMARY`). Violations and server
 * errors come first; assumption mismatches have their own section, because they are readings of
 * what the spec does not show and never fail the run; performance findings (cost smells, no clause)
 * have theirs, and fail the run only under `--fail-on performance`.
 */
import { examplesMarkdown, stoppedLine } from './examples.ts';
import { ASSUMPTION_BY_NAME, isRecord } from '../spec/index.ts';
import { coverageHeadline } from './coverage-md.ts';
import { cell, fence } from './markdown.ts';
import type { Report } from './report-json.ts';
import { nemesisLine } from './nemesis.ts';
import { evidenceCell, throttlingLine, unknownFindings, vouchedLine } from './vouched.ts';
import { counterexampleText, curlLines, mismatchLine } from './finding-text.ts';
import { sharedCauses, sharedCauseText } from './shared-causes.ts';

const ICON: Readonly<Record<Report['properties'][number]['status'], string>> = {
  passed: '✅ passed',
  failed: '❌ failed',
  skipped: '⏭️ skipped',
  interrupted: '⏸️ interrupted',
  error: '⚠️ error',
  inconclusive: '❔ inconclusive',
};

const UNREACHABLE = 'target unreachable';

/** Said of the embedded reference wherever a run of it is reported, so a green run is never read as a verdict on the reader's service. */
export const EMBEDDED_WORDS = "pouchproof's own server, not your service";

/** The run in a few words: why its exit code is what it is. */
export function verdictOf(report: Report): string {
  const t = report.totals;
  const violations = t.findings.violation + t.findings['server-error'] + t.findings.crash;
  if (report.exitCode === 0) return 'no violations';
  if (violations) return `${t.findings.violation} violation(s), ${t.findings['server-error']} server error(s)${t.findings.crash ? ', the target went down (crash)' : ''}`;
  if (report.unreachable) return UNREACHABLE;
  // Exit 3 without `unreachable`: the target timed out on most requests, which the inconclusive line says.
  if (report.exitCode === 3) return report.inconclusive ?? UNREACHABLE;
  if (t.findings.performance && (report.options.failOn ?? []).includes('performance')) return `${t.findings.performance} performance finding(s) (--fail-on performance)`;
  if (t.error) return `${t.error} propert${t.error === 1 ? 'y' : 'ies'} pouchproof could not run`;
  // Nothing sent and nothing vouched for: the run's one reason (a target not reached before the run) is the verdict.
  if (t.inconclusive === t.properties && t.requests === 0 && report.inconclusive) return report.inconclusive;
  if (t.inconclusive) return `could not vouch for ${t.inconclusive} propert${t.inconclusive === 1 ? 'y' : 'ies'}`;
  return 'nothing was checked';
}

/** The title (the verdict), the target and run, and the totals table. */
function headline(report: Report): string[] {
  const out: string[] = [];
  const t = report.totals;
  const verdict = report.exitCode === 0 && report.interrupted ? 'interrupted, no violations so far' : verdictOf(report);
  out.push(`## pouchproof: ${verdict}${verdict === UNREACHABLE ? ` (${report.unreachable})` : ''}`);
  out.push('');
  if (report.target.embedded) out.push(`**The target is the embedded reference** (${EMBEDDED_WORDS})`, '');
  out.push(`Target **${cell(report.target.name)}** (${cell(report.target.baseUrl)}${report.target.faults?.length ? `, faults: ${report.target.faults.join(', ')}` : ''}) · seed \`${report.seed}\` · ${t.requests} requests · ${(report.durationMs / 1000).toFixed(1)} s · run \`${report.runId}\` · pouchproof ${cell(report.tool.version)}${report.interrupted ? ' · **interrupted (partial report)**' : ''}`);
  out.push('');
  out.push(`| properties | passed | failed | skipped | not run (error) | inconclusive | violations | server errors | crashes | assumption mismatches | performance | transport |`);
  out.push(`|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`);
  out.push(`| ${t.properties} | ${t.passed} | ${t.failed} | ${t.skipped} | ${t.error} | ${t.inconclusive} | ${t.findings.violation} | ${t.findings['server-error']} | ${t.findings.crash} | ${t.findings.assumption} | ${t.findings.performance} | ${t.findings.transport} |`);
  out.push('');
  return out;
}

/** What the run could and could not vouch for, and the headlines of the examples, load, readings and coverage. */
function notes(report: Report): string[] {
  const out: string[] = [];
  out.push(`**${cell(vouchedLine(report))}**`, '');
  if (report.inconclusive) out.push(`**Inconclusive** (the run does not pass): ${cell(report.inconclusive)}`, '');
  for (const h of report.hints ?? []) out.push(`**To decide more:** ${cell(h)}`, '');
  const throttled = throttlingLine(report);
  if (throttled) out.push(`Throttling: ${cell(throttled)}`, '');
  const nemesis = nemesisLine(report);
  if (nemesis) out.push(`Nemesis: ${cell(nemesis)}`, '');
  if (report.budget && (report.budget.cut.length || report.budget.notRun.length)) {
    const b = report.budget;
    out.push(`**Not covered** within the time budget of ${(b.maxDurationMs / 1000).toFixed(0)} s:${b.cut.length ? ` cut short ${b.cut.map((x) => `\`${x}\``).join(', ')};` : ''}${b.notRun.length ? ` not run ${b.notRun.map((x) => `\`${x}\``).join(', ')}` : ''}`, '');
  }
  const stopped = stoppedLine(report);
  if (stopped) out.push(`**Not covered:** ${cell(stopped)}`, '');
  out.push(...examplesMarkdown(report, cell));
  const load = loadHeadline(report.load);
  if (load) out.push(`Load: ${load}`, '');
  const readings = readingsHeadline(report.readings);
  if (readings) out.push(`Readings: ${readings} (table and evidence: readings.md)`, '');
  const notTaken = fixedNotTaken(report.readings);
  if (notTaken.length) out.push('**Fixed readings the target was seen not to take** (reported, not failed; the run was judged under the fixed ones):', '', ...notTaken.map((x) => `- ${cell(x)}`), '');
  const coverage = coverageHeadline(report.coverage);
  if (coverage) out.push(`Coverage: ${coverage} (table: coverage.md)`, '');
  return out;
}

/** One row per property. */
function propertiesTable(report: Report): string[] {
  const out: string[] = [];
  out.push('| property | section | status | judged (against its floor) | requests | findings |');
  out.push('|---|---|---|---|---:|---|');
  for (const p of report.properties) {
    const kinds = new Map<string, number>();
    for (const f of p.findings) if (f.kind !== 'skipped') kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
    const findings = [...kinds].map(([k, n]) => `${n} ${k}`).join(', ') || (p.status === 'skipped' ? cell(p.findings[0]?.message ?? '') : p.status === 'inconclusive' ? cell(p.inconclusive ?? '') : '—');
    out.push(`| \`${p.id}\` | ${p.section} | ${ICON[p.status]} | ${evidenceCell(p) ?? `${p.runs} cases`} | ${p.requests} | ${findings} |`);
  }
  return out;
}

/** Each violation, server error and crash with its ground, counterexample, replay and curl lines. */
function failingSection(report: Report): string[] {
  const out: string[] = [];
  const failing = report.properties.flatMap((p) => p.findings.filter((f) => f.kind === 'violation' || f.kind === 'server-error' || f.kind === 'crash'));
  if (failing.length) {
    out.push('', '### Violations, server errors and crashes', '');
    const causes = sharedCauses(report.properties);
    for (const c of causes) out.push(`- ${sharedCauseText(c, (s) => `\`${s}\``)}`);
    if (causes.length) out.push('');
    for (const f of failing) {
      // A message may end in a drawing (a history's timeline): its first line as text, the rest verbatim.
      const [first = '', ...rest] = f.message.split('\n');
      out.push(`#### \`${f.property}\` (§${f.section}): ${f.kind}`, '', cell(first), '', ...(rest.length ? [fence(rest.join('\n')), ''] : []));
      if (f.ground) out.push(`Ground: ${cell(f.ground)}`, '');
      if (f.mismatch) out.push(`Compared: ${cell(mismatchLine(f.mismatch))}`, '');
      const counterexample = counterexampleText(f);
      if (counterexample) out.push('Counterexample' + (f.shrinks !== undefined ? ` (after ${f.shrinks} shrinks)` : '') + ':', '', fence(counterexample), '');
      if (f.replay) out.push(`Replay: \`pouchproof replay ${f.replay}\``, '');
      const curl = curlLines(f);
      if (curl.length) out.push('<details><summary>curl</summary>', '', fence(curl.join('\n')), '', '</details>', '');
    }
  }
  return out;
}

/** The properties pouchproof could not run. */
function errorsSection(report: Report): string[] {
  const out: string[] = [];
  const errors = report.properties.flatMap((p) => p.findings.filter((f) => f.kind === 'error'));
  if (errors.length) {
    out.push('', '### Properties pouchproof could not run', '');
    out.push('A fault of the suite or of its configuration, not of the target: the run exits 2 unless the target broke the spec (1) or stopped answering (3).', '');
    for (const f of errors) out.push(`- \`${f.property}\` (§${f.section}): ${cell(f.message)}`);
  }
  return out;
}

/** The assumption mismatches, reported and not failed. */
function mismatchesSection(report: Report): string[] {
  const out: string[] = [];
  const mismatches = report.properties.flatMap((p) => p.findings.filter((f) => f.kind === 'assumption'));
  if (mismatches.length) {
    out.push('', '### Assumption mismatches (reported, not failed)', '');
    out.push('The target behaves differently from a reading of something the spec does not show. Choose another reading with `--assume NAME=VALUE` if this is intended.', '');
    out.push('| property | assumption | cases | what happened |', '|---|---|---:|---|');
    for (const f of mismatches) out.push(`| \`${f.property}\` | \`${f.assumption ?? '?'}\` | ${f.occurrences ?? 1} | ${cell(f.message)} |`);
  }
  return out;
}

/** What neither the spec nor an identified reading decides. */
function unknownSection(report: Report): string[] {
  const out: string[] = [];
  const unknown = unknownFindings(report);
  if (unknown.length) {
    out.push('', '### Unknown (neither a violation nor a pass)', '');
    out.push('Neither the spec\'s words nor a reading identified by evidence decide these cases: they are shown with what was seen, and count against their property\'s evidence floor.', '');
    out.push('| property | cases | what was seen |', '|---|---:|---|');
    for (const f of unknown) out.push(`| \`${f.property}\` | ${f.occurrences ?? 1} | ${cell(f.message)}${f.hint ? ` (${cell(f.hint)})` : ''} |`);
  }
  return out;
}

/** The cost smells, failing only under `--fail-on performance`. */
function performanceSection(report: Report): string[] {
  const out: string[] = [];
  const performance = report.properties.flatMap((p) => p.findings.filter((f) => f.kind === 'performance'));
  if (performance.length) {
    const failing = (report.options.failOn ?? []).includes('performance');
    out.push('', `### Performance findings (${failing ? 'failing the run: --fail-on performance' : 'reported, not failed'})`, '');
    out.push('Cost growing worse than linearly with the size of one part of a request, within the limits the spec states. No clause of the spec is broken: a smell, with the evidence measured.', '');
    out.push('| property | judgement | evidence |', '|---|---|---|');
    for (const f of performance) out.push(`| \`${f.property}\` | \`${f.judgement ?? '?'}\` | ${cell(f.message)} |`);
  }
  return out;
}

/** Transport problems. */
function transportSection(report: Report): string[] {
  const out: string[] = [];
  const transport = report.properties.flatMap((p) => p.findings.filter((f) => f.kind === 'transport'));
  if (transport.length) {
    out.push('', '### Transport problems', '');
    for (const f of transport) out.push(`- \`${f.property}\`: ${cell(f.message)}${f.occurrences && f.occurrences > 1 ? ` (${f.occurrences} cases)` : ''}`);
  }
  return out;
}

/** Skipped properties and why. */
function skippedSection(report: Report): string[] {
  const out: string[] = [];
  const skipped = report.properties.filter((p) => p.status === 'skipped');
  if (skipped.length) {
    out.push('', '### Skipped', '');
    for (const p of skipped) out.push(`- \`${p.id}\`: ${cell(p.findings.find((f) => f.kind === 'skipped')?.message ?? 'skipped')}`);
  }
  return out;
}

export function toSummaryMarkdown(report: Report): string {
  const sections = [headline, notes, propertiesTable, failingSection, errorsSection, mismatchesSection, unknownSection, performanceSection, transportSection, skippedSection];
  return `${sections.flatMap((section) => section(report)).join('\n')}\n`;
}

/** One line about the readings discovered before the run, read defensively (their shape belongs to src/discover). */
export function readingsHeadline(readings: unknown): string | undefined {
  if (!isRecord(readings)) return undefined;
  const table = Array.isArray(readings.table) ? readings.table : [];
  const found = table.filter((x) => isRecord(x) && x.status === 'found').length;
  const differ = Object.entries(isRecord(readings.readings) ? readings.readings : {}).filter(([k, v]) => ASSUMPTION_BY_NAME.get(k)?.default !== v);
  return `${found} of ${table.length} observed; ${differ.length ? `the run was judged under ${differ.map(([k, v]) => `\`${k}=${v}\``).join(', ')}` : 'all as the registry reads them'}`;
}

/**
 * Readings the user fixed (profile, `--assume`) that discovery saw the target not take, one line each,
 * read defensively. The properties judged the run under the fixed readings, so their findings do not
 * count these: without this line a run told a stricter reading than the target takes (unknown members
 * refused, where it ignores them) would end saying nothing of it.
 */
export function fixedNotTaken(readings: unknown): string[] {
  if (!isRecord(readings) || !Array.isArray(readings.mismatches)) return [];
  return readings.mismatches.map((m: unknown) => {
    const x = isRecord(m) ? m : {};
    return `${String(x.assumption ?? '?')}: fixed to ${String(x.fixed ?? '?')}, the target was seen to take ${String(x.observed ?? '?')}`;
  });
}

/** One line about the short load run of `npm start`, read defensively (its shape belongs to src/load). */
export function loadHeadline(load: unknown): string | undefined {
  if (!isRecord(load)) return undefined;
  const l = load;
  if (typeof l.skipped === 'string') return `load run skipped: ${l.skipped}`;
  if (typeof l.error === 'string') return `load run failed: ${l.error}`;
  const num = (o: unknown, k: string): number | undefined => {
    const v = isRecord(o) ? o[k] : undefined;
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  };
  const ok = num(l.rates, 'okPerSecond') ?? num(l.rates, 'rps');
  const sent = num(l.totals, 'sent');
  const p50 = num(l.latency, 'p50');
  const p99 = num(l.latency, 'p99');
  const err = num(l, 'errorRate');
  const parts = [
    typeof l.scenario === 'string' ? l.scenario : 'load',
    ok !== undefined ? `${ok.toFixed(0)} ok/s` : undefined,
    sent !== undefined ? `${sent} requests` : undefined,
    p50 !== undefined ? `p50 ${(p50 / 1000).toFixed(1)} ms` : undefined,
    p99 !== undefined ? `p99 ${(p99 / 1000).toFixed(1)} ms` : undefined,
    err !== undefined ? `error rate ${(err * 100).toFixed(2)}%` : undefined,
  ].filter(Boolean);
  return parts.join(', ');
}

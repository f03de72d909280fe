/**
 * `junit.xml`: one <testcase> per property so CI dashboards list the suite. Violations, server
 * errors and crashes are <failure>s carrying the counterexample and curl lines; a property pouchproof
 * could not run, or that is inconclusive, is an <error>; skipped properties are <skipped>; assumption mismatches and transport trouble
 * go to <system-out>, never failures. Performance findings (cost smells) go to <system-out> too,
 * unless the run was told to fail on them (`--fail-on performance`): then they are <failure>s.
 * A judgement that failed in many properties (shared-causes.ts) is named in the suite's <system-out>,
 * and in the first line of each of its failures: a dashboard shows each test case alone, and
 * twenty-three red cases of one defect read as twenty-three defects.
 */
import type { Report } from './report-json.ts';
import { evidenceCell } from './vouched.ts';
import { counterexampleText, curlLines, mismatchLine } from './finding-text.ts';
import { ONE_DEFECT, sharedCauses, sharedCauseText } from './shared-causes.ts';

// XML 1.0 forbids most control characters even when escaped; they are replaced.
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function xmlEscape(s: string): string {
  return s
    .replace(INVALID_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const failing = (f: FindingReport): boolean => f.kind === 'violation' || f.kind === 'server-error' || f.kind === 'crash';
const attr = (name: string, value: string | number) => ` ${name}="${xmlEscape(String(value))}"`;
const seconds = (ms: number) => (ms / 1000).toFixed(3);

type PropertyReport = Report['properties'][number];
type FindingReport = PropertyReport['findings'][number];

export function toJunit(report: Report): string {
  const props = report.properties;
  const failsOn = (f: FindingReport): boolean => failing(f) || (f.kind === 'performance' && (report.options.failOn ?? []).includes('performance'));
  const failures = props.filter((p) => p.findings.some(failsOn)).length;
  const skipped = props.filter((p) => p.status === 'skipped').length;
  const errors = props.filter((p) => p.status === 'error' || p.status === 'inconclusive').length;
  const lines: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  lines.push(`<testsuites${attr('name', 'pouchproof')}${attr('tests', props.length)}${attr('failures', failures)}${attr('errors', errors)}${attr('skipped', skipped)}${attr('time', seconds(report.durationMs))}>`);
  lines.push(`  <testsuite${attr('name', `pouchproof ${report.target.name}`)}${attr('tests', props.length)}${attr('failures', failures)}${attr('errors', errors)}${attr('skipped', skipped)}${attr('time', seconds(report.durationMs))}${attr('timestamp', report.startedAt)}>`);
  lines.push('    <properties>');
  lines.push(`      <property${attr('name', 'pouchproof-version')}${attr('value', report.tool.version)}/>`);
  lines.push(`      <property${attr('name', 'seed')}${attr('value', report.seed)}/>`);
  lines.push(`      <property${attr('name', 'target')}${attr('value', report.target.baseUrl)}/>`);
  lines.push(`      <property${attr('name', 'interrupted')}${attr('value', String(report.interrupted))}/>`);
  lines.push('    </properties>');
  const causes = sharedCauses(props);
  const sharedBy = new Map(causes.map((c) => [c.judgement, c.properties.length]));
  for (const p of props) lines.push(testcase(p, failsOn, sharedBy));
  if (causes.length) lines.push(`    <system-out>${xmlEscape(causes.map((c) => sharedCauseText(c)).join('\n'))}</system-out>`);
  lines.push('  </testsuite>');
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}

/** One property's <testcase>; `sharedBy`: the judgements that failed in many properties, and in how many. */
function testcase(p: PropertyReport, failsOn: (f: FindingReport) => boolean, sharedBy: ReadonlyMap<string, number>): string {
  const area = p.id.includes('.') ? p.id.slice(0, p.id.indexOf('.')) : p.id;
  const open = `    <testcase${attr('classname', `pouchproof.${area}`)}${attr('name', `${p.id} (§${p.section})`)}${attr('time', seconds(p.durationMs))}`;
  const body: string[] = p.findings.filter(failsOn).map((f) => failureXml(f, sharedBy));
  // JUnit's <error>: the test itself could not run, as opposed to a <failure> of what it checks.
  for (const f of p.findings.filter((x) => x.kind === 'error')) body.push(`      <error${attr('type', f.kind)}${attr('message', f.message)}>${xmlEscape(f.message)}</error>`);
  // Inconclusive is no pass: it judged less than its evidence floor (an <error>, not a <failure> of the target).
  if (p.status === 'inconclusive') {
    const why = `inconclusive: could not vouch for it: ${p.inconclusive ?? 'below its evidence floor'}`;
    body.push(`      <error${attr('type', 'inconclusive')}${attr('message', why)}>${xmlEscape(why)}</error>`);
  }
  if (p.status === 'skipped') {
    const reason = p.findings.find((f) => f.kind === 'skipped')?.message ?? 'skipped';
    body.push(`      <skipped${attr('message', reason)}/>`);
  }
  const out = systemOut(p, failsOn);
  if (out) body.push(out);
  return body.length ? `${open}>\n${body.join('\n')}\n    </testcase>` : `${open}/>`;
}

function failureXml(f: FindingReport, sharedBy: ReadonlyMap<string, number>): string {
  const counterexample = counterexampleText(f);
  const shared = f.kind === 'violation' && f.judgement ? sharedBy.get(f.judgement) : undefined;
  const detail = [
    shared ? `[shared cause] ${f.judgement} failed in ${shared} properties: ${ONE_DEFECT} (the suite's system-out names them)` : '',
    f.message,
    f.mismatch ? mismatchLine(f.mismatch) : '',
    counterexample ? `counterexample: ${counterexample}` : '',
    f.shrinks !== undefined ? `shrinks: ${f.shrinks}` : '',
    f.replay ? `replay: pouchproof replay ${f.replay}` : '',
    ...curlLines(f),
  ]
    .filter(Boolean)
    .join('\n');
  return `      <failure${attr('type', f.kind)}${attr('message', f.message)}>${xmlEscape(detail)}</failure>`;
}

/** The notes no failure carries, and the evidence a pass rests on, or undefined. */
function systemOut(p: PropertyReport, failsOn: (f: FindingReport) => boolean): string | undefined {
  const notes = p.findings.filter((f) => f.kind === 'assumption' || f.kind === 'unknown' || f.kind === 'transport' || (f.kind === 'performance' && !failsOn(f)));
  if (p.status === 'interrupted') notes.push({ kind: 'transport', property: p.id, section: p.section, message: 'interrupted before it finished' });
  // What the property vouched on, against its floor: a pass says how much evidence it rests on.
  const ev = p.evidence;
  const judged = ev && (p.status === 'passed' || p.status === 'inconclusive') ? evidenceCell(p) : undefined;
  const floor = judged && ev ? [`[evidence] ${judged} (floor: ${Math.round(ev.floor.random * 100)}% of random, ${Math.round(ev.floor.coverage * 100)}% of coverage)`] : [];
  if (!notes.length && !floor.length) return undefined;
  const text = [...floor, ...notes.map((f) => `[${f.kind}${f.assumption ? ` ${f.assumption}` : ''}] ${f.message}${f.occurrences && f.occurrences > 1 ? ` (${f.occurrences} cases)` : ''}`)].join('\n');
  return `      <system-out>${xmlEscape(text)}</system-out>`;
}

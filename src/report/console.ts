/**
 * The console view: on a terminal, a progress bar (property, cases, elapsed) redrawn in place with
 * one line per finished property above it; otherwise plain lines only. Colour only on a terminal
 * and never with NO_COLOR (https://no-color.org).
 */
import { stoppedLine } from './examples.ts';
import type { ProgressEvent, PropertyResult } from '../check/run/index.ts';
import type { Report } from './report-json.ts';
import { coverageHeadline } from './coverage-md.ts';
import { fixedNotTaken, loadHeadline, verdictOf } from './summary-md.ts';
import { nemesisLine, nemesisWords } from './nemesis.ts';
import { evidenceCell, throttlingLine, unknownFindings, vouchedLine } from './vouched.ts';
import { counterexampleText, curlLine, mismatchLine, type FindingData } from './finding-text.ts';
import { sharedCauses, sharedCauseText } from './shared-causes.ts';

export interface ConsoleOptions {
  readonly out?: { write(s: string): unknown; isTTY?: boolean; columns?: number };
  readonly tty?: boolean;
  readonly color?: boolean;
  readonly env?: NodeJS.ProcessEnv;
}

export function colorWanted(isTTY: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTTY && env.TERM !== 'dumb';
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, dim: 2, bold: 1 } as const;
type Colour = keyof typeof CODES;

/** A failing finding's detail, one line each: what broke, on what ground, what was compared, the case, how to replay it, its last curl line. */
export function findingDetail(f: FindingData & { readonly message: string; readonly ground?: string; readonly shrinks?: number; readonly replay?: string }): string[] {
  const w = [f.message];
  if (f.ground) w.push(`ground: ${f.ground}`);
  if (f.mismatch) w.push(mismatchLine(f.mismatch));
  // Where the nemesis struck this finding's exchanges: a lost answer behind a retry is part of the case.
  for (const ex of f.exchanges ?? []) if (ex.nemesis) w.push(`nemesis on exchange #${ex.id}: ${nemesisWords(ex.nemesis)}`);
  const counterexample = counterexampleText(f);
  if (counterexample) w.push(`counterexample${f.shrinks !== undefined ? ` (${f.shrinks} shrinks)` : ''}: ${counterexample.length > 400 ? `${counterexample.slice(0, 400)}…` : counterexample}`);
  if (f.replay) w.push(`replay: pouchproof replay ${f.replay}`);
  // A curl line may open with `#` comment lines (masked secrets, a body left out): the command is what follows them.
  const last = f.exchanges?.at(-1);
  const lastCurl = last ? curlLine(last).split('\n').filter((l) => !l.startsWith('#')).join('\n') : undefined;
  if (lastCurl?.startsWith('curl')) w.push(lastCurl.length > 400 ? `${lastCurl.slice(0, 400)}…` : lastCurl);
  return w;
}

export class ConsoleView {
  private readonly out: NonNullable<ConsoleOptions['out']>;
  private readonly tty: boolean;
  private readonly color: boolean;
  private barShown = false;
  private lastDraw = 0;
  /** The properties in flight (side by side, several), in the order they started. */
  private readonly running = new Map<string, { index: number; total: number; cases: number; runs: number; started: number }>();
  private ended = 0;
  private readonly runStarted = Date.now();

  constructor(o: ConsoleOptions = {}) {
    this.out = o.out ?? process.stdout;
    this.tty = o.tty ?? Boolean(this.out.isTTY);
    this.color = o.color ?? colorWanted(this.tty, o.env);
  }

  paint(c: Colour, s: string): string {
    return this.color ? `\x1b[${CODES[c]}m${s}\x1b[0m` : s;
  }

  /** A line above the progress bar. */
  line(s: string): void {
    this.clearBar();
    this.out.write(`${s}\n`);
    this.drawBar(true);
  }

  readonly onProgress = (e: ProgressEvent): void => {
    if (e.type === 'property-start') {
      this.running.set(e.id, { index: e.index, total: e.total, cases: 0, runs: 0, started: Date.now() });
      this.drawBar(true);
    } else if (e.type === 'case') {
      const r = this.running.get(e.id);
      if (r) {
        r.cases = e.cases;
        r.runs = e.runs;
      }
      this.drawBar(false);
    } else {
      this.running.delete(e.result.id);
      this.ended = e.ended;
      this.line(this.resultLine(e.result));
      if (e.ended >= e.total) {
        this.running.clear();
        this.clearBar();
      }
    }
  };

  resultLine(r: PropertyResult): string {
    const mark = {
      passed: this.paint('green', 'ok  '),
      failed: this.paint('red', 'FAIL'),
      skipped: this.paint('dim', 'skip'),
      interrupted: this.paint('yellow', 'stop'),
      error: this.paint('red', 'ERR '),
      inconclusive: this.paint('yellow', 'INC '),
    }[r.status];
    const kinds = r.findings.filter((f) => f.kind !== 'skipped' && f.kind !== 'error').map((f) => f.kind);
    const notes = kinds.length ? `  ${this.paint('yellow', [...new Set(kinds)].map((k) => `${kinds.filter((x) => x === k).length} ${k}`).join(', '))}` : '';
    const why = r.status === 'skipped' ? `  ${this.paint('dim', r.findings[0]?.message ?? '')}`
      : r.status === 'error' ? `  ${this.paint('red', r.findings.find((f) => f.kind === 'error')?.message ?? '')}`
      : r.status === 'inconclusive' ? `  ${this.paint('yellow', `inconclusive: ${r.inconclusive ?? 'no case completed'}`)}`
      : r.timeBound ? `  ${this.paint('yellow', `${r.timeBound.budgetShareMs !== undefined ? 'its share of the time budget' : 'time bound'} reached: ${r.runs} of ${r.timeBound.planned} cases`)}` : '';
    const judged = r.status === 'passed' || r.status === 'failed' ? evidenceCell(r) : undefined;
    return `${mark} ${r.id.padEnd(36)} §${r.section.padEnd(5)} ${String(r.runs).padStart(4)} cases ${String(r.requests).padStart(5)} req ${(r.durationMs / 1000).toFixed(1).padStart(5)}s${judged ? `  ${this.paint('dim', judged)}` : ''}${notes}${why}`;
  }

  private drawBar(force: boolean): void {
    const [first] = this.running;
    if (!this.tty || !first) return;
    const now = Date.now();
    if (!force && now - this.lastDraw < 80) return;
    this.lastDraw = now;
    const [id, c] = first;
    const width = 20;
    const done = Math.round((this.ended / Math.max(1, c.total)) * width);
    const bar = `[${'#'.repeat(done)}${'-'.repeat(width - done)}]`;
    const others = this.running.size > 1 ? ` (+${this.running.size - 1} beside it)` : '';
    const text = `${bar} ${this.ended}/${c.total} done  ${id}  case ${c.cases}${c.runs ? `/${c.runs}` : ''}  ${((now - c.started) / 1000).toFixed(1)}s${others} (total ${((now - this.runStarted) / 1000).toFixed(0)}s)`;
    const cols = this.out.columns ?? 100;
    this.out.write(`\r\x1b[K${this.paint('cyan', text.slice(0, Math.max(20, cols - 1)))}`);
    this.barShown = true;
  }

  private clearBar(): void {
    if (this.barShown) {
      this.out.write('\r\x1b[K');
      this.barShown = false;
    }
  }

  /** The end-of-run view: failures in detail, mismatches briefly, totals, where the reports are. */
  summary(report: Report, reportDir?: string): void {
    this.clearBar();
    const w = ['', ...this.findingLines(report), ...this.closingLines(report, reportDir)];
    this.out.write(`${w.join('\n')}\n`);
  }

  /** The findings in detail (violations, server errors, crashes), then those that do not fail the run, each kind under its heading. */
  private findingLines(report: Report): string[] {
    const w: string[] = [];
    const causes = sharedCauses(report.properties);
    for (const c of causes) w.push(this.paint('red', sharedCauseText(c)));
    if (causes.length) w.push('');
    for (const p of report.properties) {
      for (const f of p.findings) {
        if (f.kind !== 'violation' && f.kind !== 'server-error' && f.kind !== 'crash') continue;
        w.push(`${this.paint('red', f.kind.toUpperCase())} ${this.paint('bold', f.property)} (§${f.section})`);
        w.push(...findingDetail(f).map((l) => `  ${l}`));
        w.push('');
      }
    }
    const errors = report.properties.flatMap((p) => p.findings.filter((f) => f.kind === 'error'));
    if (errors.length) {
      w.push(this.paint('red', 'Properties pouchproof could not run (a fault of the suite or its configuration, not of the target):'));
      for (const f of errors) w.push(`  ${f.property} (§${f.section}): ${f.message}`);
      w.push('');
    }
    const mismatches = report.properties.flatMap((p) => p.findings.filter((f) => f.kind === 'assumption'));
    if (mismatches.length) {
      w.push(this.paint('yellow', 'Assumption mismatches (not failures):'));
      for (const f of mismatches) w.push(`  ${f.property}: [${f.assumption ?? '?'}] ${f.message}`);
      w.push('');
    }
    const notTaken = fixedNotTaken(report.readings);
    if (notTaken.length) {
      w.push(this.paint('yellow', 'Fixed readings the target was seen not to take (not failures; the run was judged under the fixed ones):'));
      for (const m of notTaken) w.push(`  ${m}`);
      w.push('');
    }
    const unknown = unknownFindings(report);
    if (unknown.length) {
      w.push(this.paint('yellow', 'Unknown (neither the spec\'s words nor an identified reading decide; not failures, not passes):'));
      for (const f of unknown) w.push(`  ${f.property}: ${f.message}${f.occurrences && f.occurrences > 1 ? ` (${f.occurrences} cases)` : ''}`);
      w.push('');
    }
    const performance = report.properties.flatMap((p) => p.findings.filter((f) => f.kind === 'performance'));
    if (performance.length) {
      const failing = (report.options.failOn ?? []).includes('performance');
      w.push(this.paint(failing ? 'red' : 'yellow', `Performance findings (cost smells, no clause of the spec; ${failing ? 'failing the run: --fail-on performance' : 'not failures'}):`));
      for (const f of performance) w.push(`  ${f.property}: ${f.message}`);
      w.push('');
    }
    return w;
  }

  /** Why the run stopped or could not vouch, the verdict with the totals, and the headlines of coverage, load and the reports. */
  private closingLines(report: Report, reportDir: string | undefined): string[] {
    const w: string[] = [];
    const notTaken = fixedNotTaken(report.readings);
    const t = report.totals;
    if (report.unreachable) w.push(this.paint('red', `${report.unreachable}: the run stopped, nothing after that point was checked`));
    if (report.budget && (report.budget.cut.length || report.budget.notRun.length)) {
      const b = report.budget;
      w.push(this.paint('yellow', `time budget ${(b.maxDurationMs / 1000).toFixed(0)} s (--max-duration): not covered:${b.cut.length ? ` cut short ${b.cut.join(', ')};` : ''}${b.notRun.length ? ` not run ${b.notRun.join(', ')}` : ''}`));
    }
    const stopped = stoppedLine(report);
    if (stopped) w.push(this.paint('yellow', stopped));
    if (report.inconclusive) w.push(this.paint('yellow', `inconclusive: ${report.inconclusive}`));
    for (const h of report.hints ?? []) w.push(this.paint('yellow', `to decide more: ${h}`));
    const throttled = throttlingLine(report);
    if (throttled) w.push(`throttling: ${throttled}`);
    const nemesis = nemesisLine(report);
    if (nemesis) w.push(this.paint('yellow', `nemesis: ${nemesis}`));
    w.push(vouchedLine(report));
    const headline = this.paint(report.exitCode === 0 ? 'green' : 'red', verdictOf(report));
    w.push(`${headline}${report.interrupted ? this.paint('yellow', ' (interrupted: partial run)') : ''} — ${t.properties} properties: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped${t.inconclusive ? `, ${t.inconclusive} inconclusive` : ''}${t.interrupted ? `, ${t.interrupted} interrupted` : ''}${t.error ? `, ${t.error} not run (error)` : ''}; ${t.findings.assumption} assumption mismatch(es)${notTaken.length ? `, ${notTaken.length} fixed reading(s) not taken` : ''}${t.findings.performance ? `, ${t.findings.performance} performance finding(s)` : ''}${t.findings.unknown ? `, ${t.findings.unknown} unknown` : ''}; ${t.requests} requests in ${(report.durationMs / 1000).toFixed(1)}s; seed ${report.seed}`);
    const coverage = coverageHeadline(report.coverage);
    if (coverage) w.push(`coverage: ${coverage}`);
    const load = loadHeadline(report.load);
    if (load) w.push(`load: ${load}`);
    if (reportDir) w.push(`reports: ${reportDir}`);
    return w;
  }
}

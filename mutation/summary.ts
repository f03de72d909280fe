/**
 * What `npm run mutation` prints after Stryker: the score, a per-file table, the surviving mutants
 * and, apart from them, those judged equivalent (`mutation/equivalent.json`). Pure: it reads
 * Stryker's JSON report (mutation-testing-report-schema) and returns text, so it can be tested
 * without running Stryker.
 *
 * An equivalent is matched by file, mutator and the original source text (whitespace collapsed),
 * optionally the replacement, never by line: a judgement must survive edits above the mutant.
 */

export type MutantStatus = 'Killed' | 'Survived' | 'NoCoverage' | 'Timeout' | 'CompileError' | 'RuntimeError' | 'Ignored' | 'Pending';

interface Position {
  readonly line: number;
  readonly column: number;
}

export interface ReportMutant {
  readonly id: string;
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly location: { readonly start: Position; readonly end: Position };
  readonly status: MutantStatus;
  readonly statusReason?: string;
  readonly static?: boolean;
}

export interface Report {
  readonly files: Readonly<Record<string, { readonly source: string; readonly mutants: readonly ReportMutant[] }>>;
}

export interface Equivalent {
  readonly file: string;
  readonly mutator: string;
  readonly original: string;
  /** When one original text yields several mutants of one mutator (`true` and `false`), the one meant. */
  readonly replacement?: string;
  readonly reason: string;
}

/** One mutant with what the printout needs, whichever half of the oracle decided it. */
export interface Mutant {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly mutator: string;
  readonly original: string;
  readonly replacement: string;
  readonly status: MutantStatus;
  /** Killed by the readings half (the default half left it alive or never ran it). */
  readonly byReadings: boolean;
  /**
   * Killed only by findings load can cause (a request unanswered in time, a cost smell, a property
   * out of time): a real stall, or the machine's load (the oracle's bounds are wide for that
   * reason); counted as detected, as Stryker does, and shown apart.
   */
  readonly byStall: boolean;
  /** The judgement matched in equivalent.json, for a mutant not detected. */
  readonly equivalent?: Equivalent;
}

const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** The source text a mutant replaces (Stryker's lines and columns are 1-based). */
export function originalText(source: string, m: Pick<ReportMutant, 'location'>): string {
  const lines = source.split('\n');
  const { start, end } = m.location;
  if (start.line === end.line) return lines[start.line - 1]?.slice(start.column - 1, end.column - 1) ?? '';
  const first = lines[start.line - 1]?.slice(start.column - 1) ?? '';
  const middle = lines.slice(start.line, end.line - 1);
  const last = lines[end.line - 1]?.slice(0, end.column - 1) ?? '';
  return [first, ...middle, last].join('\n');
}

/** A mutant's identity across the two halves (same source, so positions agree). */
export const mutantKey = (file: string, m: ReportMutant): string =>
  `${file}:${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column}:${m.mutatorName}:${m.replacement ?? ''}`;

/**
 * The oracle's findings, one a line, as its assertion message lists them (Stryker keeps it as a
 * kill's reason). Transport and performance findings and a property out of time are what load on
 * a shared machine can cause too; any other kind cannot.
 */
const STALL = /(^|\n)(transport |performance )|stopped by its \d+ ms bound/;
const OTHER_FINDING = /(^|\n)(violation|assumption|server-error|error|crash) /;

const DETECTED: ReadonlySet<MutantStatus> = new Set(['Killed', 'Timeout']);
const ALIVE: ReadonlySet<MutantStatus> = new Set(['Survived', 'NoCoverage']);

export function matchEquivalent(list: readonly Equivalent[], file: string, mutator: string, original: string, replacement: string): Equivalent | undefined {
  const text = collapse(original);
  return list.find(
    (e) => e.file === file && e.mutator === mutator && collapse(e.original) === text && (e.replacement === undefined || collapse(e.replacement) === collapse(replacement)),
  );
}

/**
 * Every mutant of the default half, with the readings half's verdict laid over those the default
 * half left alive. Static mutants are dropped: the vitest runner never re-imports a module per
 * mutant, so they were never active (docs/mutation.md).
 */
export function mutantsOf(defaultHalf: Report, readingsHalf: Report | undefined, equivalents: readonly Equivalent[]): Mutant[] {
  const second = new Map<string, MutantStatus>();
  const secondReason = new Map<string, string | undefined>();
  for (const [file, f] of Object.entries(readingsHalf?.files ?? {})) {
    for (const m of f.mutants) {
      second.set(mutantKey(file, m), m.status);
      secondReason.set(mutantKey(file, m), m.statusReason);
    }
  }
  const out: Mutant[] = [];
  for (const [file, f] of Object.entries(defaultHalf.files)) {
    for (const m of f.mutants) {
      if (m.static === true || m.status === 'Ignored') continue;
      const later = ALIVE.has(m.status) ? second.get(mutantKey(file, m)) : undefined;
      const byReadings = later !== undefined && DETECTED.has(later);
      // Code only an alternative reading runs is covered by the readings half: left alive there, it survived (it was not uncovered).
      const status = byReadings || (m.status === 'NoCoverage' && later === 'Survived') ? later! : m.status;
      const reason = byReadings ? secondReason.get(mutantKey(file, m)) : m.statusReason;
      const byStall = status === 'Killed' && reason !== undefined && STALL.test(reason) && !OTHER_FINDING.test(reason);
      const original = originalText(f.source, m);
      const replacement = m.replacement ?? '';
      const equivalent = ALIVE.has(status) ? matchEquivalent(equivalents, file, m.mutatorName, original, replacement) : undefined;
      out.push({ file, line: m.location.start.line, column: m.location.start.column, mutator: m.mutatorName, original, replacement, status, byReadings, byStall, ...(equivalent ? { equivalent } : {}) });
    }
  }
  return out.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}

export interface Tally {
  readonly mutants: number;
  readonly killed: number;
  readonly timeout: number;
  readonly byReadings: number;
  readonly byStall: number;
  /** Survived and no coverage count every such mutant, judged equivalent or not. */
  readonly survived: number;
  readonly noCoverage: number;
  /** Of those, judged equivalent. */
  readonly equivalent: number;
  /** Of the survivors (covered code), judged equivalent. */
  readonly equivalentSurvived: number;
  readonly errors: number;
}

export function tally(ms: readonly Mutant[]): Tally {
  const count = (p: (m: Mutant) => boolean): number => ms.filter(p).length;
  return {
    mutants: ms.length,
    killed: count((m) => m.status === 'Killed'),
    timeout: count((m) => m.status === 'Timeout'),
    byReadings: count((m) => m.byReadings),
    byStall: count((m) => m.byStall),
    survived: count((m) => m.status === 'Survived'),
    noCoverage: count((m) => m.status === 'NoCoverage'),
    equivalent: count((m) => m.equivalent !== undefined),
    equivalentSurvived: count((m) => m.equivalent !== undefined && m.status === 'Survived'),
    errors: count((m) => m.status === 'CompileError' || m.status === 'RuntimeError'),
  };
}

export interface Scores {
  /** Stryker's own: detected / (detected + survived + no coverage), equivalents counted as alive. */
  readonly overall: number;
  /** Stryker's "on covered code": detected / (detected + survived). */
  readonly covered: number;
  /** detected / every mutant not judged equivalent. */
  readonly judged: number;
  /** On covered code without the judged equivalents: detected / (detected + survivors not judged equivalent). */
  readonly coveredJudged: number;
}

const pct = (n: number, d: number): number => (d === 0 ? 100 : (100 * n) / d);

export function scoresOf(t: Tally): Scores {
  const detected = t.killed + t.timeout;
  return {
    overall: pct(detected, detected + t.survived + t.noCoverage),
    covered: pct(detected, detected + t.survived),
    judged: pct(detected, detected + t.survived + t.noCoverage - t.equivalent),
    coveredJudged: pct(detected, detected + t.survived - t.equivalentSurvived),
  };
}

const fmt = (n: number): string => `${n.toFixed(1)} %`;

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
}

const short = (s: string, max = 70): string => {
  const one = collapse(s);
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

/** Equivalents of the files measured that matched no live mutant: stale judgements to review. */
export function unmatched(equivalents: readonly Equivalent[], ms: readonly Mutant[]): Equivalent[] {
  const used = new Set(ms.flatMap((m) => (m.equivalent ? [m.equivalent] : [])));
  const measured = new Set(ms.map((m) => m.file));
  return equivalents.filter((e) => measured.has(e.file) && !used.has(e));
}

export function render(ms: readonly Mutant[], equivalents: readonly Equivalent[], readingsRan: boolean): string {
  const out: string[] = [];
  const files = [...new Set(ms.map((m) => m.file))];
  const head = ['file', 'mutants', 'killed', 'timeout', 'survived', 'no cov', 'of which equiv', 'score', 'covered', 'judged', 'covered judged'];
  const row = (name: string, sub: readonly Mutant[]): string[] => {
    const t = tally(sub);
    const s = scoresOf(t);
    return [name, String(t.mutants), String(t.killed), String(t.timeout), String(t.survived), String(t.noCoverage), String(t.equivalent), fmt(s.overall), fmt(s.covered), fmt(s.judged), fmt(s.coveredJudged)];
  };
  out.push(...table([head, ...files.map((f) => row(f, ms.filter((m) => m.file === f))), row('all', ms)]));
  const t = tally(ms);
  const s = scoresOf(t);
  out.push('');
  out.push(`Mutation score: ${fmt(s.overall)} overall, ${fmt(s.covered)} on covered code (${t.killed + t.timeout} of ${t.mutants} mutants detected).`);
  out.push(`Not counting the ${t.equivalent} judged equivalent (mutation/equivalent.json): ${fmt(s.judged)}; on covered code ${fmt(s.coveredJudged)} (${t.equivalentSurvived} of them survived).`);
  out.push(`${t.byStall} of the kills rest only on findings load could cause too (transport, performance, a property out of time); ${t.timeout} are Stryker timeouts.`);
  out.push(readingsRan ? `The readings half killed ${t.byReadings} of them that the default half left alive.` : 'The readings half did not run (--no-readings): code only an alternative reading runs shows as no coverage.');
  const live = ms.filter((m) => ALIVE.has(m.status) && !m.equivalent);
  out.push('', `Surviving mutants (${live.length}):`);
  for (const m of live) out.push(`  ${m.file}:${m.line}  ${m.status === 'NoCoverage' ? 'no coverage' : 'survived'}  ${m.mutator}  ${short(m.original, 50)}  →  ${short(m.replacement, 50)}`);
  const eq = ms.filter((m) => m.equivalent);
  out.push('', `Judged equivalent (${eq.length}):`);
  for (const m of eq) out.push(`  ${m.file}:${m.line}  ${m.mutator}  ${short(m.original, 40)}  →  ${short(m.replacement, 30)}  — ${m.equivalent!.reason}`);
  const stale = unmatched(equivalents, ms);
  if (stale.length > 0) {
    out.push('', `Judgements in equivalent.json that matched no surviving mutant (${stale.length}; killed now, or the code changed):`);
    for (const e of stale) out.push(`  ${e.file}  ${e.mutator}  ${short(e.original, 50)}`);
  }
  const errors = ms.filter((m) => m.status === 'CompileError' || m.status === 'RuntimeError');
  if (errors.length > 0) out.push('', `Errored (${errors.length}, not scored): ${errors.map((m) => `${m.file}:${m.line}`).join(', ')}`);
  return out.join('\n');
}

/** Parse equivalent.json, with a message naming the entry at fault rather than a stack trace. */
export function parseEquivalents(text: string): Equivalent[] {
  const data: unknown = JSON.parse(text);
  if (!Array.isArray(data)) throw new Error('equivalent.json: expected a list of {file, mutator, original, reason}');
  return data.map((e: unknown, k): Equivalent => {
    const o = e as Record<string, unknown>;
    for (const f of ['file', 'mutator', 'original', 'reason'] as const) {
      if (typeof o?.[f] !== 'string' || o[f] === '') throw new Error(`equivalent.json entry ${k}: "${f}" must be a non-empty string`);
    }
    if (o['replacement'] !== undefined && typeof o['replacement'] !== 'string') throw new Error(`equivalent.json entry ${k}: "replacement" must be a string`);
    return o as unknown as Equivalent;
  });
}

/**
 * The words for two things a run may add to its report: the stored failing cases it re-ran first
 * (the example database), and the properties `--max-failures` left unrun (said as the time budget
 * says what it left). One wording for the console, summary.md and the HTML report.
 */
import type { ExampleReplay, ExampleVerdict } from '../check/run/index.ts';
import type { Report } from './report-json.ts';

const VERDICT_WORDS: Record<ExampleVerdict, string> = {
  'still-failing': 'still failing',
  'now-passing': 'now passing',
  'no-longer-fits': 'no longer fits',
  'not-judged': 'could not be judged here',
};

export const verdictWords = (v: ExampleVerdict): string => VERDICT_WORDS[v];

/** A token shortened for a line: enough to tell two apart (the whole one is in report.json). */
const short = (token: string) => (token.length > 16 ? `${token.slice(0, 8)}…${token.slice(-6)}` : token);

/** One line per stored case re-run: `stored case of P (token): still failing: …`. */
export function exampleLine(e: Pick<ExampleReplay, 'property' | 'replay' | 'verdict' | 'message'>): string {
  const detail = e.verdict === 'now-passing' ? '' : `: ${e.message}`;
  return `stored case of ${e.property} (${short(e.replay)}): ${verdictWords(e.verdict)}${detail}`;
}

/** The properties `--max-failures` left unrun, in one line, or undefined. */
export function stoppedLine(report: Pick<Report, 'stopped'>): string | undefined {
  const s = report.stopped;
  if (!s || s.notRun.length === 0) return undefined;
  return `stopped after ${s.maxFailures} failing propert${s.maxFailures === 1 ? 'y' : 'ies'} (--max-failures): not run ${s.notRun.join(', ')}`;
}

/** summary.md's section on the stored cases re-run first, or nothing. */
export function examplesMarkdown(report: Pick<Report, 'examples'>, cell: (s: string) => string): string[] {
  const ex = report.examples ?? [];
  if (ex.length === 0) return [];
  const count = (v: ExampleVerdict) => ex.filter((e) => e.verdict === v).length;
  const head = `**Stored failing cases re-run first:** ${count('still-failing')} still failing, ${count('now-passing')} now passing, ${count('no-longer-fits')} no longer fit${count('not-judged') ? `, ${count('not-judged')} could not be judged here` : ''}`;
  return [head, '', '| property | verdict | replay | detail |', '|---|---|---|---|', ...ex.map((e) => `| \`${e.property}\` | ${verdictWords(e.verdict)} | \`${e.replay}\` | ${cell(e.verdict === 'now-passing' ? '' : e.message)} |`), ''];
}

/**
 * A finding's fields in words, for every report alike (console, summary.md, report.html, JUnit, the
 * vitest entry, replay): the comparison its judgement made, its case, and its requests as curl
 * lines, rendered here from the data the runner kept (src/check/run/result.ts `Finding`).
 */
import { counterexampleText, type CaseShown, type RecordedExchange } from '../check/run/index.ts';
import { curlLine, curlLines } from './curl-lines.ts';
import type { Mismatch } from '../check/property.ts';

export { counterexampleText, curlLine, curlLines };

/** The fields the words are rendered from: the runner's `Finding` and report.json's finding both have them. */
export interface FindingData extends CaseShown {
  readonly mismatch?: Mismatch;
  readonly exchanges?: readonly RecordedExchange[];
  readonly omittedExchanges?: number;
  readonly exchangeIds?: readonly number[];
}

const shown = (v: Mismatch['expected']): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** `status: expected 4xx, observed 200`: the comparison in one line. */
export function mismatchLine(m: Mismatch): string {
  return `${m.subject}: expected ${shown(m.expected)}, observed ${m.observed === null ? 'nothing' : shown(m.observed)}`;
}

/** The exchanges a finding rests on, by id (`#3, #4`), when its judgement named fewer than it kept. */
export function restsOnLine(f: Pick<FindingData, 'exchangeIds' | 'exchanges'>): string | undefined {
  const ids = f.exchangeIds ?? [];
  if (ids.length === 0 || ids.length === (f.exchanges ?? []).length) return undefined;
  return `rests on exchange${ids.length === 1 ? '' : 's'} ${ids.map((id) => `#${id}`).join(', ')}`;
}

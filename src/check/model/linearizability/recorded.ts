/**
 * A history as a property hands it to the run, to be written beside the reports in the formats
 * other checkers read (Porcupine's operations, Jepsen's EDN for Knossos and Elle): the operations
 * as the checker saw them, plus what only those formats keep, the moment pouchproof stopped
 * waiting on an operation whose answer never came (Jepsen's `:info` completion; the checker itself
 * leaves such an operation open to the end of the history).
 */
import type { CasInput, CasOutput } from './cas.ts';
import type { Operation } from './history.ts';

export interface RecordedHistory {
  /** What the history is of, in words (`4 clients × 5 rounds on 3 artifacts`). */
  readonly title: string;
  /** The sequential specification its operations are checked against (each partition one register). */
  readonly model: 'cas-register';
  readonly ops: readonly Operation<CasInput, CasOutput>[];
  /** By op id: when its answer came, or when pouchproof gave up waiting for one (an op of unknown outcome). */
  readonly ended: Readonly<Record<number, number>>;
  /** pouchproof's own verdict on it (`unknown`: the search budget ran out). */
  readonly verdict: 'ok' | 'violation' | 'unknown';
}

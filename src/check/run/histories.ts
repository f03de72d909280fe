/**
 * Keeps the concurrent histories a property's cases record, for the files written beside the
 * reports: the first `MAX_HISTORIES` of them (the shrinker's later cases add little), and a count
 * of the rest so that the index can say some were left out.
 */
import type { RecordedHistory } from '../model/linearizability/index.ts';
import { MAX_HISTORIES, type PropertyResult } from './result.ts';

export class HistoryShelf {
  private readonly kept: RecordedHistory[] = [];
  private dropped = 0;

  readonly add = (h: RecordedHistory): void => {
    if (this.kept.length < MAX_HISTORIES) this.kept.push(h);
    else this.dropped++;
  };

  /** The property result's `histories` field, absent when no case recorded one. */
  result(): Pick<PropertyResult, 'histories'> {
    return this.kept.length ? { histories: { kept: this.kept, dropped: this.dropped } } : {};
  }
}

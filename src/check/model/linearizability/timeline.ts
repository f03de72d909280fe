/**
 * A history (or a checker's witness) as a text timeline: one line per operation, its interval drawn
 * to scale between the first invocation and the last completion, an unknown outcome drawn open to
 * the right. Rendering only: the checker never formats anything.
 */
import { isPending, type Operation } from './history.ts';

export interface TimelineOptions<I, O> {
  /** The operation in words (input and output), e.g. `update r1→r2: applied`. */
  label(op: Operation<I, O>): string;
  /** Columns of the time axis (default 40). */
  readonly width?: number;
}

const fmt = (ms: number): string => `${Math.round(ms * 10) / 10} ms`;

export function renderTimeline<I, O>(ops: readonly Operation<I, O>[], o: TimelineOptions<I, O>): string {
  if (ops.length === 0) return '(no operations)';
  const width = Math.max(8, o.width ?? 40);
  const sorted = [...ops].sort((a, b) => a.call - b.call || a.id - b.id);
  const t0 = Math.min(...sorted.map((x) => x.call));
  const t1 = Math.max(...sorted.map((x) => x.ret ?? x.call));
  const span = t1 - t0 || 1;
  const col = (t: number): number => Math.min(width - 1, Math.floor(((t - t0) / span) * (width - 1)));
  const who = Math.max(...sorted.map((x) => x.client.length));
  const lines = [`${' '.repeat(who)}  ${fmt(0).padEnd(width - fmt(t1 - t0).length, ' ')}${fmt(t1 - t0)}`];
  for (const op of sorted) {
    const a = col(op.call);
    // not pending, so the operation returned
    const b = isPending(op) ? width - 1 : Math.max(a, col(op.ret!));
    const bar = Array.from({ length: width }, (_, i) => (i < a || i > b ? ' ' : i === a ? '[' : i === b ? (isPending(op) ? '>' : ']') : '=')).join('');
    lines.push(`${op.client.padEnd(who)} |${bar}| #${op.id} ${o.label(op)}`);
  }
  return lines.join('\n');
}

/** One operation of a timeline as data, for drawings made elsewhere (the HTML report's SVG). */
export interface TimelineOp {
  readonly id: number;
  readonly client: string;
  /** The operation in words, as `TimelineOptions.label` gives it. */
  readonly label: string;
  /** Invocation, in ms after the first invocation of the timeline. */
  readonly callMs: number;
  /** Completion, likewise; absent when the outcome is unknown (it may or may not have taken effect). */
  readonly retMs?: number;
}

export interface TimelineData {
  /** What the operations are a history of, e.g. `artifact A`. */
  readonly title: string;
  readonly ops: readonly TimelineOp[];
}

/** The same operations as `renderTimeline` draws, as data: times relative to the first invocation. */
export function timelineData<I, O>(title: string, ops: readonly Operation<I, O>[], label: TimelineOptions<I, O>['label']): TimelineData {
  const sorted = [...ops].sort((a, b) => a.call - b.call || a.id - b.id);
  const t0 = sorted.length ? Math.min(...sorted.map((x) => x.call)) : 0;
  const round = (ms: number): number => Math.round(ms * 1000) / 1000;
  return {
    title,
    ops: sorted.map((op) => ({
      id: op.id,
      client: op.client,
      label: label(op),
      callMs: round(op.call - t0),
      // not pending, so the operation returned
      ...(isPending(op) ? {} : { retMs: round(Math.max(op.ret!, op.call) - t0) }),
    })),
  };
}

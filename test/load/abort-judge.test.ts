/**
 * Abort thresholds are judged on the merge of every engine's samples (src/load/engine/abort.ts), the
 * process's whole view, never on one worker's share: a percentile or an error rate of one share is
 * not the run's. Samples are built from real histograms, so the merge is HdrHistogram's own.
 */
import { describe, expect, it } from 'vitest';
import { AbortJudge, type AbortSample } from '../../src/load/engine/abort.ts';
import { CONTROL_ABORTED_BY, CONTROL_STOP, newControl } from '../../src/load/engine/engine.ts';
import { encodeHistogram, newHistogram, recordUs } from '../../src/load/stats/histogram.ts';
import { parseThreshold } from '../../src/load/gates/thresholds.ts';

/** An engine's sample: `fast` requests at 1 ms and `slow` at 100 ms, all completed, `errors` of them failed. */
function sample(fast: number, slow: number, elapsedMs: number, errors = 0): AbortSample {
  const h = newHistogram();
  for (let i = 0; i < fast; i++) recordUs(h, 1000);
  for (let i = 0; i < slow; i++) recordUs(h, 100_000);
  const histogram = encodeHistogram(h);
  h.destroy();
  const n = fast + slow;
  return { histogram, sent: n, dropped: 0, errors, completed: n, units: n, elapsedMs };
}

const judgeOf = (thresholds: string[], engines: number) => {
  const control = newControl();
  return { judge: new AbortJudge(thresholds.map(parseThreshold), engines, control), control };
};

describe('the abort judge', () => {
  it('does not stop a run whose merged p99 holds though one worker\'s share breaks it', () => {
    const { judge, control } = judgeOf(['p99<50ms:abort'], 2);
    // Worker 0: 2 % slow (its own p99 is 100 ms); worker 1: none slow. Merged: 1 % slow, p99 still 1 ms.
    judge.offer(0, sample(980, 20, 500));
    judge.offer(1, sample(1000, 0, 500));
    expect(judge.aborted).toBeUndefined();
    expect(Atomics.load(control, CONTROL_STOP)).toBe(0);
  });

  it('stops a run whose merged p99 breaks, once every engine has sent a sample, naming the threshold and its index', () => {
    // Thresholds before the abort one count for CONTROL_ABORTED_BY's index.
    const { judge, control } = judgeOf(['errors<1%', 'p99<50ms:abort'], 2);
    // Each worker 1.5 % slow: the merge is too, and its p99 is 100 ms.
    judge.offer(0, sample(985, 15, 750));
    expect(judge.aborted, 'waits for every engine\'s sample').toBeUndefined();
    judge.offer(1, sample(985, 15, 760));
    expect(judge.aborted).toEqual({ threshold: 'p99<50ms:abort', actualText: '100.03ms', atMs: 760 });
    expect(Atomics.load(control, CONTROL_STOP)).toBe(1);
    expect(Atomics.load(control, CONTROL_ABORTED_BY)).toBe(2);
  });

  it('judges error rates and rates on the sums, and nothing before a threshold\'s grace or the first answer', () => {
    const errors = judgeOf(['errors<1%:abort'], 2);
    // 1.6 % failed on worker 0, none on worker 1: 0.8 % in all, which holds.
    errors.judge.offer(0, sample(1000, 0, 500, 16));
    errors.judge.offer(1, sample(1000, 0, 500, 0));
    expect(errors.judge.aborted).toBeUndefined();

    // 2 workers × 400 answers in 1 s: 800/s in all, above a bound of 500/s that each share (400/s) is below.
    const rps = judgeOf(['rps>500/s:abort', 'rps>900/s:abort-after=2s'], 2);
    rps.judge.offer(0, sample(400, 0, 1000));
    rps.judge.offer(1, sample(400, 0, 1000));
    expect(rps.judge.aborted, 'the second threshold\'s grace has not passed').toBeUndefined();
    rps.judge.offer(0, sample(800, 0, 2000));
    expect(rps.judge.aborted).toMatchObject({ threshold: 'rps>900/s:abort-after=2s', actualText: '600.0/s' });

    const empty = judgeOf(['p99>1ms:abort'], 1);
    empty.judge.offer(0, sample(0, 0, 300));
    expect(empty.judge.aborted).toBeUndefined();
    expect(judgeOf(['p99<1ms'], 1).judge.active).toBe(false);
  });
});

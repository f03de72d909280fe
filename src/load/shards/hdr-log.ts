/**
 * Shard histograms as an HdrHistogram interval log (the text format every HdrHistogram port reads:
 * Java's HistogramLogProcessor, HdrHistogram_c, hdrhistogram-go), one interval per tag, each in the
 * compressed V2 encoding. Values are microseconds; the max column is in milliseconds.
 */
import * as hdr from 'hdr-histogram-js';
import { encodeHistogram, newHistogram, type Histogram } from '../stats/histogram.ts';
import { errorMessage } from '../../spec/index.ts';

/** The tag of the histogram of every request's latency. */
export const LATENCY_TAG = 'latency';
/** The tag of the histogram of failed requests' latency, when a run keeps it apart. */
export const ERROR_LATENCY_TAG = 'latency-error';

export class HdrLogError extends Error {}

/** hdr-histogram-js's tag of an untagged histogram. */
const NO_TAG = 'NO TAG';
const TAG_RE = /^[A-Za-z0-9_.-]+$/;

/** A log with one interval per tag, from `startMs` to `endMs` (epoch), histograms given encoded. */
export function writeHdrLog(tagged: Readonly<Record<string, string>>, startMs: number, endMs: number, comment: string): string {
  let text = '';
  const w = new hdr.HistogramLogWriter((c) => void (text += c));
  w.outputComment(comment.replace(/[\r\n]+/g, ' '));
  w.outputLogFormatVersion();
  w.outputStartTime(startMs);
  w.baseTime = startMs;
  w.outputLegend();
  for (const [tag, encoded] of Object.entries(tagged)) {
    if (!TAG_RE.test(tag)) throw new RangeError(`bad histogram tag "${tag}"`);
    const h = hdr.decodeFromCompressedBase64(encoded, 32, false);
    h.tag = tag;
    w.outputIntervalHistogram(h, 0, Math.max(0, endMs - startMs) / 1000, 1000);
    h.destroy();
  }
  return text;
}

/** Every interval of a log, added up per tag, re-encoded. Throws HdrLogError on a log that is not one. */
export function readHdrLog(text: string, what: string): Record<string, string> {
  const reader = new hdr.HistogramLogReader(text, 32, false);
  const sums = new Map<string, Histogram>();
  const intervals = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#') && !l.startsWith('"StartTimestamp"')).length;
  let read = 0;
  try {
    for (let i = 0; i <= intervals; i++) {
      let h: hdr.Histogram | null;
      try {
        h = reader.nextIntervalHistogram();
      } catch (e) {
        throw new HdrLogError(`${what}: interval ${read + 1} cannot be decoded (${errorMessage(e)})`);
      }
      if (!h) break;
      read++;
      const tag = h.tag && h.tag !== NO_TAG ? h.tag : LATENCY_TAG;
      let sum = sums.get(tag);
      if (!sum) sums.set(tag, (sum = newHistogram()));
      sum.add(h);
      h.destroy();
    }
    if (read !== intervals) throw new HdrLogError(`${what}: ${intervals - read} of ${intervals} interval lines are not HdrHistogram intervals`);
    if (!sums.has(LATENCY_TAG)) throw new HdrLogError(`${what}: no "${LATENCY_TAG}" histogram in the log`);
    return Object.fromEntries([...sums].map(([tag, h]) => [tag, encodeHistogram(h)]));
  } finally {
    for (const h of sums.values()) h.destroy();
  }
}

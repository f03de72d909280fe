/** Parsers for the command line's durations and rates; each throws a one-line RangeError. */

export function parseDuration(s: string | number): number {
  if (typeof s === 'number') return s * 1000;
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m)?\s*$/.exec(s);
  if (!m) throw new RangeError(`bad duration "${s}": expected e.g. 30s, 500ms or 2m`);
  const n = Number(m[1]);
  const ms = m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000;
  if (ms <= 0) throw new RangeError(`bad duration "${s}": must be positive`);
  return ms;
}

export function parseRate(s: string | number): number {
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*(\/s)?\s*$/.exec(String(s));
  if (!m || Number(m[1]) <= 0) throw new RangeError(`bad rate "${s}": expected requests per second, e.g. 500/s`);
  return Number(m[1]);
}

/** `--max-duration`: written like load's durations, a default that suits CI, bad values refused in one line. */
import { describe, expect, it } from 'vitest';
import { parseMaxDuration } from '../../src/cli/args.ts';
import { parseSuiteArgs } from '../../src/cli/commands/run.ts';
import { DEFAULT_MAX_DURATION_MS } from '../../src/session/index.ts';

describe('--max-duration', () => {
  it('reads durations as load does, and defaults to 10 minutes', () => {
    expect(DEFAULT_MAX_DURATION_MS).toBe(600_000);
    expect(parseMaxDuration(undefined)).toBe(600_000);
    expect(parseMaxDuration('90s')).toBe(90_000);
    expect(parseMaxDuration('2m')).toBe(120_000);
    expect(parseMaxDuration('1500ms')).toBe(1500);
    expect(parseSuiteArgs({ 'max-duration': '45s' }).session.maxDurationMs).toBe(45_000);
  });
  it('refuses what is no duration, or one too short to run anything', () => {
    expect(() => parseMaxDuration('soon')).toThrow(/^--max-duration: bad duration "soon": expected e\.g\. 30s, 500ms or 2m$/);
    expect(() => parseMaxDuration('10ms')).toThrow(/^--max-duration must be from 1s to 1440m, got 10ms$/);
    expect(() => parseMaxDuration('0s')).toThrow(/must be positive/);
  });
});

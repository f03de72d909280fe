import { describe, expect, it } from 'vitest';
import { loadEmbedded } from './embedded.ts';
import { loadExitCode } from '../../src/check/run/index.ts';

const run = (faults: string[]) =>
  loadEmbedded({ scenario: 'commit-contention', params: { artifacts: 3, skew: 1 }, faults, connections: 8, workers: 0, durationMs: 1500, seed: 5 });

describe('commit-contention', () => {
  it('passes the lost-update check on the correct reference, with conflicts counted', async () => {
    const { result } = await run([]);
    const check = result.checks.find((c) => c.name === 'no lost update');
    expect(check?.passed, check?.message).toBe(true);
    expect(result.stats['lostUpdates']).toBe(0);
    expect(result.stats['applied']).toBeGreaterThan(10);
    expect(result.stats['conflicts']).toBeGreaterThan(0);
    expect(loadExitCode(result)).toBe(0);
  });

  it('fails it against the check-then-act race', async () => {
    const { result } = await run(['check-then-act-race']);
    const check = result.checks.find((c) => c.name === 'no lost update');
    expect(check?.passed).toBe(false);
    expect(check?.message).toMatch(/lost update/);
    expect(loadExitCode(result)).toBe(1);
  });
});

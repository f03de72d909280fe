/**
 * The capacity search against the embedded reference: with store-pool-queue (a knee at
 * STORE_POOL_SIZE × 1000 / STORE_HOLD_MS req/s) it must find a knee below the rate the correct
 * reference holds. Short steps and a generous objective keep it quick and steady on a busy machine;
 * nothing here asserts a time.
 */
import { describe, expect, it } from 'vitest';
import { loadScenarioByName } from '../../scenarios/index.ts';
import { findCapacity, type CapacityOptions } from '../../src/load/gates/capacity.ts';
import { STORE_HOLD_MS, STORE_POOL_SIZE } from '../../src/reference/index.ts';
import { EMBEDDED_REFERENCE } from '../../src/reference/embedded.ts';
import { loadExitCode } from '../../src/check/run/index.ts';

const KNEE = (STORE_POOL_SIZE * 1000) / STORE_HOLD_MS;
// Twice the fault's knee: past it the queue grows by KNEE requests a second, far beyond the objective within one step.
const MAX_RATE = 2 * KNEE;
const OPTIONS: CapacityOptions = { objective: 'p99<150ms', startRate: MAX_RATE / 8, maxRate: MAX_RATE, stepMs: 400, budgetMs: 8000, maxSteps: 6, minRequests: 0 };

async function search(faults: string[]) {
  const { result } = await findCapacity({ scenario: await loadScenarioByName('usage-flood'), target: { kind: 'embedded', faults }, ...EMBEDDED_REFERENCE, workers: 0, seed: 17 }, OPTIONS);
  return result;
}

describe('capacity search', () => {
  it('finds a lower knee on a server that degrades under load, within its bounds', async () => {
    const faulty = await search(['store-pool-queue']);
    const clean = await search([]);
    const f = faulty.capacity!, c = clean.capacity!;
    for (const s of [f, c]) {
      expect(s.steps.length).toBeLessThanOrEqual(OPTIONS.maxSteps!);
      expect(s.steps.every((x) => x.offered <= MAX_RATE)).toBe(true);
      expect(s.objective).toEqual(['p99<150ms', 'errors<1%']);
    }
    // The fault's queue makes twice its knee unsustainable, whatever the machine.
    expect(f.status).not.toBe('at-max-rate');
    expect(f.steps.some((x) => !x.within)).toBe(true);
    expect(f.capacity ?? 0).toBeLessThan(MAX_RATE);
    expect(c.capacity ?? 0).toBeGreaterThanOrEqual(f.capacity ?? 0);
    // The result shown is the step at capacity (or the last step when none was within).
    if (f.capacity !== undefined) expect(faulty.rate).toBe(f.capacity);
    expect(loadExitCode(faulty)).toBe(f.capacity === undefined ? 1 : 0);
  }, 60_000);
});

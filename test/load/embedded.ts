/** A load run by scenario name against the embedded reference, with these faults switched on. */
import { loadScenarioByName } from '../../scenarios/index.ts';
import { runLoad, type RunLoadOptions, type RunLoadOutput } from '../../src/load/launch.ts';
import { EMBEDDED_REFERENCE } from '../../src/reference/embedded.ts';

export async function loadEmbedded(o: Omit<RunLoadOptions, 'scenario' | 'target'> & { scenario: string; faults?: readonly string[] }): Promise<RunLoadOutput> {
  const { scenario, faults, ...rest } = o;
  return runLoad({ ...rest, scenario: await loadScenarioByName(scenario), target: { kind: 'embedded', ...(faults ? { faults } : {}) }, ...EMBEDDED_REFERENCE });
}

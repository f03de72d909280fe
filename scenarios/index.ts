/** The load scenarios by name, with the module URL a worker thread imports to rebuild each. */
import type { Scenario } from '../src/load/scenario.ts';
import { siblingModule } from '../src/load/module-url.ts';

export const SCENARIO_NAMES = ['commit-throughput', 'commit-contention', 'usage-flood', 'cost-curve', 'mixed'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export function scenarioUrl(name: ScenarioName): string {
  return siblingModule(import.meta.url, name).href;
}

export async function loadScenarioByName(name: string): Promise<{ scenario: Scenario; url: string }> {
  if (!(SCENARIO_NAMES as readonly string[]).includes(name)) throw new Error(`unknown scenario "${name}"; scenarios: ${SCENARIO_NAMES.join(', ')}`);
  const url = scenarioUrl(name as ScenarioName);
  const mod = (await import(url)) as { default: Scenario };
  return { scenario: mod.default, url };
}

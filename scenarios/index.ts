/**
 * The load scenarios by name, with the module URL a worker thread imports to rebuild each, and a
 * user's own scenario by its file's path (`--scenario ./mine.ts`, src/load/scenario-file.ts).
 */
import { type LoadedScenario, siblingModule, importScenario, isScenarioPath, loadScenarioFile } from '../src/load/index.ts';

export const SCENARIO_NAMES = ['commit-throughput', 'commit-contention', 'usage-flood', 'cost-curve', 'mixed'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export function scenarioUrl(name: ScenarioName): string {
  return siblingModule(import.meta.url, name).href;
}

export async function loadScenarioByName(name: string): Promise<LoadedScenario> {
  if (!(SCENARIO_NAMES as readonly string[]).includes(name)) {
    throw new Error(`unknown scenario "${name}"; scenarios: ${SCENARIO_NAMES.join(', ')}, or a file of your own (./my-scenario.ts)`);
  }
  const url = scenarioUrl(name as ScenarioName);
  return { scenario: await importScenario(url), url };
}

/** A built-in scenario by name, or a user's from a file (a path, or a name ending in .ts/.js/.mjs/.mts); throws a one-line Error. */
export function loadScenario(nameOrPath: string): Promise<LoadedScenario> {
  return isScenarioPath(nameOrPath) ? loadScenarioFile(nameOrPath) : loadScenarioByName(nameOrPath);
}

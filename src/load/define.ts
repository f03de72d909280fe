/**
 * `defineScenario`: the one way a scenario is made, the built-in ones of scenarios/ and a user's own
 * file alike (`pouchproof load --scenario ./mine.ts`). It checks the declaration once, where the
 * author wrote it, so a scenario with a clashing parameter or a default outside its own bounds fails
 * at import with one line naming it, never in the middle of a run; and it brands the result, so a
 * file's default export can be told from any other object (the brand is a registered symbol, the
 * same in every copy of the package a process may hold).
 */
import { errorMessage } from '../spec/index.ts';
import { resolveParams, type ParamDef, type Scenario } from './scenario.ts';

const BRAND = Symbol.for('pouchproof.scenario');

/** What an author writes: a Scenario whose `unit` defaults to 'units' and `params` to none. */
export interface ScenarioDefinition extends Omit<Scenario, 'unit' | 'params'> {
  readonly unit?: Scenario['unit'];
  readonly params?: readonly ParamDef[];
}

/** A scenario declared wrongly (its author's mistake, found at import). */
export class ScenarioDefinitionError extends Error {}

/** A scenario's own code failed while building its source (a bad mix, a parameter it cannot use): its author's input, not pouchproof's trouble. */
export class ScenarioSourceError extends Error {}

/** Names end up in run ids, report directories and metric labels: kept to what all of those take. */
const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const PARAM_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;
const KINDS: readonly ParamDef['kind'][] = ['int', 'number', 'string'];
const UNITS: readonly Scenario['unit'][] = ['ops', 'rows', 'units'];

function checkParams(name: string, params: readonly ParamDef[]): void {
  const seen = new Set<string>();
  for (const p of params) {
    if (!PARAM_NAME.test(String(p.name))) throw new ScenarioDefinitionError(`scenario ${name}: bad parameter name "${p.name}" (a letter, then letters, digits, '_' or '-')`);
    if (seen.has(p.name)) throw new ScenarioDefinitionError(`scenario ${name}: parameter "${p.name}" is declared twice`);
    seen.add(p.name);
    if (!KINDS.includes(p.kind)) throw new ScenarioDefinitionError(`scenario ${name}: parameter ${p.name} has kind "${p.kind}"; kinds: ${KINDS.join(', ')}`);
  }
}

export function defineScenario(def: ScenarioDefinition): Scenario {
  const name = String(def.name);
  if (!NAME.test(name)) throw new ScenarioDefinitionError(`bad scenario name "${name}": lowercase letters, digits and '-', at most 63 characters`);
  if (typeof def.createSource !== 'function') throw new ScenarioDefinitionError(`scenario ${name}: createSource must be a function`);
  if (def.sweep !== undefined && typeof def.sweep !== 'function') throw new ScenarioDefinitionError(`scenario ${name}: sweep must be a function`);
  const unit = def.unit ?? 'units';
  if (!UNITS.includes(unit)) throw new ScenarioDefinitionError(`scenario ${name}: unit "${unit}" is none of ${UNITS.join(', ')}`);
  const dc = def.defaultConnections;
  if (dc !== undefined && !(Number.isInteger(dc) && dc >= 1)) throw new ScenarioDefinitionError(`scenario ${name}: defaultConnections must be a positive integer`);
  const params = Object.freeze([...(def.params ?? [])]);
  checkParams(name, params);
  const scenario: Scenario = { ...def, name, description: String(def.description ?? ''), unit, params };
  try {
    // Every default must pass its own declaration, as a value given with --param would.
    resolveParams(scenario);
  } catch (e) {
    throw new ScenarioDefinitionError(`scenario ${name}: a default breaks its own declaration: ${errorMessage(e)}`);
  }
  return Object.freeze(Object.defineProperty(scenario, BRAND, { value: true, enumerable: false }));
}

/** Made by defineScenario (in this copy of the package or another one). */
export function isScenario(x: unknown): x is Scenario {
  return typeof x === 'object' && x !== null && Reflect.get(x, BRAND) === true;
}

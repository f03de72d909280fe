/**
 * The named faults switched on in one server (`FaultSet`), and which faults and readings make no
 * sense together. The catalogue itself is data, in fault-catalogue.ts.
 */
import { must, readingEntries, type AssumptionName, type Readings } from '../spec/index.ts';
import { FAULTS, FAULT_READING_CONFLICTS, NEMESIS_ONLY_FAULTS, type FaultInfo, type FaultName, type NemesisOnlyFaultName } from './fault-catalogue.ts';

const NAMES: ReadonlySet<string> = new Set(FAULTS.map((x) => x.name));
const NEMESIS_ONLY_NAMES: ReadonlySet<string> = new Set(NEMESIS_ONLY_FAULTS.map((x) => x.name));

export function isFaultName(s: string): s is FaultName {
  return NAMES.has(s);
}

export function faultInfo(name: FaultName): FaultInfo<FaultName> {
  return must(FAULTS.find((x) => x.name === name), `fault ${name} is a FaultName, so the catalogue defines it`);
}

/** The faults switched on in one server instance. */
export class FaultSet {
  readonly names: readonly FaultName[];
  /** Faults only a nemesis shows (fault-catalogue.ts `NEMESIS_ONLY_FAULTS`), switched on by name like the rest. */
  readonly nemesisOnly: readonly NemesisOnlyFaultName[];
  private readonly on: ReadonlySet<FaultName | NemesisOnlyFaultName>;

  /** Names from the command line are checked here: unknown ones are refused with the list of known ones. */
  constructor(names: readonly string[] = []) {
    const unknown = names.filter((n) => !NAMES.has(n) && !NEMESIS_ONLY_NAMES.has(n));
    if (unknown.length > 0) {
      throw new Error(`unknown fault${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; known: ${[...FAULTS, ...NEMESIS_ONLY_FAULTS].map((x) => x.name).join(', ')}`);
    }
    this.names = Object.freeze([...new Set(names.filter(isFaultName))]);
    this.nemesisOnly = Object.freeze([...new Set(names.filter((n): n is NemesisOnlyFaultName => NEMESIS_ONLY_NAMES.has(n)))]);
    this.on = new Set([...this.names, ...this.nemesisOnly]);
  }

  has(name: FaultName | NemesisOnlyFaultName): boolean {
    return this.on.has(name);
  }

  get any(): boolean {
    return this.on.size > 0;
  }
}

/** Why `fault` makes no sense with `readings`, or undefined when the combination still shows the defect. */
export function faultReadingConflict(fault: FaultName, readings: Readings): string | undefined {
  const info = faultInfo(fault);
  const own: { readonly name: AssumptionName; readonly value: string }[] = [...(info.reading ? [info.reading] : []), ...readingEntries(info.requires ?? {}).map(([name, value]) => ({ name, value }))];
  for (const r of own) {
    const chosen = readings[r.name];
    if (chosen !== undefined && chosen !== r.value) return `fault "${fault}" ${info.reading === r ? 'is' : 'needs'} the reading ${r.name}=${r.value}`;
    if (chosen !== undefined && info.reading === r) return `fault "${fault}" is the reading ${r.name}=${r.value}: judged under it, it is no defect`;
  }
  const c = FAULT_READING_CONFLICTS.find((x) => x.fault === fault && readings[x.reading.name] === x.reading.value);
  return c?.why;
}

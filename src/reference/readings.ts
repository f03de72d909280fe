/**
 * The readings one reference server serves (`ReadingSet`): chosen on the command line or switched
 * on by a fault. The catalogue of readings is data, in reading-catalogue.ts.
 */
import { DEFAULT_ASSUMPTIONS, parseReadings, type AssumptionName, type ReadingOf, type Readings } from '../spec/index.ts';
import { FAULTS, type FaultName } from './fault-catalogue.ts';
import { keyOf, readingsList, type Reading, type ReadingKey } from './reading-catalogue.ts';

/**
 * `NAME=VALUE` arguments (each may hold several, comma-separated) → validated readings. Throws an
 * Error with one line (the registry's own message for unknown names and values).
 */
export function parseReadingArgs(args: readonly string[]): Readings {
  const out: Record<string, string> = {};
  for (const item of args.flatMap((a) => a.split(',')).map((a) => a.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new Error(`reading "${item}" is not NAME=VALUE (see pouchproof serve --list-readings)`);
    const name = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (out[name] !== undefined && out[name] !== value) throw new Error(`reading "${name}" given twice: ${out[name]} and ${value}`);
    out[name] = value;
  }
  return parseReadings(out);
}

/** The readings one server instance serves: the registry default unless chosen. */
export class ReadingSet {
  /** The chosen readings that differ from the registry default (what a banner or a report shows). */
  readonly active: Readings;
  private readonly chosen: Readings;
  /** Every reading asked for so far: a request whose handling asked none of them is served alike under any of their values. */
  readonly consulted = new Set<AssumptionName>();

  constructor(readings: Readings = {}) {
    // Re-validated: a caller in plain JS (or a cast) can hand in anything.
    this.chosen = parseReadings(readings);
    const active: Record<string, string> = {};
    for (const r of readingsList(this.chosen)) if (r.value !== DEFAULT_ASSUMPTIONS[r.name]) active[r.name] = r.value;
    this.active = Object.freeze(active);
  }

  /** The reading served for `name`: the chosen one, else the registry default. */
  of<N extends AssumptionName>(name: N): ReadingOf<N> {
    this.consulted.add(name);
    // chosen holds validated readings (parseReadings); indexing by a generic N loses the pairing
    return (this.chosen[name] ?? DEFAULT_ASSUMPTIONS[name]) as ReadingOf<N>;
  }

  /** The reading chosen explicitly for `name`, if any (for the few defaults that allow several behaviours, e.g. `any-4xx`). */
  chosenOf<N extends AssumptionName>(name: N): ReadingOf<N> | undefined {
    this.consulted.add(name);
    // chosen holds validated readings (parseReadings); indexing by a generic N loses the pairing
    return this.chosen[name] as ReadingOf<N> | undefined;
  }

  is<N extends AssumptionName>(name: N, value: ReadingOf<N>): boolean {
    return this.of(name) === value;
  }

  /** `NAME=VALUE` of every active reading, registry order. */
  keys(): ReadingKey[] {
    return readingsList(this.active).map(keyOf);
  }
}

/**
 * The readings a server with these faults and these chosen readings serves: a fault that is a
 * reading (`reading`) or needs one (`requires`) switches it on. Throws when a chosen reading says
 * otherwise for the same assumption.
 */
export function resolveReadings(chosen: Readings, faults: readonly FaultName[]): ReadingSet {
  const out: Record<string, string> = { ...parseReadings(chosen) };
  const source: Record<string, string> = {};
  for (const name of faults) {
    const f = FAULTS.find((x) => x.name === name);
    if (!f) continue;
    const switched: Reading[] = [...(f.reading ? [f.reading] : []), ...readingsList(f.requires ?? {})];
    for (const r of switched) {
      const before = out[r.name];
      if (before !== undefined && before !== r.value) {
        const why = source[r.name] ? `fault "${source[r.name]}"` : 'the chosen readings';
        throw new Error(`fault "${name}" needs ${r.name}=${r.value}, but ${why} ${source[r.name] ? 'needs' : 'say'} ${r.name}=${before}`);
      }
      out[r.name] = r.value;
      source[r.name] ??= name;
    }
  }
  return new ReadingSet(out);
}

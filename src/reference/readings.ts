/**
 * The catalogue of readings: the reference can be switched to any alternative of every registry
 * assumption that a server decides (`decidedBy: 'server'`), so that pouchproof can be shown silent
 * against a correct server that reads the spec's "not shown" differently. Each reading is consulted
 * at the one place an implementer would decide it (`READING_SITES`); a fault that departs from a
 * reading is that reading switched on (`FaultInfo.reading`), never a second implementation.
 */
import {
  ASSUMPTIONS,
  DEFAULT_ASSUMPTIONS,
  assumptionOf,
  parseReadings,
  type Assumption,
  type AssumptionName,
  type ReadingOf,
  type Readings,
} from '../spec/index.ts';
import { FAULTS, type FaultName } from './faults.ts';

/** One reading of one assumption, typed by that assumption's own choices. */
export type Reading = { readonly [N in AssumptionName]: { readonly name: N; readonly value: ReadingOf<N> } }[AssumptionName];

/** `NAME=VALUE` of one reading, as the CLI and the reports write it. */
export type ReadingKey = { readonly [N in AssumptionName]: `${N}=${ReadingOf<N>}` }[AssumptionName];

/**
 * Where the reference decides each assumption. Exhaustive on purpose: a new registry entry does not
 * compile until someone says where the reference serves it (`harness`: not a server's choice).
 */
export const READING_SITES: { readonly [N in AssumptionName]: string } = Object.freeze({
  'canonical-json': 'signature.ts',
  'jws-form': 'signature.ts',
  'kid-binding': 'signature.ts',
  'high-s-accepted': 'signature.ts',
  'signature-required-callers': 'handlers/commit.ts',
  'caller-auth': 'harness',
  'caller-kinds': 'server.ts',
  'credentials-required': 'server.ts',
  'cross-account-isolation': 'handlers/commit.ts',
  'error-response': 'server.ts',
  'conflict-behaviour': 'handlers/commit.ts',
  'conflict-status': 'handlers/commit.ts',
  'batch-atomicity': 'handlers/commit.ts',
  'operation-id-idempotency': 'handlers/commit.ts',
  'op-semantics': 'handlers/commit.ts',
  'revision-id-unique': 'handlers/commit.ts',
  'batch-chaining': 'handlers/commit.ts',
  'commit-results': 'handlers/commit.ts',
  'seq-semantics': 'handlers/commit.ts',
  'pouch-existence': 'handlers/commit.ts, fixture.ts',
  'usage-row-key': 'handlers/usage.ts',
  'usage-stored-meaning': 'handlers/usage.ts',
  'usage-counters-negative': 'validate.ts',
  'usage-day-window': 'validate.ts',
  'day-calendar-valid': 'validate.ts',
  'characters-are-code-points': 'validate.ts',
  'integers-json-safe': 'harness',
  'empty-lists': 'validate.ts',
  'unknown-fields-ignored': 'validate.ts',
  'duplicate-keys': 'body.ts',
  'content-type-json-only': 'body.ts',
  'body-size-limit': 'body.ts',
  'cli-request-exists': 'handlers/approve.ts, fixture.ts',
  'browser-exists': 'handlers/revoke.ts, fixture.ts',
  'opaque-crypto-fields': 'handlers/*.ts',
  'unlock-prepare': 'handlers/unlock.ts',
  'head-seq-semantics': 'handlers/unlock.ts',
  'rate-limits': 'server.ts',
});

/** The assumptions the reference can be switched on: decided by a server, with alternatives. */
export const SWITCHABLE: readonly Assumption<AssumptionName>[] = Object.freeze(ASSUMPTIONS.filter((a) => a.decidedBy === 'server' && a.choices.length > 1));

/** Every non-default reading the reference serves (`serve --reading`). */
export const ALTERNATIVES: readonly Reading[] = Object.freeze(
  SWITCHABLE.flatMap((a) => a.choices.filter((c) => c.value !== a.default).map((c) => ({ name: a.name, value: c.value }) as Reading)),
);

export const keyOf = (r: Reading): ReadingKey => `${r.name}=${r.value}` as ReadingKey;

/** The readings of `Readings` as a list (registry order). */
export function readingsList(r: Readings): Reading[] {
  return ASSUMPTIONS.filter((a) => r[a.name] !== undefined).map((a) => ({ name: a.name, value: r[a.name] }) as Reading);
}

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

  constructor(readings: Readings = {}) {
    // Re-validated: a caller in plain JS (or a cast) can hand in anything.
    this.chosen = parseReadings(readings as Readonly<Record<string, string>>);
    const active: Record<string, string> = {};
    for (const r of readingsList(this.chosen)) if (r.value !== DEFAULT_ASSUMPTIONS[r.name]) active[r.name] = r.value;
    this.active = Object.freeze(active) as Readings;
  }

  /** The reading served for `name`: the chosen one, else the registry default. */
  of<N extends AssumptionName>(name: N): ReadingOf<N> {
    return (this.chosen[name] ?? DEFAULT_ASSUMPTIONS[name]) as ReadingOf<N>;
  }

  /** The reading chosen explicitly for `name`, if any (for the few defaults that allow several behaviours, e.g. `any-4xx`). */
  chosenOf<N extends AssumptionName>(name: N): ReadingOf<N> | undefined {
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
  const out: Record<string, string> = { ...parseReadings(chosen as Readonly<Record<string, string>>) };
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
  return new ReadingSet(out as Readings);
}

/** A one-line summary of an assumption's choices for `--list-readings`. */
export function choicesLine(name: AssumptionName): string {
  const a = assumptionOf(name);
  return a.choices.map((c) => (c.value === a.default ? `${c.value} (default)` : c.value)).join(' | ');
}

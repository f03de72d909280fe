/**
 * The catalogue of readings: the reference can be switched to any alternative of every registry
 * assumption that a server decides (`decidedBy: 'server'`), so that pouchproof can be shown silent
 * against a correct server that reads the spec's "not shown" differently. Each reading is consulted
 * at the one place an implementer would decide it (`READING_SITES`); a fault that departs from a
 * reading is that reading switched on (`FaultInfo.reading`), never a second implementation.
 */
import { ASSUMPTIONS, assumptionOf, type Assumption, type AssumptionName, type ReadingOf, type Readings } from '../spec/index.ts';

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
  // c is one of a's choices, so (name, value) is a Reading; the pairing is lost across the union
  SWITCHABLE.flatMap((a) => a.choices.filter((c) => c.value !== a.default).map((c) => ({ name: a.name, value: c.value }) as Reading)),
);

// a Reading's name and value form a ReadingKey; template types do not distribute over the pair
export const keyOf = (r: Reading): ReadingKey => `${r.name}=${r.value}` as ReadingKey;

/** The readings of `Readings` as a list (registry order). */
export function readingsList(r: Readings): Reading[] {
  // r[a.name] is one of a's readings, so (name, value) is a Reading; the pairing is lost across the union
  return ASSUMPTIONS.filter((a) => r[a.name] !== undefined).map((a) => ({ name: a.name, value: r[a.name] }) as Reading);
}

/** A one-line summary of an assumption's choices for `--list-readings`. */
export function choicesLine(name: AssumptionName): string {
  const a = assumptionOf(name);
  return a.choices.map((c) => (c.value === a.default ? `${c.value} (default)` : c.value)).join(' | ');
}

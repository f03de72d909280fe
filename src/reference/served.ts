/**
 * What one reference server serves, decided once when it starts: its faults, readings and unnamed
 * choices, the validator bent by them, the fixture's credentials and the store (seeded with the
 * fixture's pouches when they must exist first). The routing, the answers and the lifecycle all read it.
 */
import { pouchKey } from './handlers/index.ts';
import { directoryOf, generateFixture, type Directory, type Fixture } from './fixture.ts';
import { FaultSet } from './faults.ts';
import { resolveReadings, type ReadingSet } from './readings.ts';
import { StorePool } from './store-pool.ts';
import { MemoryStore, type Store } from './store.ts';
import { UnnamedSet } from './unnamed.ts';
import { BodyValidator } from './validate.ts';
import type { Readings } from '../spec/index.ts';

/** The options of `startReference` that decide what is served (the rest say where and how it listens). */
export interface ServedOptions {
  faults?: readonly string[];
  /** Readings to serve where the spec is silent (unset: the registry default); validated against the registry. */
  readings?: Readings;
  /** Choices the spec allows that the registry does not name (unnamed.ts), to show the suite does not guess. */
  unnamed?: readonly string[];
  fixture?: Fixture;
  /** Another store implementation (default: in memory). */
  store?: Store;
}

export interface Served {
  readonly faults: FaultSet;
  readonly unnamed: UnnamedSet;
  readonly readings: ReadingSet;
  readonly validator: BodyValidator;
  readonly fixture: Fixture;
  readonly directory: Directory;
  readonly store: Store;
  /** Set under `store-pool-queue`: every request waits for one of a few store connections. */
  readonly storePool: StorePool | undefined;
}

export function servedOf(o: ServedOptions): Served {
  const faults = new FaultSet(o.faults ?? []);
  const readings = resolveReadings(o.readings ?? {}, faults.names);
  const fixture = o.fixture ?? generateFixture();
  const store: Store = o.store ?? new MemoryStore(faults);
  if (readings.is('pouch-existence', 'must-exist')) seedPouches(store, fixture, readings, faults);
  return {
    faults,
    unnamed: new UnnamedSet(o.unnamed ?? []),
    readings,
    validator: new BodyValidator(faults, readings),
    fixture,
    directory: directoryOf(fixture),
    store,
    storePool: faults.has('store-pool-queue') ? new StorePool() : undefined,
  };
}

/** The fixture's pouches exist from the start: the primary account's, and with pouch ids scoped per account the secondary's too. */
function seedPouches(store: Store, fixture: Fixture, readings: ReadingSet, faults: FaultSet): void {
  const owners = readings.is('cross-account-isolation', 'separate-pouch') ? [fixture.primary.id, fixture.secondary.id] : [fixture.primary.id];
  for (const id of fixture.pouchIds ?? []) for (const owner of owners) store.createPouch(pouchKey(owner, id, readings, faults), owner);
}

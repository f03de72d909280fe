/** The reference implementation of SPEC.md with its catalogues of switchable faults (issue 4) and readings (issue 9). */
export { startReference, type ReferenceOptions, type RunningReference } from './server.ts';
export {
  FAULTS,
  FAULT_READING_CONFLICTS,
  NEMESIS_ONLY_FAULTS,
  STALL_MS,
  STALL_PERIOD_MS,
  type FaultInfo,
  type FaultName,
  type FaultReadingConflict,
  type NemesisOnlyFaultName,
} from './fault-catalogue.ts';
export { FaultSet, faultInfo, faultReadingConflict, isFaultName } from './faults.ts';
export { STORE_HOLD_MS, STORE_POOL_SIZE } from './store-pool.ts';
export { ALTERNATIVES, READING_SITES, SWITCHABLE, choicesLine, keyOf, readingsList, type Reading, type ReadingKey } from './reading-catalogue.ts';
export { ReadingSet, parseReadingArgs, resolveReadings } from './readings.ts';
export { LISTED_IDS, generateFixture, loadFixture, parseFixture, profileOf, type Fixture, type FixtureAccount, type ProfileDocument } from './fixture.ts';
export { MemoryStore, type Store } from './store.ts';
export { UNNAMED, UnnamedSet, type UnnamedInfo, type UnnamedName } from './unnamed.ts';
export { MAX_BODY_BYTES, MAX_JSON_DEPTH } from './body.ts';

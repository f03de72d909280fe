/** The reference implementation of SPEC.md with its catalogue of switchable faults (issue 4). */
export { startReference, type ReferenceOptions, type RunningReference } from './server.ts';
export { FAULTS, FaultSet, STALL_MS, STALL_PERIOD_MS, isFaultName, type FaultInfo, type FaultName } from './faults.ts';
export { generateFixture, loadFixture, parseFixture, profileOf, type Fixture, type FixtureAccount, type ProfileDocument } from './fixture.ts';
export { MemoryStore, type Store } from './store.ts';
export { MAX_BODY_BYTES, MAX_JSON_DEPTH } from './body.ts';

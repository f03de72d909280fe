/**
 * The library entry of the `pouchproof` package: the conformance suite as a function call, the
 * embedded reference for a caller's tests, profiles and the property catalogue. The command line
 * (yargs, the console view, process exit codes) is not part of it.
 */
export { run, type RunOptions } from './api/run.ts';
export { startReference, type Reference, type StartReferenceOptions } from './api/reference.ts';
export type { TargetOptions } from './api/target.ts';
export type { ReadingsMode } from './spec/index.ts';
export { loadProfile, parseProfile, ProfileError, type Profile } from './target/profile.ts';
export { ALL_PROPERTIES as properties } from '../properties/index.ts';
export type { Property } from './check/property.ts';
export type { Report, PropertyReport, CoverageReport } from './report/report-json.ts';
export type { FailOnKind, Finding, ProgressEvent, PropertyStatus } from './check/runner.ts';
export { UsageError } from './session/usage-error.ts';
export { TargetError } from './target/resolve.ts';

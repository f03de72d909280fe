/** The conformance session: one place for what the CLI, the library and the vitest entry share. */
export * from './session.ts';
export * from './target.ts';
export * from './probe.ts';
export * from './properties.ts';
export * from './reports.ts';
export * from './values.ts';
export { toolVersion } from '../check/run/index.ts';
export { UsageError, asUsage } from './usage-error.ts';
export * from './examples.ts';
export { TargetUnreachableError } from '../target/connect-probe.ts';

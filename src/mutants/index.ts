/** The mutation self-test (`pouchproof mutants`): the suite run against the reference with each fault switched on, and the kill matrix. */
export {
  runMutants,
  mutantsSummary,
  detectsFault,
  compareKillers,
  isLoadOnly,
  orderForFault,
  median,
  type FaultDescriptor,
  type LoadCheck,
  type StartedTarget,
  type MutantsOptions,
  type FaultResult,
  type CleanRun,
  type MutantsResult,
  type KillerComparison,
} from './mutants.ts';

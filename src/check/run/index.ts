/**
 * The runner, as fast-check keeps its parts apart (src/check/run/): normalised options
 * (options.ts), time limits as wrappers around a property (time-limits.ts), one case
 * (case-runner.ts), the coverage and random phases (coverage-phase.ts, random-phase.ts), one sink
 * that turns outcomes into findings (outcome-sink.ts), the evidence floor (ledger.ts), the exit code
 * (exit-code.ts), and the loop over properties (run-properties.ts). This module is their public face.
 *
 * How outcomes steer the search: a violation or a server error fails the case, and the first
 * failing case of the random phase is shrunk by fast-check; an assumption, unknown, transport or
 * performance outcome is noted once and the search goes on; every case is counted against the
 * property's evidence floor, so a quiet property that judged too little is inconclusive, never passed.
 */
export { DEFAULT_PROPERTY_MS, DEFAULT_RUNS, MAX_CONCURRENCY, makeRunId, plannedRuns, propertySeed, type RunOptions } from './options.ts';
export { FAIL_ON_KINDS, isFailing, type FailOnKind, type ExampleReplay, type ExampleVerdict, type Finding, type ProgressEvent, type PropertyResult, type PropertyStatus, type RunFindingKind, type RunResult } from './result.ts';
export {
  EXIT,
  runExitCode,
  tallyOf,
  targetGone,
  sideExitCode,
  comparisonExitCode,
  mutantsExitCode,
  loadExitCode,
  mergedLoadExitCode,
  couldNotVouch,
  nothingChecked,
  verdictOfExit,
  type ExitVerdict,
  type RunExitCode,
  type RunTally,
  type SideTally,
  type LoadVerdictFacts,
} from './exit-code.ts';
export { runProperties } from './run-properties.ts';
export { replayProperty, replayToken, type TokenReplay } from './replay.ts';
export { replayExamples } from './examples.ts';
export type { Ledger, PhaseLedger, UnjudgedCause } from './ledger.ts';
export { prepare, pickListed } from './prepare.ts';
export { missingCapabilities, missingCapability } from './capabilities.ts';
export { selectProperties } from './select.ts';
export { readReplayToken, encodeReplayToken, type ReplayToken } from './replay-token.ts';
export { toolVersion } from './tool-version.ts';
export { tokenFit } from './token-fit.ts';
export { RecordedExchangeSchema, type RecordedExchange } from './exchange-record.ts';
export { boundedValue, clip, counterexampleText, type CaseShown } from './render.ts';
export { recordExchanges } from './exchange-record.ts';
export type { CoverageRow, CoverageTable } from './coverage-table.ts';
export { MAX_DISTINCT_FAILURES, MAX_SHRINK_TRIES } from './random-phase.ts';

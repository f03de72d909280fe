/**
 * The load engine's public face. `pouchproof load`, `npm start`'s short run and the load checks go
 * through runLoad (launch.ts), given a scenario loaded from the catalogue (scenarios/index.ts).
 */
export { runLoad, loadRunId, LoadUsageError, type LoadedScenario, type RunLoadOptions, type RunLoadOutput } from './launch.ts';

export { executeLoad, type ExecuteOptions } from './execute.ts';
export type { LoadRunResult, CurveResult } from './result.ts';
export { parseThreshold, evaluateThresholds, ThresholdError, type Threshold, type ThresholdResult } from './gates/thresholds.ts';
export { parseDuration, parseRate } from './units.ts';
export { parseStages, formatStages, type Stage, type Stages } from './stages.ts';
export { isLoopbackUrl } from './remote.ts';
export type { Scenario, RequestSource, LoadRequest, LoadResponse, CheckResult } from './scenario.ts';

/**
 * The load engine's public face. `pouchproof load`, `npm start`'s short run and anything that
 * writes reports go through src/report/load-run.ts (runLoad), which resolves scenarios by name.
 */

export { executeLoad, type ExecuteOptions, type LoadRunResult, type CurveResult } from './run.ts';
export { parseThreshold, evaluateThresholds, ThresholdError, type Threshold, type ThresholdResult } from './thresholds.ts';
export { parseDuration, parseRate } from './units.ts';
export { isLoopbackUrl } from './remote.ts';
export type { Scenario, RequestSource, LoadRequest, LoadResponse, CheckResult } from './scenario.ts';

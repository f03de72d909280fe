/**
 * The load engine's public face. `pouchproof load`, `npm start`'s short run and the load checks go
 * through runLoad (launch.ts), given a scenario loaded from the catalogue (scenarios/index.ts).
 * Scenario files build their requests with the authoring parts below (scenario.ts, bodies.ts,
 * requests.ts, rng.ts); the sub-folders (engine/, http1/, shards/, k8s/, metrics/, stats/, gates/)
 * are reached from outside only through this file.
 */
export { runLoad, loadRunId, LoadUsageError, type LoadedScenario, type RunLoadOptions, type RunLoadOutput } from './launch.ts';

export { executeLoad, abortLine, type ExecuteOptions } from './execute.ts';
export type { LoadRunResult, CurveResult, BaselineComparison, CapacitySearch, CapacityStep, ComparisonRow, MergeNotes } from './result.ts';
export { parseThreshold, evaluateThresholds, ThresholdError, type Threshold, type ThresholdResult } from './gates/thresholds.ts';
export { parseDuration, parseRate } from './units.ts';
export { parseStages, formatStages, stagesDurationMs, type Stage, type Stages } from './stages.ts';
export { isLoopbackUrl } from './remote.ts';
export { num, text, resolveParams, type Scenario, type RequestSource, type LoadRequest, type LoadResponse, type CheckResult, type ParamDef, type Params, type ParamValue, type RequestOutcome, type Send, type SourceContext, type SweepPoint } from './scenario.ts';
export { defineScenario, ScenarioDefinitionError, type ScenarioDefinition } from './define.ts';
export { checkWeights, mixSources, weightedPick, type MixPart } from './mix.ts';
export { importScenario, isScenarioPath, loadScenarioFile } from './scenario-file.ts';
export { checkShape, makeChains, usageBody, usageKeySpace, usageRow, type ArtifactChain, type BuiltCommit, CommitBuilder, type CommitShape, type UsageKey } from './bodies.ts';
export { callerOf, commitRequest, failureOf, judgeCommit, judgeUsage, pouchesFor, usageRequest, type Caller } from './requests.ts';
export { Rng, zipfCdf } from './rng.ts';
export { siblingModule } from './module-url.ts';
export { prepareGates, runGated } from './gates/gates.ts';
export { findCapacity, rateText } from './gates/capacity.ts';
export { BaselineError } from './gates/baseline.ts';
export { checkScenarioFile, indexedJob, k8sRecipe, podScenarioPath, profileMounts, scenarioConfigMap, K8sError, type K8sJobOptions, type ScenarioFile, type SecretMount } from './k8s/k8s.ts';
export { DEFAULT_METRICS_PORT } from './metrics/live.ts';
export { PHASES, phaseTag } from './stats/phases.ts';
export { mergeShards, MergeError } from './shards/merge.ts';
export { collectShards, ShardInputError } from './shards/shard-files.ts';
export { formatShardBlocks, ShardMarkerError } from './shards/shard-markers.ts';
export { toShardRecord, ShardRecordError, SHARD_HLOG, SHARD_JSON } from './shards/shard-record.ts';
export { writeHdrLog, HdrLogError, ERROR_LATENCY_TAG, LATENCY_TAG } from './shards/hdr-log.ts';
export { parseShard, parseStartAt, shardSuffix, type ShardSpec, type StartAt } from './shards/shard.ts';

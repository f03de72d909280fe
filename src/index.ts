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
export type { Property, CaseContext, Outcome, Capability, EvidenceFloor } from './check/property.ts';
// Properties of your own, beside the catalogue (`run({ properties: [...properties, mine] })`): built and
// judged as the built-in ones are, so their findings carry grounds the same way.
export { defineProperty, PASS, notApplicable, unknownOutcome, DEFAULT_FLOOR } from './check/property.ts';
export { specJudgement, readingJudgement, type Judgement } from './check/judge/judgements.ts';
export { violation, assumptionMismatch, expectAccepted, expectRejected, isRefusal, dataOf } from './check/judge/judge.ts';
export { judgeServed } from './check/judge/controls.ts';
export { CLAUSES, type ClauseName, type AssumptionName } from './spec/index.ts';
export type { Report, PropertyReport, CoverageReport } from './report/report-json.ts';
export type { ReportFormat } from './report/write.ts';
export type { FailOnKind, Finding, ProgressEvent, PropertyStatus } from './check/run/index.ts';
// A finding (of `onProgress`) is data: its counterexample and curl lines are rendered from it; a load run's exit code is computed from its result.
export { counterexampleText, loadExitCode } from './check/run/index.ts';
export { curlLines } from './report/curl-lines.ts';
export { UsageError } from './session/index.ts';
export { TargetError } from './target/resolve.ts';
// Load scenarios of your own (`pouchproof load --scenario ./mine.ts`, docs/load.md "Your own scenario"), built
// from the blocks the built-in ones use: seeded draws, body builders, signing callers, identifier pools, mixes.
export { defineScenario, ScenarioDefinitionError, type ScenarioDefinition } from './load/index.ts';
export { num, text, type Scenario, type RequestSource, type SourceContext, type LoadRequest, type LoadResponse, type RequestOutcome, type CheckResult, type Send, type ParamDef, type Params, type ParamValue, type SweepPoint } from './load/index.ts';
export { Rng, zipfCdf } from './load/index.ts';
export { CommitBuilder, checkShape, makeChains, usageBody, usageKeySpace, usageRow, type ArtifactChain, type BuiltCommit, type CommitShape, type UsageKey } from './load/index.ts';
export { callerOf, commitRequest, usageRequest, judgeCommit, judgeUsage, pouchesFor, failureOf, type Caller } from './load/index.ts';
export { mixSources, weightedPick, type MixPart } from './load/index.ts';
export { commitSource, committer, COMMIT_PARAMS, PREBUILD_PARAM, type CommitMix, type CommitSourceOptions } from '../scenarios/commit-throughput.ts';
export { contentionSource } from '../scenarios/commit-contention.ts';
export { usageSource } from '../scenarios/usage-flood.ts';
export { loadScenario } from '../scenarios/index.ts';
export { runLoad, LoadUsageError, type LoadedScenario, type RunLoadOptions, type RunLoadOutput } from './load/index.ts';
export type { LoadRunResult } from './load/index.ts';
export { LIMITS } from './spec/index.ts';

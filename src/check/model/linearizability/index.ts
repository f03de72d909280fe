export { checkLinearizable, searchPartition, DEFAULT_MAX_STEPS, type CheckOptions, type CheckResult } from './checker.ts';
export { CAS_MODEL, type CasInput, type CasOutput } from './cas.ts';
export { isPending, weakened, type Operation } from './history.ts';
export { partitionsOf, type Model, type Step } from './model.ts';
export { renderTimeline, timelineData, type TimelineData, type TimelineOp, type TimelineOptions } from './timeline.ts';
export type { RecordedHistory } from './recorded.ts';

/** Competing implementations side by side (`pouchproof compare`). */
export { compareTargets, cellOf, type Cell, type CompareOptions, type Comparison, type Divergence, type DivergenceKind, type DivergenceSide, type NoiseRow, type PropertyRow, type ReadingRow, type Repro, type SideSummary } from './compare.ts';
export type { CompareTarget, SideRun } from './sides.ts';
export { caseFacts, diffFacts, fieldOf, type Fact, type FactDiff } from './normalise.ts';

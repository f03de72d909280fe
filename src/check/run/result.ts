/**
 * What a run produces: findings, one result per property, and the run's own record. Pure types and
 * the few rules that read them (what fails a run); the runner fills them, the reports render them.
 */
import type { NemesisSummary } from '../../target/nemesis/index.ts';
import type { RecordedExchange } from './exchange-record.ts';
import type { TimelineData, RecordedHistory } from '../model/linearizability/index.ts';
import type { CostCurve } from '../model/cost-growth.ts';
import type { CoverageObservation, CoverageTable } from './coverage-table.ts';
import type { FindingKind, Mismatch } from '../property.ts';
import type { Ledger } from './ledger.ts';
import type { Json } from '../../gen/index.ts';

/**
 * A finding's kind: what a property's outcome said (`FindingKind`), or what the runner says about
 * the property itself: `skipped` (the profile lacks a capability, or nothing applies under the
 * run's readings), `error` (pouchproof could not run it: the suite's fault, not the target's) and
 * `crash` (the target went down right after a request, confirmed with a fresh connection).
 */
export type RunFindingKind = FindingKind | 'skipped' | 'error' | 'crash';

/** The kinds of finding a run can be told to fail on (`--fail-on`): cost smells are reported apart unless asked. */
export type FailOnKind = 'performance';
export const FAIL_ON_KINDS: readonly FailOnKind[] = ['performance'];

export interface Finding {
  kind: RunFindingKind;
  property: string;
  section: string;
  message: string;
  assumption?: string;
  /** For a violation: the judgement that found it and the clause of SPEC.md it rests on (`§4.3 "…"`). */
  judgement?: string;
  ground?: string;
  /** For an `unknown` finding: what the profile could add so that the case can be decided. */
  hint?: string;
  /** What the judgement compared, when it knows: the status or a field of an answer, expected and observed (masked, bounded). */
  mismatch?: Mismatch;
  /** The exchanges (`exchanges[].id`) the finding rests on: those its judgement named, else every one it kept. */
  exchangeIds?: number[];
  /** The (shrunk) case as data: JSON, long strings and arrays abbreviated, about 4 000 characters at most, secrets masked (render.ts). */
  input?: Json;
  /** Which case it was, when its phase names it (`coverage case 3 (max of …)`). */
  caseLabel?: string;
  /** The property's own words for the case, when it describes its cases (a sequence's numbered steps). */
  description?: string;
  replay?: string /* token */;
  /**
   * The case's requests, the last ones, with what came back (secrets masked, bodies bounded): the
   * reports render them (curl lines: src/report/curl-lines.ts; the HAR export; the HTML report).
   */
  exchanges?: RecordedExchange[];
  /** Earlier requests of the case not kept in `exchanges`. */
  omittedExchanges?: number;
  /** For a history that cannot be linearized: the witness as a timeline. */
  timeline?: TimelineData;
  /** For a performance finding: each dimension measured, as data (sizes, fastest costs, exponent). */
  curves?: CostCurve[];
  shrinks?: number;
  /** How many cases showed this finding (assumption, unknown and transport findings are deduplicated). */
  occurrences?: number;
  /** Requests the whole run had sent when this finding was first seen. */
  detectedAfterRequests?: number;
}

/**
 * `inconclusive`: the property judged less than its evidence floor (its cases ended in transport
 * failures, readings the target does not follow, unknowns, throttling or the time budget): it
 * vouches for nothing, so it is never `passed`.
 */
export type PropertyStatus = 'passed' | 'failed' | 'skipped' | 'interrupted' | 'error' | 'inconclusive';

export interface PropertyResult {
  id: string;
  section: string;
  status: PropertyStatus;
  /** Cases run (coverage cases not included). */
  runs: number;
  requests: number;
  durationMs: number;
  findings: Finding[];
  /**
   * The property's time bound ended it before its planned number of cases; `budgetShareMs` when that
   * bound was its share of the run's time budget (`maxDurationMs`).
   */
  timeBound?: { readonly planned: number; readonly budgetShareMs?: number };
  /** For an `inconclusive` property: why, in one line (what it judged against its floor, and what left the rest unjudged). */
  inconclusive?: string;
  /** What the property judged, case by case, against its floor (absent for a skipped or errored property). */
  evidence?: Ledger;
  /** The coverage phase, when the property has one: cases judged and what each showed. */
  coverage?: { readonly cases: number; readonly observations: readonly CoverageObservation[] };
  /** The concurrent histories its cases recorded (the first `MAX_HISTORIES`), and how many more were left out: written beside the reports. */
  histories?: { readonly kept: readonly RecordedHistory[]; readonly dropped: number };
}

/** Histories kept per property: shrinking may run hundreds of cases, and the first ones show the run. */
export const MAX_HISTORIES = 100;

/** What a stored failing case (the example database) showed when re-run before its property's phases. */
export type ExampleVerdict = 'still-failing' | 'now-passing' | 'no-longer-fits' | 'not-judged';

export interface ExampleReplay {
  readonly property: string;
  readonly replay: string /* token */;
  readonly verdict: ExampleVerdict;
  /** One line: the finding it still shows, why it no longer fits, or why it could not be judged. */
  readonly message: string;
}

export interface RunResult {
  /** Set when the run stopped because the target answered nothing (the run then exits 1: nothing could be vouched for). */
  unreachable?: string;
  runId: string;
  seed: number;
  target: string;
  startedAt: string;
  durationMs: number;
  results: PropertyResult[];
  requests: number;
  interrupted: boolean;
  /** One line, when some property is inconclusive: what could not be vouched for, and why (the run then does not exit 0). */
  inconclusive?: string;
  /** What the profile could add so that more can be decided (from `unknown` findings), deduplicated. */
  hints?: string[];
  /** Set when the run had a time budget (`maxDurationMs`): the properties it cut short or left unrun. */
  budget?: { readonly maxDurationMs: number; readonly cut: readonly string[]; readonly notRun: readonly string[] };
  /** Set when the run stopped after `maxFailures` failing properties: those it did not begin. */
  stopped?: { readonly maxFailures: number; readonly notRun: readonly string[] };
  /** The stored failing cases re-run first, one per token. */
  examples?: readonly ExampleReplay[];
  /** Requests the client held back and re-sent because the target throttled them (429, or 503 with Retry-After), and the time waited. */
  throttling?: { readonly throttled: number; readonly waitedMs: number; readonly limitPerSecond?: number };
  /** Set when the run went through the nemesis (docs/nemesis.md): the faults it injected, the retries they caused. */
  nemesis?: NemesisSummary;
  /** Set when the run stopped because the target timed out on most recent requests: too slow to judge at the run's bound. */
  tooSlow?: string;
  /** Set when the target could not be reached before the run began: nothing was sent (the `inconclusive` line says why). */
  notReached?: string;
  /** Kinds of finding the run was told to fail on besides the failing ones (`--fail-on`). */
  failOn?: readonly FailOnKind[];
  /** Requests sent until the first violation or server error, if any. */
  firstDetectionAfterRequests?: number;
  /** Which request constraints were seen accepted and refused, when a coverage phase ran. */
  coverage?: CoverageTable;
}

export type ProgressEvent =
  | { readonly type: 'property-start'; readonly id: string; readonly section: string; readonly index: number; readonly total: number }
  | { readonly type: 'case'; readonly id: string; readonly cases: number; readonly runs: number; readonly requests: number; readonly elapsedMs: number }
  /** `ended`: properties ended so far, this one included (side by side, they end in any order). */
  | { readonly type: 'property-end'; readonly result: PropertyResult; readonly index: number; readonly total: number; readonly ended: number };

/** The kinds of finding that fail a run whatever it was told: the spec's letter broken, a 5xx, a target that went down. */
export const FAILING_KINDS: readonly RunFindingKind[] = ['violation', 'server-error', 'crash'];

export function isFailing(kind: RunFindingKind): boolean {
  return FAILING_KINDS.includes(kind);
}

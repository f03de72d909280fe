/**
 * `report.json`: the machine-readable record of a run. Its schema is the zod schema below and is
 * documented in docs/report-schema.md; `schema` names its version so consumers can tell.
 */
import {
  RecordedExchangeSchema,
  counterexampleText,
  runExitCode,
  type Finding,
  type PhaseLedger,
  type PropertyResult,
  type RunResult,
  type CoverageRow,
  type CoverageTable,
} from '../check/run/index.ts';
import { curlLines } from './curl-lines.ts';
import { NEMESIS_FAULTS } from '../target/nemesis/index.ts';
import { z } from 'zod';
import type { Property } from '../check/property.ts';
import { redactDeep } from './redact-deep.ts';
import { tableOf } from '../spec/index.ts';

export const REPORT_SCHEMA_ID = 'pouchproof/report@3';

const FindingKindSchema = z.enum([
  'violation',
  'assumption',
  'server-error',
  'transport',
  'performance',
  'unknown',
  'skipped',
  'error',
  'crash',
]);

/** One HTTP exchange of a finding: its schema is defined once, with the record (src/check/run/exchange-record.ts). */
export const ExchangeSchema = RecordedExchangeSchema;

/** A history that cannot be linearized, as a timeline (src/check/model/linearizability/timeline.ts); an op without `retMs` has an unknown outcome. */
export const TimelineSchema = z.strictObject({
  title: z.string(),
  ops: z.array(z.strictObject({ id: z.number().int(), client: z.string(), label: z.string(), callMs: z.number(), retMs: z.number().optional() })),
});

/** A performance finding's measurement of one dimension (src/check/model/cost-growth.ts `CostCurve`). */
export const CostCurveSchema = z.strictObject({
  dimension: z.string(),
  what: z.string(),
  measure: z.enum(['latency', 'cpu']),
  verdict: z.enum(['linear', 'superlinear']),
  points: z.array(z.strictObject({ size: z.number().int().nonnegative(), ms: z.number() })),
  exponent: z.number().nullable(),
  linearRatio: z.number().nullable(),
  excessMs: z.number(),
  doublings: z.array(z.number().nullable()),
});

export const FindingSchema = z.strictObject({
  kind: FindingKindSchema,
  property: z.string(),
  section: z.string(),
  message: z.string(),
  assumption: z.string().optional(),
  judgement: z.string().optional(),
  ground: z.string().optional(),
  /** For an unknown finding: what the profile could add so that the case can be decided. */
  hint: z.string().optional(),
  /** What the judgement compared (src/check/property.ts `Mismatch`): the status or a field, expected and observed. */
  mismatch: z.strictObject({ subject: z.string(), expected: z.json(), observed: z.json() }).optional(),
  /** The exchanges (`exchanges[].id`) the finding rests on. */
  exchangeIds: z.array(z.number().int()).optional(),
  /** The case as data (bounded, secrets masked), its label, and the property's own words for it. */
  input: z.json().optional(),
  caseLabel: z.string().optional(),
  description: z.string().optional(),
  /** The case in words, rendered by the report writer from `caseLabel`, `description` and `input` (kept from report@2). */
  counterexample: z.string().optional(),
  replay: z.string().regex(/^[A-Za-z0-9_-]+$/).optional(),
  /** Curl lines, rendered by the report writer from `exchanges` (kept from report@2). */
  curl: z.array(z.string()).optional(),
  exchanges: z.array(ExchangeSchema).optional(),
  omittedExchanges: z.number().int().positive().optional(),
  timeline: TimelineSchema.optional(),
  curves: z.array(CostCurveSchema).optional(),
  shrinks: z.number().int().nonnegative().optional(),
  occurrences: z.number().int().positive().optional(),
  detectedAfterRequests: z.number().int().nonnegative().optional(),
});

/** One phase's cases against the floor: judged, not applicable under the readings, and not judged by cause. */
function PhaseSchema() {
  const n = z.number().int().nonnegative();
  return z.strictObject({
    planned: n,
    judged: n,
    notApplicable: n,
    unjudged: z.strictObject({ assumption: n, unknown: n, transport: n, throttled: n, time: n }),
  });
}

export const PropertyReportSchema = z.strictObject({
  id: z.string(),
  section: z.string(),
  invariant: z.string().optional(),
  assumptions: z.array(z.string()).optional(),
  needs: z.array(z.string()).optional(),
  status: z.enum([
    'passed',
    'failed',
    'skipped',
    'interrupted',
    'error',
    'inconclusive',
  ]),
  runs: z.number().int().nonnegative(),
  requests: z.number().int().nonnegative(),
  durationMs: z.number().nonnegative(),
  findings: z.array(FindingSchema),
  /** Present when the property's time bound ended it before its planned number of cases. */
  timeBound: z.object({ planned: z.number().int().positive(), budgetShareMs: z.number().positive().optional() }).optional(),
  /** For an inconclusive property: why, in one line. */
  inconclusive: z.string().optional(),
  /** Cases of its coverage phase judged (each enumerated variant once), when it has one. */
  coverageCases: z.number().int().nonnegative().optional(),
  /** What the property judged against its evidence floor (absent for a skipped or errored property). */
  evidence: z
    .strictObject({
      floor: z.strictObject({ coverage: z.number().min(0).max(1), random: z.number().min(0).max(1) }),
      coverage: PhaseSchema(),
      random: PhaseSchema(),
    })
    .optional(),
});

const Count = z.number().int().nonnegative();

const SideStatusSchema = z.enum(['observed', 'failed', 'partial', 'unobserved', 'none']);

const SideSchema = z.strictObject({ status: SideStatusSchema, variants: Count, observed: Count, failed: Count, assumption: Count, unjudged: Count });

/** The coverage table: for every request constraint of the inventory, whether acceptance and refusal were observed. */
export const CoverageReportSchema = z.strictObject({
  totals: z.strictObject({
    constraints: Count,
    cases: Count,
    accept: z.strictObject({ withVariants: Count, observed: Count, failed: Count, cases: Count }),
    reject: z.strictObject({ withVariants: Count, observed: Count, failed: Count, cases: Count }),
  }),
  rows: z.array(
    z.strictObject({ constraint: z.string(), endpoint: z.string(), scope: z.enum(['params', 'body', 'response']), kind: z.string(), section: z.string(), accept: SideSchema, reject: SideSchema }),
  ),
});

export const ReportSchema = z.strictObject({
  schema: z.literal(REPORT_SCHEMA_ID),
  tool: z.strictObject({ name: z.literal('pouchproof'), version: z.string() }),
  runId: z.string().regex(/^[A-Za-z0-9._-]+$/),
  seed: z.number().int(),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  durationMs: z.number().nonnegative(),
  interrupted: z.boolean(),
  /** Present when the run stopped because the target answered nothing. */
  unreachable: z.string().optional(),
  /** Present when some property is inconclusive: which and why, in one line (the run then does not exit 0). */
  inconclusive: z.string().optional(),
  /** Present when the run had a time budget (`--max-duration`): the properties it cut short or left unrun. */
  budget: z.strictObject({ maxDurationMs: z.number().positive(), cut: z.array(z.string()), notRun: z.array(z.string()) }).optional(),
  /** Present when the run stopped after `--max-failures` failing properties: those it did not begin. */
  stopped: z.strictObject({ maxFailures: Count, notRun: z.array(z.string()) }).optional(),
  /** The stored failing cases (the example database) re-run first: each one's verdict. */
  examples: z.array(z.strictObject({ property: z.string(), replay: z.string(), verdict: z.enum(['still-failing', 'now-passing', 'no-longer-fits', 'not-judged']), message: z.string() })).optional(),
  /** What the profile could add so that more can be decided (from unknown findings). */
  hints: z.array(z.string()).optional(),
  /** Present when the target throttled the run: requests held back and re-sent, the time waited, the rate the run settled at. */
  throttling: z.strictObject({ throttled: z.number().int().nonnegative(), waitedMs: z.number().nonnegative(), limitPerSecond: z.number().positive().optional() }).optional(),
  /** Present when the run went through the nemesis (docs/nemesis.md): its SPEC and seed, the faults injected, the retries after no answer. */
  nemesis: z
    .strictObject({
      spec: z.string(),
      seed: z.number().int(),
      requests: Count,
      injected: z.strictObject(tableOf(NEMESIS_FAULTS, () => Count)),
      retries: Count,
      unanswered: Count,
    })
    .optional(),
  exitCode: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
  target: z.strictObject({ name: z.string(), baseUrl: z.string(), embedded: z.boolean(), faults: z.array(z.string()).optional() }),
  options: z.strictObject({
    runs: Count,
    only: z.array(z.string()).optional(),
    exclude: z.array(z.string()).optional(),
    maxFailures: Count.optional(),
    /** False when counterexamples were reported as found (`--no-shrink`). */
    shrink: z.literal(false).optional(),
    perRequestMs: z.number().positive().optional(),
    perPropertyMs: z.number().positive().optional(),
    maxDurationMs: z.number().positive().optional(),
    /** Kinds of finding besides violations and server errors that fail the run (`--fail-on`). */
    failOn: z.array(z.enum(['performance'])).optional(),
  }),
  assumptions: z.record(z.string(), z.string()),
  totals: z.strictObject({
    properties: Count,
    passed: Count,
    failed: Count,
    skipped: Count,
    interrupted: Count,
    /** Properties pouchproof could not run. */
    error: Count,
    /** Properties that judged less than their evidence floor (or that the time budget left unrun). */
    inconclusive: Count,
    requests: Count,
    findings: z.strictObject({
      violation: Count,
      'server-error': Count,
      assumption: Count,
      transport: Count,
      performance: Count,
      unknown: Count,
      skipped: Count,
      error: Count,
      crash: Count,
    }),
  }),
  properties: z.array(PropertyReportSchema),
  /** Figures of the short load run of `npm start`, when it ran. */
  load: z.unknown().optional(),
  /** The kill matrix of `pouchproof mutants`, when it ran. */
  mutants: z.unknown().optional(),
  /** The target's readings as discovered before the run (`--assume auto`), with their evidence. */
  readings: z.unknown().optional(),
  /** Present when a coverage phase ran (rejection.violations-rejected, boundaries.limits-accepted). */
  coverage: CoverageReportSchema.optional(),
});

export type Report = z.infer<typeof ReportSchema>;
export type PropertyReport = z.infer<typeof PropertyReportSchema>;
export type CoverageReport = z.infer<typeof CoverageReportSchema>;
export type FindingReport = z.infer<typeof FindingSchema>;
export type ExchangeReport = z.infer<typeof ExchangeSchema>;
export type TimelineReport = z.infer<typeof TimelineSchema>;

function coverageReport(c: CoverageTable): CoverageReport {
  const side = (s: CoverageRow['accept']) => ({ status: s.status, variants: s.variants, observed: s.observed, failed: s.failed, assumption: s.assumption, unjudged: s.unjudged });
  return {
    totals: { constraints: c.totals.constraints, cases: c.totals.cases, accept: { ...c.totals.accept }, reject: { ...c.totals.reject } },
    rows: c.rows.map((r) => ({
      constraint: r.constraint,
      endpoint: r.endpoint,
      scope: r.scope,
      kind: r.kind,
      section: r.section,
      accept: side(r.accept),
      reject: side(r.reject),
    })),
  };
}

function phaseReport(p: PhaseLedger) {
  return { planned: p.planned, judged: p.judged, notApplicable: p.notApplicable, unjudged: { ...p.unjudged } };
}

/** A finding as report.json keeps it: its fields as data, and its counterexample and curl lines rendered here, at the edge, for readers of report@2. */
function findingReport(f: Finding): FindingReport {
  const { timeline, curves, ...rest } = f;
  const counterexample = counterexampleText(f);
  const curl = curlLines(f);
  return {
    ...rest,
    ...(counterexample !== undefined ? { counterexample } : {}),
    ...(curl.length ? { curl } : {}),
    ...(timeline ? { timeline: { title: timeline.title, ops: timeline.ops.map((o) => ({ ...o })) } } : {}),
    ...(curves ? { curves: curves.map((c) => ({ ...c, points: c.points.map((p) => ({ ...p })), doublings: [...c.doublings] })) } : {}),
  };
}

export interface ReportMeta {
  readonly version: string;
  readonly targetName: string;
  readonly embedded: boolean;
  readonly faults?: readonly string[];
  readonly runs: number;
  readonly only?: readonly string[];
  readonly exclude?: readonly string[];
  readonly maxFailures?: number;
  readonly shrink?: boolean;
  readonly perRequestMs?: number;
  readonly perPropertyMs?: number;
  readonly maxDurationMs?: number;
  readonly failOn?: readonly 'performance'[];
  readonly assumptions: Readonly<Record<string, string>>;
  /** The properties of the run, for their invariants and assumptions. */
  readonly properties?: readonly Pick<Property, 'id' | 'invariant' | 'assumptions' | 'needs'>[];
  readonly secrets: readonly string[];
  readonly load?: unknown;
  readonly mutants?: unknown;
  readonly readings?: unknown;
}

type ReportOptions = Report['options'];
type ReportTotals = Report['totals'];

/** The options the run was asked for, each only when it departs from the default. */
function optionsOf(meta: ReportMeta): ReportOptions {
  return {
    runs: meta.runs,
    ...(meta.only?.length ? { only: [...meta.only] } : {}),
    ...(meta.exclude?.length ? { exclude: [...meta.exclude] } : {}),
    ...(meta.maxFailures !== undefined ? { maxFailures: meta.maxFailures } : {}),
    ...(meta.shrink === false ? { shrink: false as const } : {}),
    ...(meta.perRequestMs ? { perRequestMs: meta.perRequestMs } : {}),
    ...(meta.perPropertyMs ? { perPropertyMs: meta.perPropertyMs } : {}),
    ...(meta.maxDurationMs ? { maxDurationMs: meta.maxDurationMs } : {}),
    ...(meta.failOn?.length ? { failOn: [...meta.failOn] } : {}),
  };
}

/** What the run says beside its results, each only when there is something to say. */
function runNotes(run: RunResult): Pick<Report, 'unreachable' | 'inconclusive' | 'budget' | 'stopped' | 'examples' | 'hints' | 'throttling' | 'nemesis'> {
  return {
    ...(run.unreachable ? { unreachable: run.unreachable } : {}),
    ...(run.inconclusive ? { inconclusive: run.inconclusive } : {}),
    ...(run.budget ? { budget: { maxDurationMs: run.budget.maxDurationMs, cut: [...run.budget.cut], notRun: [...run.budget.notRun] } } : {}),
    ...(run.stopped ? { stopped: { maxFailures: run.stopped.maxFailures, notRun: [...run.stopped.notRun] } } : {}),
    ...(run.examples?.length ? { examples: run.examples.map((e) => ({ ...e })) } : {}),
    ...(run.hints?.length ? { hints: [...run.hints] } : {}),
    ...(run.throttling ? { throttling: { ...run.throttling } } : {}),
    ...(run.nemesis ? { nemesis: { ...run.nemesis, injected: { ...run.nemesis.injected } } } : {}),
  };
}

/** The properties by status and the findings by kind. */
function totalsOf(run: RunResult): ReportTotals {
  const findings = run.results.flatMap((r) => r.findings);
  const count = (k: Finding['kind']) => findings.filter((f) => f.kind === k).length;
  const status = (s: PropertyResult['status']) => run.results.filter((r) => r.status === s).length;
  return {
    properties: run.results.length,
    passed: status('passed'),
    failed: status('failed'),
    skipped: status('skipped'),
    interrupted: status('interrupted'),
    error: status('error'),
    inconclusive: status('inconclusive'),
    requests: run.requests,
    findings: {
      violation: count('violation'),
      'server-error': count('server-error'),
      assumption: count('assumption'),
      transport: count('transport'),
      performance: count('performance'),
      unknown: count('unknown'),
      skipped: count('skipped'),
      error: count('error'),
      crash: count('crash'),
    },
  };
}

/** One property's result, with its invariant, assumptions and needs when the run listed the property. */
function propertyReport(r: PropertyResult, p: Pick<Property, 'invariant' | 'assumptions' | 'needs'> | undefined): PropertyReport {
  return {
    id: r.id,
    section: r.section,
    ...(p ? { invariant: p.invariant, assumptions: [...p.assumptions], needs: [...p.needs] } : {}),
    status: r.status,
    runs: r.runs,
    requests: r.requests,
    durationMs: r.durationMs,
    findings: r.findings.map(findingReport),
    ...(r.timeBound ? { timeBound: { ...r.timeBound } } : {}),
    ...(r.inconclusive ? { inconclusive: r.inconclusive } : {}),
    ...(r.coverage ? { coverageCases: r.coverage.cases } : {}),
    ...(r.evidence ? { evidence: { floor: { ...r.evidence.floor }, coverage: phaseReport(r.evidence.coverage), random: phaseReport(r.evidence.random) } } : {}),
  };
}

export function buildReport(run: RunResult, meta: ReportMeta): Report {
  const byId = new Map((meta.properties ?? []).map((p) => [p.id, p]));
  const report: Report = {
    schema: REPORT_SCHEMA_ID,
    tool: { name: 'pouchproof', version: meta.version },
    runId: run.runId,
    seed: run.seed,
    startedAt: run.startedAt,
    finishedAt: new Date(Date.parse(run.startedAt) + run.durationMs).toISOString(),
    durationMs: run.durationMs,
    interrupted: run.interrupted,
    ...runNotes(run),
    exitCode: runExitCode(run),
    target: { name: meta.targetName, baseUrl: run.target, embedded: meta.embedded, ...(meta.faults ? { faults: [...meta.faults] } : {}) },
    options: optionsOf(meta),
    assumptions: { ...meta.assumptions },
    totals: totalsOf(run),
    properties: run.results.map((r) => propertyReport(r, byId.get(r.id))),
    ...(meta.load !== undefined ? { load: meta.load } : {}),
    ...(meta.mutants !== undefined ? { mutants: meta.mutants } : {}),
    ...(meta.readings !== undefined ? { readings: meta.readings } : {}),
    ...(run.coverage ? { coverage: coverageReport(run.coverage) } : {}),
  };
  return redactDeep(report, meta.secrets);
}

export function toReportJson(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

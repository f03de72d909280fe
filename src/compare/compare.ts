/**
 * `pouchproof compare`: the same generated cases against every target, and what differs, each
 * difference classified the way a team choosing between implementations needs it:
 *
 * - **violation** (or server error): a side whose own run found the spec's letter broken is the
 *   wrong side; the letter decides, never a majority;
 * - **readings**: the sides take different readings of a "not shown" (as the probes saw them), and
 *   a case answered differently rests on one of them (the property names it among its assumptions);
 * - **unclassified**: answers differ where neither the letter nor a named reading decides;
 * - **noise**: a target that answers the same case differently when it is sent again (Diffy's way of
 *   learning nondeterminism): such fields are never reported as divergences, only counted.
 *
 * Every side runs the suite with the same seed, so the same cases (the same structure; identifiers
 * are drawn fresh per target and mapped by their order, see normalise.ts) and judged under its own
 * readings. Cases are compared only where no side failed the property: a failing side shrinks, and
 * its later cases are no longer the others' cases.
 */
import { DEFAULT_ASSUMPTIONS, readingEntries } from '../spec/index.ts';
import type { Exchange } from '../target/client.ts';
import { redact } from '../target/redact.ts';
import type { Discovery, ProbeResult } from '../discover/index.ts';
import type { Property } from '../check/property.ts';
import { isFailing, recordExchanges, tallyOf, targetGone, type Finding, type PropertyResult, type RecordedExchange, type RunTally } from '../check/run/index.ts';
import { caseFacts, diffFacts, fieldOf, type FactDiff } from './normalise.ts';
import type { CaseLog } from './recorder.ts';
import { recordSuite, runSide, type CompareTarget, type SideRun, type SuiteSettings } from './sides.ts';

/** Properties whose diverging cases are re-sent to learn noise (each rerun is one property per side). */
export const MAX_NOISE_RERUNS = 8;
const MAX_REPRO_CURLS = 4;
const MAX_DIFFS_SHOWN = 3;

/** A property's cell: `passed`, `skipped`, or the worst finding kind (any kind the runner reports, rendered as given). */
export type Cell = string;

/** Worst first; a kind not listed here (a runner newer than this file) ranks after `server-error`. */
const CELL_RANK = ['violation', 'server-error', 'error', 'transport', 'assumption', 'skipped'];

export function cellOf(r: PropertyResult | undefined): Cell {
  if (!r) return 'not run';
  const kinds = r.findings.map((f) => f.kind);
  const rank = (k: Finding['kind']) => (CELL_RANK.includes(k) ? CELL_RANK.indexOf(k) : isFailing(k) ? 1.5 : 2.5);
  const worst = [...kinds].sort((a, b) => rank(a) - rank(b))[0];
  return worst ?? String(r.status);
}

/** A side's figures; with `findings`, `statuses`, `gone` and `unreachable` its exit code is `sideExitCode`'s (exit-code.ts) to tell. */
export interface SideSummary extends RunTally {
  readonly name: string;
  readonly target: string;
  readonly embedded: boolean;
  /** The readings the side was judged under that differ from the registry's defaults. */
  readonly readings: Readonly<Record<string, string>>;
  readonly requests: number;
  readonly durationMs: number;
  readonly probeRequests: number;
  /** Why the side could not be judged at all: it stopped answering, or answered no plain request usably. */
  readonly unreachable?: string;
}

export interface PropertyRow {
  readonly id: string;
  readonly section: string;
  readonly cells: Readonly<Record<string, Cell>>;
}

export interface ReadingRow {
  readonly assumption: string;
  /** Per side: the reading found, `not observable`, or `unknown`. */
  readonly cells: Readonly<Record<string, string>>;
  /** Per side, the reason behind a `not observable` or `unknown` cell, or what was seen. */
  readonly details: Readonly<Record<string, string>>;
  /** At least two sides were seen to take different readings. */
  readonly differ: boolean;
}

export type DivergenceKind = 'violation' | 'server-error' | 'readings' | 'unclassified';

export interface DivergenceSide {
  readonly name: string;
  /** What this side did: `violation`, `passed`, its reading, or a summary of its answers. */
  readonly verdict: string;
  readonly detail?: string;
  /** What reproduces the side's case, as data; the reports render it (curl lines: src/report/compare-reports.ts `reproLines`). */
  readonly repro: Repro;
}

/**
 * A side's case as its requests, recorded with the side's secrets masked (at most MAX_REPRO_CURLS, the
 * earlier ones counted), or the probe's evidence for a reading when no case showed it.
 */
export type Repro = { readonly exchanges: readonly RecordedExchange[]; readonly omittedExchanges: number } | { readonly probe: readonly string[] };

export interface Divergence {
  readonly kind: DivergenceKind | string;
  /** One line naming the kind of divergence. */
  readonly title: string;
  readonly property?: string;
  readonly assumption?: string;
  /** The sides at fault (violations), when the spec decides. */
  readonly wrong?: readonly string[];
  /** Cases showing it (0: readings seen by the probes alone). */
  readonly cases: number;
  /** A few of the differing fields, `path: a ≠ b`. */
  readonly fields: readonly string[];
  readonly sides: readonly DivergenceSide[];
}

export interface NoiseRow {
  readonly property: string;
  readonly side: string;
  /** Fields that answered differently when the same case was sent again. */
  readonly fields: readonly string[];
}

/** What `pouchproof compare` found; its exit code is `comparisonExitCode`'s (exit-code.ts), from the sides. */
export interface Comparison {
  readonly seed: number;
  readonly runs: number;
  readonly only?: readonly string[];
  readonly startedAt: string;
  readonly durationMs: number;
  readonly sides: readonly SideSummary[];
  readonly properties: readonly PropertyRow[];
  readonly readings: readonly ReadingRow[];
  readonly divergences: readonly Divergence[];
  /** Cases that differed between sides only in fields a side answers differently by itself. */
  readonly noiseCases: number;
  readonly noise: readonly NoiseRow[];
  /** Cases compared case by case (per pair of sides). */
  readonly casesCompared: number;
  readonly interrupted: boolean;
}

export interface CompareOptions extends Omit<SuiteSettings, 'onProgress'> {
  readonly onLine?: (line: string) => void;
  readonly onProgress?: SuiteSettings['onProgress'];
  readonly maxNoiseReruns?: number;
}

export async function compareTargets(targets: readonly CompareTarget[], o: CompareOptions): Promise<Comparison> {
  const started = Date.now();
  const say = o.onLine ?? (() => undefined);
  const runs: SideRun[] = [];
  for (const t of targets) {
    if (o.signal?.aborted) break;
    say(`${t.name}: probing readings, then the suite (seed ${o.seed})`);
    const side = await runSide(t, o);
    const failing = side.run.results.flatMap((r) => r.findings).filter((f) => isFailing(f.kind)).length;
    say(`${t.name}: ${side.run.results.length} properties, ${side.run.requests} requests, ${failing} violation/server-error finding(s)${side.run.unreachable ? `; ${side.run.unreachable}` : ''}`);
    runs.push(side);
  }
  const byId = new Map(o.props.map((p) => [p.id, p]));
  const propertyIds = [...new Set(runs.flatMap((s) => s.run.results.map((r) => r.id)))];
  const properties: PropertyRow[] = propertyIds.map((id) => {
    const section = runs.flatMap((s) => s.run.results).find((r) => r.id === id)?.section ?? '';
    return { id, section, cells: Object.fromEntries(runs.map((s) => [s.target.name, cellOf(s.run.results.find((r) => r.id === id))])) };
  });
  const readings = readingRows(runs);
  const divergences: Divergence[] = [...findingDivergences(runs)];
  const cmp = compareCases(runs, byId);
  const noise = await learnNoise(runs, cmp, o, say);
  const classified = classifyCases(runs, cmp, noise, byId, readings);
  divergences.push(...classified.divergences, ...readingDivergences(runs, readings, classified.byAssumption));
  return {
    seed: o.seed,
    runs: o.runs,
    ...(o.only ? { only: o.only } : {}),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    sides: runs.map(sideSummary),
    properties,
    readings,
    divergences,
    noiseCases: classified.noiseCases,
    noise: [...noise.rows],
    casesCompared: cmp.compared,
    interrupted: o.signal?.aborted === true || runs.length < targets.length || runs.some((s) => s.run.interrupted),
  };
}

/** Why a side could not be judged at all: it stopped answering, or answered no plain request usably. */
function downReason(s: SideRun): string | undefined {
  if (s.run.unreachable) return s.run.unreachable;
  const t = s.discovery.table;
  const first = t[0];
  return first?.status === 'unknown' && t.every((r) => r.status === 'unknown' && r.why === first.why) ? first.why : undefined;
}

function sideSummary(s: SideRun): SideSummary {
  const down = downReason(s);
  const readings: Record<string, string> = {};
  for (const [k, v] of readingEntries(s.judgedUnder.assumptions)) if (DEFAULT_ASSUMPTIONS[k] !== v) readings[k] = v;
  return {
    name: s.target.name,
    target: redact(s.target.profile.baseUrl, s.target.profile.secrets),
    embedded: s.target.embedded,
    readings,
    requests: s.run.requests + s.discovery.requests,
    durationMs: s.run.durationMs + Math.round(s.discovery.durationMs),
    probeRequests: s.discovery.requests,
    ...(down ? { unreachable: down } : {}),
    // Findings by kind, properties by status, whether the target went away: the tally its exit code reads.
    ...tallyOf(s.run.results, targetGone(s.run), s.run.failOn),
  };
}

// ---- readings ----------------------------------------------------------------------------------

function readingCellOf(r: ProbeResult | undefined): { cell: string; detail: string } {
  if (!r) return { cell: 'not probed', detail: '' };
  switch (r.status) {
    case 'found':
      return { cell: r.reading, detail: r.detail ?? '' };
    case 'not-observable':
      return { cell: 'not observable', detail: r.why };
    case 'unknown':
      return { cell: 'unknown', detail: r.why };
    default:
      return r satisfies never;
  }
}

function readingRows(runs: readonly SideRun[]): ReadingRow[] {
  const names = [...new Set(runs.flatMap((s) => s.discovery.table.map((r) => r.assumption)))];
  return names.map((assumption) => {
    const cells: Record<string, string> = {};
    const details: Record<string, string> = {};
    const found = new Set<string>();
    for (const s of runs) {
      const r = s.discovery.table.find((x) => x.assumption === assumption);
      // A reading the profile fixes is the side's reading, whatever the probe saw (a mismatch is shown as detail).
      const fixed = (s.discovery.fixed)[assumption];
      const c = readingCellOf(r);
      cells[s.target.name] = fixed ?? c.cell;
      details[s.target.name] = fixed && fixed !== c.cell ? `fixed by the profile; the probe saw ${c.cell}` : c.detail;
      if (fixed ?? r?.status === 'found') found.add(fixed ?? c.cell);
    }
    return { assumption, cells, details, differ: found.size > 1 };
  });
}

/** The assumptions two sides were seen to read differently. */
function differingReadings(rows: readonly ReadingRow[], a: string, b: string): string[] {
  const isFound = (v: string | undefined) => v !== undefined && !['not observable', 'unknown', 'not probed'].includes(v);
  return rows.filter((r) => isFound(r.cells[a]) && isFound(r.cells[b]) && r.cells[a] !== r.cells[b]).map((r) => r.assumption);
}

function evidenceRepro(d: Discovery, assumption: string): Repro {
  const r = d.table.find((x) => x.assumption === assumption);
  return { probe: (r?.evidence ?? []).slice(0, MAX_REPRO_CURLS) };
}

function readingDivergences(runs: readonly SideRun[], rows: readonly ReadingRow[], byAssumption: ReadonlyMap<string, CaseHit>): Divergence[] {
  return rows.filter((r) => r.differ).map((r) => {
    const hit = byAssumption.get(r.assumption);
    const values = runs.map((s) => `${s.target.name}: ${r.cells[s.target.name]}`).join(', ');
    return {
      kind: 'readings',
      title: `different readings of ${r.assumption} (${values})${hit ? `: ${hit.cases} case(s) answered differently in ${[...hit.properties].join(', ')}` : ''}`,
      assumption: r.assumption,
      cases: hit?.cases ?? 0,
      fields: hit?.fields ?? [],
      sides: runs.map((s) => ({
        name: s.target.name,
        verdict: r.cells[s.target.name] ?? 'not probed',
        ...(r.details[s.target.name] ? { detail: r.details[s.target.name] } : {}),
        repro: hit?.repro.get(s.target.name) ?? evidenceRepro(s.discovery, r.assumption),
      })),
    };
  });
}

// ---- findings: the spec's letter decides who is wrong -------------------------------------------

function findingDivergences(runs: readonly SideRun[]): Divergence[] {
  const groups = new Map<string, { property: string; kind: string; judgement?: string; bySide: Map<string, Finding> }>();
  for (const s of runs) {
    for (const r of s.run.results) {
      for (const f of r.findings) {
        if (!isFailing(f.kind)) continue;
        const key = `${f.property}|${f.kind}|${f.judgement ?? ''}`;
        const g = groups.get(key) ?? { property: f.property, kind: f.kind, ...(f.judgement ? { judgement: f.judgement } : {}), bySide: new Map() };
        if (!g.bySide.has(s.target.name)) g.bySide.set(s.target.name, f);
        groups.set(key, g);
      }
    }
  }
  const out: Divergence[] = [];
  for (const g of groups.values()) {
    const wrong = runs.filter((s) => g.bySide.has(s.target.name)).map((s) => s.target.name);
    // Found on every side: no divergence between them (the matrix and the exit code still show it).
    if (wrong.length === runs.length) continue;
    const first = g.bySide.get(wrong[0]);
    // Found on no side that ran: nothing diverges.
    if (!first) continue;
    out.push({
      kind: g.kind,
      title: `${g.kind} in ${g.property}${g.judgement && g.judgement !== g.property ? ` (${g.judgement})` : ''} on ${wrong.join(', ')} only: ${first.message}`,
      property: g.property,
      wrong,
      cases: wrong.length,
      fields: first.ground ? [first.ground] : [],
      sides: runs.map((s) => {
        const f = g.bySide.get(s.target.name);
        if (f) return { name: s.target.name, verdict: String(f.kind), detail: [f.message, f.ground, f.replay ? `replay: pouchproof replay ${f.replay}` : ''].filter(Boolean).join(' — '), repro: { exchanges: f.exchanges ?? [], omittedExchanges: f.omittedExchanges ?? 0 } };
        const cell = cellOf(s.run.results.find((r) => r.id === g.property));
        const caseEx = firstCase(s.cases, g.property);
        return { name: s.target.name, verdict: cell, detail: 'the same property with the same seed', repro: reproOf(caseEx, s) };
      }),
    });
  }
  return out;
}

function firstCase(log: CaseLog, id: string): readonly Exchange[] {
  return log.get(id)?.[0] ?? [];
}

/** A side's case as a finding keeps its own: its exchanges recorded with the side's secrets masked. */
function reproOf(exchanges: readonly Exchange[], s: SideRun): Repro {
  const kept = recordExchanges(exchanges, s.target.profile.secrets, MAX_REPRO_CURLS);
  return { exchanges: kept, omittedExchanges: exchanges.length - kept.length };
}

// ---- cases ------------------------------------------------------------------------------------

interface CaseDiff {
  readonly property: string;
  readonly index: number;
  /** The side compared with the first comparable side. */
  readonly base: string;
  readonly other: string;
  readonly diffs: readonly FactDiff[];
}

interface CaseComparison {
  readonly diffs: readonly CaseDiff[];
  readonly compared: number;
}

/** Whether a side's run of a property can be compared case by case. */
function comparable(r: PropertyResult | undefined): boolean {
  return r !== undefined && r.status !== 'skipped' && r.status !== 'error' && !r.findings.some((f) => isFailing(f.kind));
}

function compareCases(runs: readonly SideRun[], byId: ReadonlyMap<string, Property>): CaseComparison {
  const diffs: CaseDiff[] = [];
  let compared = 0;
  for (const id of byId.keys()) {
    const results = runs.map((s) => s.run.results.find((r) => r.id === id));
    // A side that failed the property shrank: its later cases are not the others' cases.
    if (results.some((r) => r?.findings.some((f) => isFailing(f.kind)))) continue;
    const sides = runs.flatMap((run, i) => {
      const cases = run.cases.get(id);
      return comparable(results[i]) && cases?.length ? [{ run, cases }] : [];
    });
    if (sides.length < 2) continue;
    const { run: base, cases: baseCases } = sides[0];
    for (const { run: other, cases: otherCases } of sides.slice(1)) {
      const n = Math.min(baseCases.length, otherCases.length);
      for (let i = 0; i < n; i++) {
        compared++;
        const d = diffFacts(caseFacts(baseCases[i]), caseFacts(otherCases[i]));
        if (d.length) diffs.push({ property: id, index: i, base: base.target.name, other: other.target.name, diffs: d });
      }
    }
  }
  return { diffs, compared };
}

interface Noise {
  /** `side|property` → fields that side answers differently by itself. */
  readonly fields: ReadonlyMap<string, ReadonlySet<string>>;
  readonly rows: readonly NoiseRow[];
}

/**
 * Sends the diverging properties' cases again to each side (the same seed, so the same cases) and
 * keeps, per side and property, the fields whose answers changed: that side's noise.
 */
async function learnNoise(runs: readonly SideRun[], cmp: CaseComparison, o: CompareOptions, say: (l: string) => void): Promise<Noise> {
  const fields = new Map<string, Set<string>>();
  const rows: NoiseRow[] = [];
  const props = [...new Set(cmp.diffs.map((d) => d.property))].slice(0, o.maxNoiseReruns ?? MAX_NOISE_RERUNS);
  if (props.length === 0) return { fields, rows };
  say(`re-sending the cases of ${props.length} diverging propert${props.length === 1 ? 'y' : 'ies'} to each side, to tell noise from divergence`);
  for (const s of runs) {
    if (o.signal?.aborted) break;
    const mine = props.filter((p) => cmp.diffs.some((d) => d.property === p && (d.base === s.target.name || d.other === s.target.name)));
    if (mine.length === 0) continue;
    const again = await recordSuite(s.target, s.judgedUnder, o, mine);
    for (const p of mine) {
      const first = s.cases.get(p) ?? [];
      const second = again.cases.get(p) ?? [];
      const set = new Set<string>();
      for (let i = 0; i < Math.min(first.length, second.length); i++) {
        for (const d of diffFacts(caseFacts(first[i]), caseFacts(second[i]))) set.add(fieldOf(d.path));
      }
      if (set.size) {
        fields.set(`${s.target.name}|${p}`, set);
        rows.push({ property: p, side: s.target.name, fields: [...set] });
      }
    }
  }
  return { fields, rows };
}

interface CaseHit {
  cases: number;
  properties: Set<string>;
  fields: string[];
  repro: Map<string, Repro>;
}

function classifyCases(runs: readonly SideRun[], cmp: CaseComparison, noise: Noise, byId: ReadonlyMap<string, Property>, rows: readonly ReadingRow[]): { divergences: Divergence[]; byAssumption: Map<string, CaseHit>; noiseCases: number } {
  const side = new Map(runs.map((s) => [s.target.name, s]));
  const byAssumption = new Map<string, CaseHit>();
  const unclassified = new Map<string, CaseHit & { property: string; base: string; other: string }>();
  let noiseCases = 0;
  const hit = (h: CaseHit, d: CaseDiff, remaining: readonly FactDiff[]) => {
    h.cases++;
    h.properties.add(d.property);
    for (const f of remaining) {
      const line = `${d.property} ${f.path}: ${d.base} ${f.values[0]} ≠ ${d.other} ${f.values[1]}`;
      if (h.fields.length < MAX_DIFFS_SHOWN) h.fields.push(line);
    }
    for (const name of [d.base, d.other]) {
      const run = side.get(name);
      if (run && !h.repro.has(name)) h.repro.set(name, reproOf(run.cases.get(d.property)?.[d.index] ?? [], run));
    }
  };
  for (const d of cmp.diffs) {
    const noisy = new Set([...(noise.fields.get(`${d.base}|${d.property}`) ?? []), ...(noise.fields.get(`${d.other}|${d.property}`) ?? [])]);
    const remaining = d.diffs.filter((f) => !noisy.has(fieldOf(f.path)));
    if (remaining.length === 0) {
      noiseCases++;
      continue;
    }
    const relied = new Set<string>(byId.get(d.property)?.assumptions ?? []);
    const names = differingReadings(rows, d.base, d.other).filter((n) => relied.has(n));
    if (names.length) {
      for (const n of names) {
        const h = byAssumption.get(n) ?? { cases: 0, properties: new Set<string>(), fields: [], repro: new Map<string, Repro>() };
        hit(h, d, remaining);
        byAssumption.set(n, h);
      }
      continue;
    }
    const key = `${d.property}|${fieldOf(remaining[0].path)}`;
    const h = unclassified.get(key) ?? { cases: 0, properties: new Set<string>(), fields: [], repro: new Map<string, Repro>(), property: d.property, base: d.base, other: d.other };
    hit(h, d, remaining);
    unclassified.set(key, h);
  }
  const divergences: Divergence[] = [...unclassified.entries()].map(([key, h]) => ({
    kind: 'unclassified',
    title: `answers differ in ${h.property} at ${key.split('|')[1]} (${h.cases} case(s)): neither the spec's letter nor a named reading decides`,
    property: h.property,
    cases: h.cases,
    fields: h.fields,
    sides: runs.flatMap((s) => {
      const repro = h.repro.get(s.target.name);
      return repro ? [{ name: s.target.name, verdict: cellOf(s.run.results.find((r) => r.id === h.property)), repro }] : [];
    }),
  }));
  return { divergences, byAssumption, noiseCases };
}

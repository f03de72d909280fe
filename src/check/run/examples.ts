/**
 * The stored failing cases of a property (the example database, src/session/examples.ts), re-run
 * before its own phases as Hypothesis re-runs its database first: each is still failing, now
 * passing, no longer fits (token-fit.ts: it is not run), or could not be judged here.
 */
import type { Property } from '../property.ts';
import type { PropertyRunOptions } from './options.ts';
import { runProperty, type PropertyRunDeps } from './property-run.ts';
import { readReplayToken } from './replay-token.ts';
import { isFailing, type ExampleReplay, type Finding, type PropertyResult } from './result.ts';
import { tokenFit } from './token-fit.ts';

export interface ExamplesRun {
  readonly replays: readonly ExampleReplay[];
  /** The failing findings of the cases still failing, to join the property's own. */
  readonly findings: readonly Finding[];
}

export async function replayExamples(prop: Property, tokens: readonly string[], d: PropertyRunDeps, o: PropertyRunOptions): Promise<ExamplesRun> {
  const replays: ExampleReplay[] = [];
  const findings: Finding[] = [];
  for (const replay of new Set(tokens)) {
    if (o.signal?.aborted || d.counter.unreachable || d.counter.crash) break;
    const one = (verdict: ExampleReplay['verdict'], message: string) => replays.push({ property: prop.id, replay, verdict, message });
    const read = readReplayToken(replay);
    if ('why' in read) {
      one('no-longer-fits', read.why);
      continue;
    }
    const fit = tokenFit(prop, d.profile, read.token);
    if (!fit.fits) {
      one('no-longer-fits', fit.why);
      continue;
    }
    const r = await runProperty(prop, d, { ...o, path: fit.path, runs: read.token.runs });
    const failing = r.findings.filter((f) => isFailing(f.kind));
    const first = failing[0];
    if (first) {
      findings.push(...failing);
      one('still-failing', `${first.kind}: ${first.message}`);
    } else if (r.status === 'passed') one('now-passing', 'the case passes');
    else one('not-judged', notJudged(r));
  }
  return { replays, findings };
}

function notJudged(r: PropertyResult): string {
  return r.inconclusive ?? r.findings[0]?.message ?? r.status;
}

/** The property's result with the still-failing stored cases' findings added (a failure the phases found too is said once). */
export function withExamples(r: PropertyResult, e: ExamplesRun): PropertyResult {
  const key = (f: Finding) => `${f.kind}|${f.judgement ?? ''}|${f.message}`;
  const had = new Set(r.findings.map(key));
  const added = e.findings.filter((f) => !had.has(key(f)));
  if (added.length === 0 && e.findings.length === 0) return r;
  return { ...r, status: 'failed', findings: [...added, ...r.findings] };
}

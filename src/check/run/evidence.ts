/**
 * What a finding shows of its case: the case rendered, its requests as curl lines and as recorded
 * exchanges (secrets masked, bounded), and the finding records the runner builds from a case.
 */
import type { Exchange } from '../../target/client.ts';
import { toCurl } from '../../target/curl.ts';
import { redact } from '../../target/redact.ts';
import type { Crash } from './context.ts';
import { recordExchanges } from './exchange-record.ts';
import { groundFields } from '../judge/grounds.ts';
import type { Failure, Property } from '../property.ts';
import { clip, renderValue } from './render.ts';
import type { Finding } from './result.ts';

/** Curl lines kept per finding: the last requests of the failing case. */
const MAX_CURLS = 6;
/** Curl lines kept per finding of a property that shows all its requests (`showAllRequests`). */
const MAX_STEP_CURLS = 50;
const MAX_CURL_CHARS = 8_000;
/** Characters of a rendered case kept in a finding. */
const MAX_CASE_CHARS = 4_000;

export function describeInput(prop: Property, input: unknown): string {
  if (prop.describe) {
    try {
      return clip(prop.describe(input), MAX_CASE_CHARS);
    } catch {
      // fall back to the generic rendering
    }
  }
  return renderValue(input);
}

const curlsKept = (prop: Property): number => (prop.showAllRequests ? MAX_STEP_CURLS : MAX_CURLS);

/** A case's requests as a finding shows them: curl lines, and the same exchanges as data. */
export function evidence(prop: Property, exchanges: readonly Exchange[], secrets: readonly string[]): Pick<Finding, 'curl' | 'exchanges'> {
  const max = curlsKept(prop);
  return { curl: curls(exchanges, secrets, max), exchanges: recordExchanges(exchanges, secrets, max) };
}

function curls(exchanges: readonly Exchange[], secrets: readonly string[], max: number): string[] {
  const kept = exchanges.slice(-max);
  const out: string[] = [];
  if (exchanges.length > kept.length) out.push(`# ${exchanges.length - kept.length} earlier request(s) of this case omitted`);
  for (const ex of kept) {
    let line: string;
    try {
      line = toCurl(ex, secrets, { maxBodyBytes: MAX_CURL_CHARS });
    } catch {
      line = `# ${ex.request.method} ${ex.request.url}`;
    }
    out.push(clip(redact(line, secrets), MAX_CURL_CHARS));
  }
  return out;
}

/** The finding for one failing (or noted) outcome of a case, with its evidence. */
export function caseFinding(
  prop: Property,
  outcome: Failure,
  at: { readonly input: unknown; readonly exchanges: readonly Exchange[]; readonly label?: string },
  secrets: readonly string[],
  more: Partial<Finding> = {},
): Finding {
  const clean = (s: string) => redact(s, secrets);
  return {
    kind: outcome.kind === 'not-applicable' ? 'unknown' : outcome.kind,
    property: prop.id,
    section: prop.section,
    message: clean(outcome.message),
    ...groundFields(outcome),
    counterexample: clean(`${at.label ? `${at.label}: ` : ''}${describeInput(prop, at.input)}`),
    ...evidence(prop, at.exchanges, secrets),
    ...(outcome.kind === 'violation' && outcome.timeline ? { timeline: outcome.timeline } : {}),
    ...(outcome.kind === 'performance' && outcome.curves ? { curves: [...outcome.curves] } : {}),
    ...more,
  };
}

/** The finding for a target that went down under a case: the request sent last, its curl line, and the evidence. */
export function crashFinding(prop: Property, crash: Crash, at: { readonly input: unknown; readonly exchanges: readonly Exchange[] }, secrets: readonly string[], more: Pick<Finding, 'replay' | 'detectedAfterRequests'>): Finding {
  const ex = crash.culprit;
  const upTo = at.exchanges.filter((e) => e.id <= ex.id);
  const inCase = upTo.some((e) => e.id === ex.id);
  const path = ex.request.url.replace(/^[a-z]+:\/\/[^/]+/i, '');
  return {
    kind: 'crash',
    property: prop.id,
    section: prop.section,
    message: redact(`the target went down after ${ex.request.method} ${clip(path, 200)} (${crash.how}); a fresh connection was refused too (${crash.confirmation}), so the run stops here`, secrets),
    counterexample: redact(describeInput(prop, at.input), secrets),
    ...evidence(prop, inCase ? upTo : [ex], secrets),
    ...more,
  };
}

/**
 * What a finding keeps of its case, as data: the case's input (bounded, secrets masked), its label
 * and the property's own words for it, and its requests as recorded exchanges (secrets masked,
 * bounded); and the finding records the runner builds from a case. Reports render them (curl lines
 * included: src/report/curl-lines.ts), so nothing here is text for a reader but the one-line message.
 */
import type { Exchange } from '../../target/client.ts';
import { redact } from '../../target/redact.ts';
import type { Crash } from './context.ts';
import { recordExchanges } from './exchange-record.ts';
import { groundFields } from '../judge/grounds.ts';
import type { Failure, FailureDetail, Property } from '../property.ts';
import { boundedValue, clip } from './render.ts';
import type { Finding } from './result.ts';

/** Exchanges kept per finding: the last requests of the failing case. */
const MAX_EXCHANGES = 6;
/** Exchanges kept per finding of a property that shows all its requests (`showAllRequests`). */
const MAX_STEP_EXCHANGES = 50;
/** Characters of a property's own description of a case kept in a finding. */
const MAX_DESCRIPTION_CHARS = 4_000;

/** The property's own words for a case (`describe`), masked and bounded; undefined when it has none or they fail. */
function describeCase(prop: Property, input: unknown, secrets: readonly string[]): string | undefined {
  if (!prop.describe) return undefined;
  try {
    return redact(clip(prop.describe(input), MAX_DESCRIPTION_CHARS), secrets);
  } catch {
    return undefined;
  }
}

/** What a finding keeps of its case: the input as data, its label and the property's words for it. */
export function caseShown(prop: Property, input: unknown, secrets: readonly string[], label?: string): Pick<Finding, 'input' | 'caseLabel' | 'description'> {
  const description = describeCase(prop, input, secrets);
  return { input: boundedValue(input, secrets), ...(label ? { caseLabel: redact(label, secrets) } : {}), ...(description !== undefined ? { description } : {}) };
}

const exchangesKept = (prop: Property): number => (prop.showAllRequests ? MAX_STEP_EXCHANGES : MAX_EXCHANGES);

/** A case's requests as a finding keeps them: the last ones as recorded exchanges, and how many earlier ones it left out. */
export function evidence(prop: Property, exchanges: readonly Exchange[], secrets: readonly string[]): Pick<Finding, 'exchanges' | 'omittedExchanges'> {
  const max = exchangesKept(prop);
  const omitted = Math.max(0, exchanges.length - max);
  return { exchanges: recordExchanges(exchanges, secrets, max), ...(omitted ? { omittedExchanges: omitted } : {}) };
}

/** The detail an outcome carries: only a judged outcome (a violation, a reading, a 5xx, the network) names what it compared and the exchanges it read. */
function detailOf(o: Failure): FailureDetail {
  switch (o.kind) {
    case 'violation':
    case 'assumption':
    case 'server-error':
    case 'transport':
      return o;
    case 'performance':
    case 'unknown':
    case 'not-applicable':
      return {};
    default:
      return o satisfies never;
  }
}

/** What a failing outcome rests on, as the finding keeps it: the comparison made (masked), and the exchanges it names, else every exchange the finding kept. */
function detailFields(o: Failure, kept: Pick<Finding, 'exchanges'>, secrets: readonly string[]): Pick<Finding, 'mismatch' | 'exchangeIds'> {
  const d = detailOf(o);
  const ids = d.exchangeIds?.length ? [...d.exchangeIds] : (kept.exchanges ?? []).map((e) => e.id);
  const m = d.mismatch;
  return {
    ...(m ? { mismatch: { subject: m.subject, expected: boundedValue(m.expected, secrets), observed: boundedValue(m.observed, secrets) } } : {}),
    ...(ids.length ? { exchangeIds: ids } : {}),
  };
}

/** The finding for one failing (or noted) outcome of a case, with its evidence. */
export function caseFinding(
  prop: Property,
  outcome: Failure,
  at: { readonly input: unknown; readonly exchanges: readonly Exchange[]; readonly label?: string },
  secrets: readonly string[],
  more: Partial<Finding> = {},
): Finding {
  const kept = evidence(prop, at.exchanges, secrets);
  return {
    kind: outcome.kind === 'not-applicable' ? 'unknown' : outcome.kind,
    property: prop.id,
    section: prop.section,
    message: redact(outcome.message, secrets),
    ...groundFields(outcome),
    ...detailFields(outcome, kept, secrets),
    ...caseShown(prop, at.input, secrets, at.label),
    ...kept,
    ...(outcome.kind === 'violation' && outcome.timeline ? { timeline: outcome.timeline } : {}),
    ...(outcome.kind === 'performance' && outcome.curves ? { curves: [...outcome.curves] } : {}),
    ...more,
  };
}

/** The finding for a target that went down under a case: the request sent last (the one it rests on), and the evidence. */
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
    exchangeIds: [ex.id],
    ...caseShown(prop, at.input, secrets),
    ...evidence(prop, inCase ? upTo : [ex], secrets),
    ...more,
  };
}

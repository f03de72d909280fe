/**
 * The one place where a property's cases become findings: failing outcomes are kept for the
 * shrinker (random phase) or reported as they are (coverage phase: already minimal); outcomes that
 * do not fail the run (a reading not followed, an unknown, the network, a cost smell) are noted
 * once each with the first case that showed them; and every case is counted against the floor.
 * Cases are fed in case order, whatever order they ended in, so a seed gives the same report.
 */
import { redact } from '../../target/redact.ts';
import type { Failure, Property } from '../property.ts';
import type { CaseRun } from './case-runner.ts';
import { caseFinding } from './evidence.ts';
import { PhaseTally } from './ledger.ts';
import type { Finding } from './result.ts';

/** Ids vary from case to case; a note about the same thing must not be kept once per id. */
export function topicOf(o: Failure): string {
  switch (o.kind) {
    case 'assumption':
      return `a:${o.assumption}`;
    case 'performance':
      return `p:${o.judgement}`;
    case 'unknown':
      return `u:${o.hint ?? normalised(o.message)}`;
    case 'transport':
    case 'not-applicable':
    case 'violation':
    case 'server-error':
      return `${o.kind}:${normalised(o.message)}`;
    default:
      return o satisfies never;
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const HEX_ID = /\b[0-9a-f]{32}\b/gi;
const NUMBER = /\b\d+(\.\d+)?\b/g;

function normalised(message: string): string {
  return message.replace(UUID, '<id>').replace(HEX_ID, '<id>').replace(NUMBER, '<n>').slice(0, 200);
}

export class OutcomeSink {
  private readonly notes = new Map<string, Finding>();
  readonly coverage: PhaseTally;
  readonly random: PhaseTally;

  constructor(
    private readonly prop: Property,
    private readonly secrets: readonly string[],
    plan: { readonly coverage: number; readonly random: number },
  ) {
    this.coverage = new PhaseTally(plan.coverage);
    this.random = new PhaseTally(plan.random);
  }

  /**
   * Counts a case of `phase` and notes what does not fail the run. Returns the failing outcome
   * (a violation or a server error) for the caller to report, or undefined.
   */
  take(phase: 'coverage' | 'random', c: CaseRun, label?: string): Failure | undefined {
    (phase === 'coverage' ? this.coverage : this.random).add(c.verdict);
    if (c.crashed || c.cut || c.outcome.ok) return undefined;
    const o = c.outcome;
    if (o.kind === 'violation' || o.kind === 'server-error') return o;
    if (o.kind !== 'not-applicable') this.note(o, c, label);
    return undefined;
  }

  private note(o: Failure, c: CaseRun, label: string | undefined): void {
    const key = topicOf(o);
    const seen = this.notes.get(key);
    if (seen) {
      seen.occurrences = (seen.occurrences ?? 1) + 1;
      return;
    }
    this.notes.set(key, caseFinding(this.prop, o, { input: c.input, exchanges: c.exchanges, ...(label ? { label } : {}) }, this.secrets, { occurrences: 1, detectedAfterRequests: c.requestsAtEnd }));
  }

  /** A note the runner adds itself (a target that stopped answering). */
  noteRunner(f: Omit<Finding, 'property' | 'section'>): void {
    this.notes.set(`r:${f.message}`, { ...f, property: this.prop.id, section: this.prop.section, message: redact(f.message, this.secrets) });
  }

  findings(): Finding[] {
    return [...this.notes.values()];
  }
}

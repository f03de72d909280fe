/**
 * One judgement failing in many properties is most often one defect seen from many places: a commit
 * answer that breaks 2.6 fails every property that commits (`shared.success-envelope`, judged on
 * every success a case gets). The reports name such a judgement once, above the findings, so a reader
 * starts from the cause rather than from its twentieth copy. Rendering only: every property's
 * finding is still shown, and report.json is unchanged.
 */

/** A judgement that failed in at least SHARED_CAUSE_MIN properties, with them in report order. */
export interface SharedCause {
  readonly judgement: string;
  readonly properties: readonly string[];
}

/** What a shared cause most likely is, as every report says it. */
export const ONE_DEFECT = 'most likely one defect, seen by each';

/** Below this, the findings read well enough one by one. */
export const SHARED_CAUSE_MIN = 3;
const NAMED = 4;

interface PropertyLike {
  readonly id: string;
  readonly findings: readonly { readonly kind: string; readonly judgement?: string }[];
}

export function sharedCauses(properties: readonly PropertyLike[]): SharedCause[] {
  const by = new Map<string, string[]>();
  for (const p of properties) {
    const judgements = new Set(p.findings.flatMap((f) => (f.kind === 'violation' && f.judgement ? [f.judgement] : [])));
    for (const j of judgements) by.set(j, [...(by.get(j) ?? []), p.id]);
  }
  return [...by.entries()].filter(([, ps]) => ps.length >= SHARED_CAUSE_MIN).map(([judgement, ps]) => ({ judgement, properties: ps }));
}

/** `shared.success-envelope failed in 24 properties (a, b, c, d and 20 more): …`, without markup. */
export function sharedCauseText(c: SharedCause, code: (s: string) => string = (s) => s): string {
  const named = c.properties.slice(0, NAMED).map(code).join(', ');
  const more = c.properties.length > NAMED ? ` and ${c.properties.length - NAMED} more` : '';
  return `${code(c.judgement)} failed in ${c.properties.length} properties (${named}${more}): ${ONE_DEFECT}; their findings follow`;
}

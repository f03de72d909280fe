/**
 * usage-flood (4.3): many sources report overlapping rows (a small key space of days × assistants ×
 * models) concurrently. Reports rows/s, then checks max-merge: re-sending, per source, the row each
 * key must hold (the larger total, per the usage-row-key reading) has to change nothing. A server
 * that adds rows up, or lets the last write win, holds something else and answers otherwise.
 */
import {
  usageBody,
  usageKeySpace,
  usageRow,
  type UsageKey,
  callerOf,
  judgeUsage,
  usageRequest,
  Rng,
  defineScenario,
  num,
  type CheckResult,
  type LoadRequest,
  type RequestSource,
  type Send,
  type SourceContext,
} from '../src/load/index.ts';
import { LIMITS, USAGE_COUNTERS, mergeUsageRow, usageKey, type UsageRowValue } from '../src/spec/index.ts';

interface Token {
  readonly source: string;
  readonly rows: readonly UsageRowValue[];
}


/** What the max-merge check needs of a finished run: the row each key must hold, per source, and the sources whose answers were lost. */
interface MaxMergeState {
  readonly caller: ReturnType<typeof callerOf>;
  readonly kind: string;
  readonly rowsPer: number;
  readonly expected: ReadonlyMap<string, ReadonlyMap<string, UsageRowValue>>;
  readonly uncertain: ReadonlySet<string>;
  /** `usage-stored-meaning`: what `stored` counts, so what re-sending the maxima must answer. */
  readonly reading: SourceContext['profile']['assumptions']['usage-stored-meaning'];
}

/** Re-sends, per source, the row each key must hold: under max-merge that changes nothing. */
async function checkMaxMerge(send: Send, st: MaxMergeState): Promise<CheckResult[]> {
  const { caller, kind, expected, uncertain, reading } = st;
  const max = LIMITS.usageRowsPerRequest.max ?? st.rowsPer;
  let checked = 0, changed = 0;
  const bad: string[] = [];
  for (const [source, m] of expected) {
    if (uncertain.has(source) || m.size === 0) continue;
    const rows = [...m.values()];
    for (let i = 0; i < rows.length; i += max) {
      const chunk = rows.slice(i, i + max);
      const res = await send(usageRequest(caller, source, usageBody(chunk), kind)).catch((e: Error) => e);
      const j = judgeUsage(res, chunk.length);
      checked += chunk.length;
      const want = reading === 'rows-changed' ? 0 : reading === 'rows-held' ? m.size : chunk.length;
      // rows-held counts the whole source, so it is judged only when one request holds it all.
      const judged = reading !== 'rows-held' || rows.length <= max;
      if (!j.ok || (judged && j.stored !== want)) {
        changed += j.ok ? Math.abs((j.stored ?? 0) - want) : chunk.length;
        if (bad.length < 3) bad.push(`source ${source}: re-sending the ${chunk.length} expected maxima answered ${j.ok ? `stored ${j.stored}, expected ${want}` : j.reason}`);
      }
    }
  }
  const passed = bad.length === 0;
  return [
    {
      name: 'max-merge holds',
      passed,
      message: passed
        ? `re-sending the expected maximum of ${checked} rows over ${expected.size - uncertain.size} sources changed nothing (usage-stored-meaning=${reading})`
        : `max-merge broken: ${bad.join('; ')}`,
      figures: { rowsChecked: checked, rowsOff: changed },
    },
  ];
}

export function usageSource(ctx: SourceContext, kind = 'usage'): RequestSource {
  const rng = new Rng(ctx.seed);
  const caller = callerOf(ctx.profile, 'device', rng.uuid());
  const keyReading = ctx.profile.assumptions['usage-row-key'];
  const keyOf = (k: UsageKey): string => usageKey(k, keyReading);
  const keys = usageKeySpace(rng, { days: num(ctx.params, 'days'), assistants: num(ctx.params, 'assistants'), models: num(ctx.params, 'models') });
  const rowsPer = Math.min(keys.length, num(ctx.params, 'rows'));
  const maxCounter = num(ctx.params, 'counter');
  const sources = Array.from({ length: Math.max(1, Math.ceil(num(ctx.params, 'sources') / ctx.workers)) }, () => rng.hex(LIMITS.sourceIdLength.max ?? 32));
  const expected = new Map<string, Map<string, UsageRowValue>>(sources.map((s) => [s, new Map()]));
  const uncertain = new Set<string>();
  let rowsAccepted = 0;

  const merge = (held: UsageRowValue | undefined, r: UsageRowValue): UsageRowValue => mergeUsageRow(held, r).row;

  return {
    next(): LoadRequest {
      const source = sources[rng.int(sources.length)]!;
      const start = rng.int(keys.length);
      const rows = Array.from({ length: rowsPer }, (_, i) => usageRow(rng, keys[(start + i) % keys.length]!, maxCounter));
      const token: Token = { source, rows };
      return usageRequest(caller, source, usageBody(rows), kind, token);
    },
    complete(req, res) {
      const t = req.token as Token;
      const out = judgeUsage(res, t.rows.length);
      if (out.ok) {
        rowsAccepted += t.rows.length;
        const m = expected.get(t.source)!;
        for (const r of t.rows) m.set(keyOf(r), merge(m.get(keyOf(r)), r));
      } else if (out.error) uncertain.add(t.source);
      return out;
    },
    check: (send) => checkMaxMerge(send, { caller, kind, rowsPer, expected, uncertain, reading: ctx.profile.assumptions['usage-stored-meaning'] }),
    stats: () => ({ rowsAccepted }),
  };
}

export default defineScenario({
  name: 'usage-flood',
  description: 'many sources report overlapping usage rows; checks max-merge afterwards',
  unit: 'rows',
  params: [
    { name: 'sources', description: 'sources in all', default: 32, kind: 'int', min: 1, max: 100_000 },
    { name: 'rows', description: 'rows per request', default: 20, kind: 'int', min: 1, max: LIMITS.usageRowsPerRequest.max },
    { name: 'days', description: 'days in the key space', default: 7, kind: 'int', min: 1, max: 365 },
    { name: 'assistants', description: 'assistants in the key space', default: 3, kind: 'int', min: 1, max: 100 },
    { name: 'models', description: 'models in the key space', default: 4, kind: 'int', min: 1, max: 100 },
    { name: 'counter', description: 'counters are drawn below this', default: 1_000_000, kind: 'int', min: 1, max: Math.floor((LIMITS.usageCounter.max ?? Number.MAX_SAFE_INTEGER) / USAGE_COUNTERS.length) },
  ],
  createSource: (ctx) => usageSource(ctx),
});

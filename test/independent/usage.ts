/**
 * PUT /v1/usage/sources/{sourceId} (4.3). A row is keyed by (account, source, day, assistant, model);
 * a reported row replaces the stored one only when its total (the sum of the four counters) is larger,
 * so nothing is added up and a re-send changes nothing. `stored` is the number of rows of this report
 * that changed what is stored (0 for a re-send).
 */
import type { BugCheck } from './bugs.ts';
import { HttpError, yieldTurn, type Ctx, type Reply } from './http-types.ts';
import type { Json } from './json.ts';
import type { UsageRow } from './state.ts';
import { array, fail, integer, MAX_SAFE, object, required, string, text } from './validate.ts';

const COUNTERS = ['input', 'output', 'cache_read', 'cache_write'] as const;
const ROWS_MAX = 2000;
const DAY = /^20[0-9]{2}-[0-9]{2}-[0-9]{2}$/;
const ASSISTANT = /^[a-z0-9-]{1,32}$/;

interface Reported {
  readonly key: string;
  readonly row: UsageRow;
}

function sourceId(raw: string, bug: BugCheck): string {
  let s = raw;
  if (bug('4.3-1')) s = s.toLowerCase();
  if (bug('4.3-3')) s = s.replace(/\n$/, '');
  const re = bug('4.3-2') ? /^[0-9a-f]{31,33}$/ : /^[0-9a-f]{32}$/;
  if (!re.test(s)) fail('path.sourceId', 'not 32 lowercase hexadecimal characters');
  return s;
}

/** A real calendar day (leap years included); future days are accepted (no window is stated). */
function day(v: Json, path: string, bug: BugCheck): string {
  const s = string(v, path);
  const t = bug('2.7-5') ? s.replace(/\n$/, '') : s;
  const ok = bug('2.7-6') ? /^20\p{Nd}{2}-\p{Nd}{2}-\p{Nd}{2}$/u.test(t) : DAY.test(t);
  if (!ok) fail(path, 'not 20YY-MM-DD');
  if (bug('2.7-4') || bug('2.7-6')) return t;
  const [y, m, d] = t.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  const real = date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
  if (!real || (bug('2.7-7') && ((m === 2 && d === 29) || d === 31))) fail(path, 'not a calendar day');
  const today = new Date().toISOString().slice(0, 10);
  if ((bug('2.7-8') && t > today) || (bug('2.7-11') && t >= today)) fail(path, 'a future day');
  return t;
}

function counter(v: Json, path: string, bug: BugCheck): bigint {
  if (bug('2.7-1') && typeof v === 'string' && v.trim() !== '' && Number.isInteger(Number(v))) return BigInt(Number(v));
  return integer(v, path, bug, bug('2.7-2') ? 0n : undefined, MAX_SAFE);
}

function model(v: Json, path: string, bug: BugCheck): string {
  const s = text(v, path, bug, bug('2.7-10') ? 0 : 1, 120);
  // Used in a storage key through encodeURIComponent, which throws on a lone surrogate.
  if (bug('K-TEXT-4')) encodeURIComponent(s);
  return bug('K-TEXT-5') ? s.normalize('NFC') : s;
}

function row(v: Json, path: string, source: string, ctx: Ctx): Reported {
  const bug = ctx.bug;
  const o = object(v, path);
  const r = {} as UsageRow;
  for (const c of COUNTERS) r[c] = counter(required(o, c, path, bug), `${path}.${c}`, bug);
  if (bug('2.7-3') && total(r, bug) > MAX_SAFE) fail(path, 'counters above 9007199254740991');
  const d = day(required(o, 'day', path, bug), `${path}.day`, bug);
  const a = string(required(o, 'assistant', path, bug), `${path}.assistant`);
  if (!(bug('2.7-9') ? /^[A-Za-z0-9_-]{1,32}$/ : ASSISTANT).test(a)) fail(`${path}.assistant`, 'not 1 to 32 characters of a-z 0-9 -');
  const m = model(required(o, 'model', path, bug), `${path}.model`, bug);
  const parts = bug('4.3-13') ? [d, a] : [ctx.caller.account.id, source, d, a, m];
  return { key: JSON.stringify(parts), row: r };
}

function total(r: UsageRow, bug: BugCheck): bigint {
  if (bug('4.3-9')) return BigInt(COUNTERS.reduce((sum, c) => sum + Number(r[c]), 0));
  const t = r.input + r.output + r.cache_read + r.cache_write;
  if (bug('4.3-10') && (t > MAX_SAFE || t < -MAX_SAFE)) throw new HttpError(400, 'invalid', 'rows: a total past 2^53-1');
  return t;
}

/** The row to store after `reported` meets `stored`, or undefined when nothing changes. */
function merged(stored: UsageRow | undefined, reported: UsageRow, bug: BugCheck): UsageRow | undefined {
  if (!stored) return reported;
  if (bug('4.3-6')) return Object.fromEntries(COUNTERS.map((c) => [c, stored[c] + reported[c]])) as unknown as UsageRow;
  if (bug('4.3-7')) return reported;
  // biome-ignore lint/complexity/useMathMinMax: the counters are bigints, which Math.max does not take
  if (bug('4.3-8')) return Object.fromEntries(COUNTERS.map((c) => [c, stored[c] > reported[c] ? stored[c] : reported[c]])) as unknown as UsageRow;
  const bigger = bug('4.3-12') ? total(reported, bug) >= total(stored, bug) : total(reported, bug) > total(stored, bug);
  return bigger ? reported : undefined;
}

export async function reportUsage(ctx: Ctx): Promise<Reply> {
  const source = sourceId(ctx.params['sourceId']!, ctx.bug);
  const o = object(ctx.body, 'body');
  const list = array(required(o, 'rows', 'body', ctx.bug), 'body.rows', ctx.bug, undefined, ctx.bug('4.3-4') ? 2048 : ROWS_MAX);
  const rows = list.map((v, i) => row(v, `body.rows[${i}]`, source, ctx));
  if (ctx.bug('4.3-5')) {
    // Duplicates looked for pairwise: O(n^2) string comparisons over the report.
    let dups = 0;
    for (let i = 0; i < rows.length; i++) for (let j = 0; j < i; j++) if (rows[j]!.key === rows[i]!.key) dups++;
    if (dups > rows.length * rows.length) fail('body.rows', 'impossible');
  }
  let changed = 0;
  for (const r of rows) {
    const stored = ctx.state.usage.get(r.key);
    if (ctx.bug('4.3-11')) await yieldTurn();
    const next = merged(stored, r.row, ctx.bug);
    if (next) ctx.state.usage.set(r.key, next), changed++;
  }
  const stored = ctx.bug('4.3-14') ? ctx.state.usage.size : changed;
  return { data: { stored: ctx.bug('4.3-15') ? String(stored) : stored } };
}

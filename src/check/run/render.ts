/**
 * A case kept as data, and its words: the runner keeps a finding's input as JSON a report can hold
 * (long strings and arrays abbreviated, the whole bounded, because a generated envelope can be
 * 700 000 characters), and the reports render it, and a finding's counterexample line, from that data.
 */
import type { Json, JsonObject } from '../../gen/index.ts';
import { redact } from '../../target/redact.ts';

const MAX_STRING = 96;
const MAX_ITEMS = 12;
const MAX_DEPTH = 8;
/** Characters of JSON a case kept as data takes, about: past it, the rest of each array or object is counted, not kept. */
const MAX_TOTAL = 4000;

/** What is left of the budget while a value is walked; `secrets` are masked in every string kept. */
interface Walk {
  left: number;
  readonly secrets: readonly string[];
}

function str(s: string, w: Walk): string {
  const shown = redact(s.length > MAX_STRING ? `${s.slice(0, MAX_STRING)}…(${s.length} chars)` : s, w.secrets);
  w.left -= shown.length + 3;
  return shown;
}

function scalar(value: unknown, w: Walk): Json | undefined {
  if (typeof value === 'string') return str(value, w);
  if (typeof value === 'bigint') return str(`${value}n`, w);
  if (typeof value === 'number') {
    w.left -= 8;
    return Number.isFinite(value) ? value : null;
  }
  if (typeof value === 'boolean' || value === null) {
    w.left -= 5;
    return value;
  }
  // As JSON has it: undefined, a function or a symbol is no value.
  return undefined;
}

function list(items: readonly unknown[], depth: number, w: Walk): Json[] {
  const out: Json[] = [];
  for (const item of items.slice(0, MAX_ITEMS)) {
    if (w.left <= 0) break;
    out.push(walk(item, depth + 1, w) ?? null);
  }
  return items.length > out.length ? [...out, `…(${items.length} items)`] : out;
}

function record(value: object, depth: number, w: Walk): JsonObject {
  const out: JsonObject = {};
  const entries = Object.entries(value);
  let kept = 0;
  for (const [k, v] of entries) {
    if (w.left <= 0) break;
    kept++;
    const item = walk(v, depth + 1, w);
    if (item !== undefined) out[str(k, w)] = item;
  }
  if (kept < entries.length) out['…'] = `${entries.length - kept} more fields`;
  return out;
}

function walk(value: unknown, depth: number, w: Walk): Json | undefined {
  if (typeof value !== 'object' || value === null) return scalar(value, w);
  if (value instanceof Uint8Array) return str(`<${value.length} bytes>`, w);
  if (value instanceof Date) return str(Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString(), w);
  if (depth > MAX_DEPTH) return str('…', w);
  return Array.isArray(value) ? list(value, depth, w) : record(value, depth, w);
}

/** `value` as JSON data a finding keeps: strings over 96 characters and arrays over 12 items abbreviated, about 4 000 characters in all, secrets masked. */
export function boundedValue(value: unknown, secrets: readonly string[] = []): Json {
  return walk(value, 0, { left: MAX_TOTAL, secrets }) ?? null;
}

/** A value as one line of JSON for reports, abbreviated and bounded as `boundedValue` keeps it. */
export function renderValue(value: unknown): string {
  return clip(JSON.stringify(boundedValue(value)), MAX_TOTAL);
}

/** The fields of a finding that say what its case was. */
export interface CaseShown {
  /** The case as data (`boundedValue`). */
  readonly input?: Json;
  /** The property's own words for the case, when it has a `describe`. */
  readonly description?: string;
  /** Which case it was, when the phase names it (`coverage case 3 (max of …)`). */
  readonly caseLabel?: string;
}

/** A finding's counterexample in words: its label, then the property's description of the case, or the case as JSON; undefined when it has no case. */
export function counterexampleText(f: CaseShown): string | undefined {
  const body = f.description ?? (f.input !== undefined ? clip(JSON.stringify(f.input), MAX_TOTAL) : undefined);
  if (body === undefined) return f.caseLabel;
  return f.caseLabel ? `${f.caseLabel}: ${body}` : body;
}

/**
 * `text` cut at `max` characters, with its length. The cut is a string of its own: V8's slice of a
 * long string keeps the whole parent alive, and a finding once held a 33 MB curl line by its 8 000-character clip.
 */
export function clip(text: string, max: number): string {
  return text.length > max ? `${Buffer.from(text.slice(0, max), 'utf8').toString('utf8')}…(${text.length} chars)` : text;
}

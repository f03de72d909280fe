/**
 * Renders counterexamples for reports: JSON with long strings and arrays abbreviated, because a
 * generated envelope can be 700 000 characters and a report must stay readable.
 */

const MAX_STRING = 96;
const MAX_ITEMS = 12;
const MAX_TOTAL = 4000;

function abbreviate(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…(${value.length} chars)` : value;
  }
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 8) return '…';
  if (Array.isArray(value)) {
    const head = value.slice(0, MAX_ITEMS).map((v) => abbreviate(v, depth + 1));
    return value.length > MAX_ITEMS ? [...head, `…(${value.length} items)`] : head;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = abbreviate(v, depth + 1);
  return out;
}

export function renderValue(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(abbreviate(value, 0)) ?? String(value);
  } catch {
    text = String(value);
  }
  return clip(text, MAX_TOTAL);
}

/**
 * `text` cut at `max` characters, with its length. The cut is a string of its own: V8's slice of a
 * long string keeps the whole parent alive, and a finding once held a 33 MB curl line by its 8 000-character clip.
 */
export function clip(text: string, max: number): string {
  return text.length > max ? `${Buffer.from(text.slice(0, max), 'utf8').toString('utf8')}…(${text.length} chars)` : text;
}

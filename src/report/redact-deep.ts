/** Masks secrets in every string of a JSON-ready value: nothing reaches a report file unredacted. */
import { redact } from '../target/redact.ts';

export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[redact(k, secrets)] = walk(x);
      return out;
    }
    return v;
  };
  // walk keeps every value's shape and only masks strings, so it answers a T
  return walk(value) as T;
}

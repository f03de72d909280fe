import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIMITS, MAX_SAFE, REQUEST_CONSTRAINTS, codePointLength, utcDayOf } from '../../src/spec/index.ts';
import {
  atSendTime,
  boundariesFor,
  boundarySpecs,
  breaksOnlyItsLabel,
  getAt,
  requestIssues,
  violationSpecs,
  violationsFor,
  withAt,
  type Json,
} from '../../src/gen/index.ts';

/** The value a min/max variant names, read back from the sample. */
function measure(v: Json | undefined): number | undefined {
  if (typeof v === 'string') return codePointLength(v);
  if (Array.isArray(v)) return v.length;
  return typeof v === 'number' ? v : undefined;
}

const locate = (path: string) =>
  path
    .replace(/^\$\.?/, '')
    .split(/\.|(?=\[)/)
    .filter(Boolean)
    .map((s) => (/^\[\d+\]$/.test(s) ? Number(s.slice(1, -1)) : s));

describe('constraint inventory coverage', () => {
  it('every request constraint has violation generators whose cases break exactly their label', () => {
    let variants = 0;
    const uncovered: string[] = [];
    const wrong: string[] = [];
    for (const c of REQUEST_CONSTRAINTS) {
      const specs = violationSpecs(c);
      if (specs.length === 0) uncovered.push(c.id);
      for (const s of specs) {
        variants++;
        const [v] = fc.sample(violationsFor(c, s.variant), { numRuns: 1, seed: variants });
        if (v!.label.constraintId !== c.id || v!.label.variant !== s.variant || !breaksOnlyItsLabel(v!)) {
          wrong.push(`${c.id} ${s.variant}: ${JSON.stringify(requestIssues(c.endpoint, v!))}`);
        }
      }
    }
    console.log(`violation coverage: ${REQUEST_CONSTRAINTS.length} request constraints, ${variants} violation variants`);
    expect(uncovered).toEqual([]);
    expect(wrong).toEqual([]);
    expect(variants).toBeGreaterThan(REQUEST_CONSTRAINTS.length);
  });

  it('every request constraint has boundary-valid generators; min/max cases sit exactly on the bound', () => {
    let variants = 0;
    const uncovered: string[] = [];
    const wrong: string[] = [];
    for (const c of REQUEST_CONSTRAINTS) {
      const specs = boundarySpecs(c);
      if (specs.length === 0) uncovered.push(c.id);
      for (const s of specs) {
        variants++;
        const [b] = fc.sample(boundariesFor(c, s.variant), { numRuns: 1, seed: variants });
        const issues = requestIssues(c.endpoint, b!);
        if (issues.length) wrong.push(`${c.id} ${s.variant}: ${JSON.stringify(issues)}`);
        if (s.bound !== 'edge') {
          const at = c.scope === 'params' ? b!.params[c.path] : getAt(b!.body, locate(b!.path));
          const named = Number(s.variant.replace(/^\w+=/, '').split(' ')[0]);
          if (!b!.exact || measure(at) !== named) wrong.push(`${c.id} ${s.variant}: found ${measure(at)}`);
        }
      }
    }
    console.log(`boundary coverage: ${REQUEST_CONSTRAINTS.length} request constraints, ${variants} boundary variants`);
    expect(uncovered).toEqual([]);
    expect(wrong).toEqual([]);
  });

  it('each limit of a request field is driven to both ends', () => {
    const ends = new Map<string, Set<number>>();
    for (const c of REQUEST_CONSTRAINTS) {
      if (!c.limit) continue;
      for (const s of boundarySpecs(c)) {
        if (s.bound === 'edge') continue;
        const set = ends.get(c.limit) ?? new Set<number>();
        set.add(Number(s.variant.replace(/^\w+=/, '').split(' ')[0]));
        ends.set(c.limit, set);
      }
    }
    for (const [name, got] of ends) {
      const l = LIMITS[name as keyof typeof LIMITS];
      const bottom = l.min ?? (l.unit === 'integer' ? -MAX_SAFE : 0);
      expect([name, got.has(bottom), got.has(l.max!)]).toEqual([name, true, true]);
    }
    expect(ends.size).toBeGreaterThan(10);
  });
});

describe('a case read off the clock', () => {
  it('takes the current UTC day again when sent: a case drawn before midnight sends the new day after it', () => {
    const c = REQUEST_CONSTRAINTS.find((k) => boundarySpecs(k).some((s) => s.variant === 'day:today'));
    expect(c, 'some constraint has the day:today variant').toBeDefined();
    const drawnAt = Date.UTC(2026, 10, 28, 23, 59, 59, 900);
    const [b] = fc.sample(boundariesFor(c!, 'day:today'), { numRuns: 1, seed: 1 });
    const drawn = { ...b!, body: withAt(b!.body, locate(b!.path), utcDayOf(drawnAt)) };
    const sent = atSendTime(drawn, drawnAt + 200);
    expect(getAt(drawn.body, locate(drawn.path))).toBe('2026-11-28');
    expect(getAt(sent.body, locate(sent.path))).toBe('2026-11-29');
    // Only that value moves; every other case is sent as drawn.
    expect(withAt(sent.body, locate(sent.path), '2026-11-28')).toEqual(drawn.body);
    const [other] = fc.sample(boundariesFor(c!, boundarySpecs(c!).find((s) => s.variant !== 'day:today')!.variant), { numRuns: 1, seed: 1 });
    expect(atSendTime(other!, drawnAt + 200)).toBe(other);
  });
});

/**
 * "No limit is written twice": a numeric bound of LIMITS may appear as a literal only in
 * src/spec/limits.ts. Distinctive values (342, 699051, 87382, 5462, 9007199254740991 and their +1)
 * are flagged anywhere in code; round or small ones (16, 32, 43, 50, 120, 200, 2000 and their +1)
 * only on a line that also names a field that limit governs and speaks of a size
 * (`blob_ids.length > 2000`, `reason: z.string().max(200)`), so a timeout of 2000 ms or an HTTP 200
 * next to a `reason` is never mistaken for one. Comments are ignored: prose may quote the spec.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, LIMITS, LIMIT_NAMES, MAX_SAFE, type LimitName, type Node } from '../../src/spec/index.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = ['src', 'properties', 'scenarios'];
const HOME = 'src/spec/limits.ts';

/** Known restatements in prose strings, each with why it is tolerated. */
const ALLOWED: { file: string; value: number; why: string }[] = [
  // The `empty-lists` rationale explains why lists without a stated minimum may be empty by citing
  // the two lists that have one ("ops 1 to 50, roster statements 1 to 16"): prose about the spec,
  // read by people, never a bound anything checks or generates.
  { file: 'src/spec/assumptions.ts', value: 50, why: 'empty-lists rationale cites the stated minimum of ops' },
  { file: 'src/spec/assumptions.ts', value: 16, why: 'empty-lists rationale cites the stated minimum of roster statements' },
];

/** Field names per limit, read off the model (the field whose node references the limit). */
function fieldsByLimit(): Map<LimitName, Set<string>> {
  const out = new Map<LimitName, Set<string>>();
  const add = (l: LimitName | undefined, key: string) => l && (out.get(l) ?? out.set(l, new Set()).get(l)!).add(key);
  const seen = new Set<Node>();
  const walk = (node: Node, key: string) => {
    if (seen.has(node)) return;
    seen.add(node);
    if (node.kind === 'string') add(node.length, key);
    if (node.kind === 'integer') add(node.range, key);
    if (node.kind === 'array') {
      add(node.count, key);
      walk(node.items, key);
    }
    if (node.kind === 'object') for (const [k, f] of Object.entries(node.fields)) walk(f.node, k);
  };
  for (const e of ENDPOINTS) {
    walk(e.body, '');
    walk(e.data, '');
    for (const [name, n] of Object.entries(e.params)) walk(n, name);
  }
  return out;
}

interface Rule {
  value: number;
  /** Undefined: flagged anywhere; else only on a line naming one of these fields. */
  fields?: RegExp;
}

function rules(): Rule[] {
  const fields = fieldsByLimit();
  const out: Rule[] = [];
  for (const name of LIMIT_NAMES) {
    const l = LIMITS[name];
    for (const v of [l.min, l.max]) {
      if (v === undefined || Math.abs(v) < 16) continue;
      const distinctive = Math.abs(v) >= 300 && v % 100 !== 0;
      const names = [...(fields.get(name) ?? [])];
      for (const value of [Math.abs(v), Math.abs(v) + 1]) {
        if (distinctive) out.push({ value });
        else if (names.length) out.push({ value, fields: new RegExp(`\\b(${names.join('|')})\\b`) });
      }
    }
  }
  return out;
}

/** Words that make a line about a size, for the contextual rules. */
const SIZE_WORDS = /length|Length|max|min|Items|limit|Limit|size|slice/;

/** Drops block comments and line comments (not `://` inside URLs). */
export function stripComments(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' ')).replace(/(^|[\s;,{}()])\/\/.*$/gm, '$1');
}

function findings(file: string, src: string, rs: Rule[]): string[] {
  const out: string[] = [];
  stripComments(src)
    .split('\n')
    .forEach((line, i) => {
      for (const m of line.matchAll(/(?<![\w.])\d[\d_]*(?!\w)/g)) {
        const value = Number(m[0].replaceAll('_', ''));
        for (const r of rs) {
          if (r.value !== value || (r.fields && !(r.fields.test(line) && SIZE_WORDS.test(line)))) continue;
          if (ALLOWED.some((a) => a.file === file && a.value === value)) continue;
          out.push(`${file}:${i + 1}: ${value} in "${line.trim().slice(0, 100)}"`);
        }
      }
    });
  return out;
}

function files(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : files(p);
    return /\.(ts|js|mjs)$/.test(name) ? [p] : [];
  });
}

describe('limit literals', () => {
  const rs = rules();

  it('the detector flags restatements and nothing else', () => {
    expect(findings('x.ts', 'const max = 699051;\nif (op.blob_ids.length > 2000) fail();\nconst n = 699_052;', rs)).toHaveLength(3);
    const clean = ['// at most 2000 blob_ids', 'if (r.status < 200) return { reason: `http` };', '/* envelope 699051 */', 'setTimeout(f, 2000);', 'if (status === 200) ok();', "const u = 'http://x/2000';", 'const d = 0.2000;'];
    expect(findings('x.ts', clean.join('\n'), rs)).toEqual([]);
    expect(rs.some((r) => r.value === MAX_SAFE && !r.fields)).toBe(true);
  });

  it(`no limit literal appears outside ${HOME}`, () => {
    const all = SCANNED.flatMap((d) => files(join(ROOT, d)));
    expect(all.length).toBeGreaterThan(10);
    const found = all
      .map((p) => relative(ROOT, p).split('\\').join('/'))
      .filter((f) => f !== HOME)
      .flatMap((f) => findings(f, readFileSync(join(ROOT, f), 'utf8'), rs));
    expect(found).toEqual([]);
  });
});

/**
 * docs/CONTRACTS.md against the code, in both directions: every property id, profile field,
 * `Profile` member, fault and load-check id the code has is named there, and everything named
 * there exists. A drift in either direction fails with the names that differ.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import { LOAD_CHECKS } from '../../scenarios/checks.ts';
import { FAULTS, NEMESIS_ONLY_FAULTS } from '../../src/reference/index.ts';
import { ProfileFileSchema, parseProfile } from '../../src/target/profile.ts';

const DOC = readFileSync(new URL('../../docs/CONTRACTS.md', import.meta.url), 'utf8');

/** The body of the `## title…` section, up to the next `## `. */
function section(title: string): string {
  const start = DOC.indexOf(`\n## ${title}`);
  if (start < 0) throw new Error(`CONTRACTS.md has no section "## ${title}"`);
  const body = DOC.slice(DOC.indexOf('\n', start + 1) + 1);
  const end = body.indexOf('\n## ');
  return end < 0 ? body : body.slice(0, end);
}

/** The member names at the top level of the first `{ … }` after `head` (nested braces skipped). */
function topLevelMembers(head: string): string[] {
  const at = DOC.indexOf(head);
  if (at < 0) throw new Error(`CONTRACTS.md has no "${head}"`);
  let depth = 0;
  let top = '';
  for (const ch of DOC.slice(at + head.length - 1)) {
    if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) break;
    else if (depth === 1) top += ch;
  }
  return [...top.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/(?:^|[;\s])([A-Za-z_$][\w$]*)\??\s*:/g)].map((m) => m[1]!);
}

const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

describe('docs/CONTRACTS.md names exactly what the code has', () => {
  it('property ids', () => {
    const named = [...section('Property ids').matchAll(/\b([a-z]+\.[a-z-]+)\b/g)].map((m) => m[1]!);
    expect(sorted(named)).toEqual(sorted(ALL_PROPERTIES.map((p) => p.id)));
    expect(new Set(named).size, 'each id once').toBe(named.length);
  });

  it('profile file fields', () => {
    const table = section('src/target').split('### Profile file fields')[1]!.split('```')[0]!;
    const named = [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
    expect(sorted(named)).toEqual(sorted(Object.keys(ProfileFileSchema.shape)));
  });

  it('the Profile interface', () => {
    const named = topLevelMembers('export interface Profile {');
    expect(sorted(named)).toEqual(sorted(Object.keys(parseProfile({ baseUrl: 'http://127.0.0.1:9' }))));
  });

  it('faults of the reference', () => {
    const body = section('Faults of the reference');
    const named = [...body.replace(/^[a-z]+:/gm, '').matchAll(/[a-z0-9]+(?:-[a-z0-9]+)+/g)].map((m) => m[0]);
    expect(sorted(named)).toEqual(sorted(FAULTS.map((f) => f.name)));
  });

  it('nemesis-only faults of the reference', () => {
    const body = section('Nemesis-only faults of the reference').split('\n').slice(2).join('\n');
    const named = [...body.replace(/^[a-z]+:/gm, '').matchAll(/[a-z0-9]+(?:-[a-z0-9]+)+/g)].map((m) => m[0]);
    expect(sorted(named)).toEqual(sorted(NEMESIS_ONLY_FAULTS.map((f) => f.name)));
  });

  it('load-check killer ids', () => {
    const named = [...DOC.matchAll(/`(load\.[a-z0-9-]+)`/g)].map((m) => m[1]!);
    expect(sorted(named)).toEqual(sorted(Object.keys(LOAD_CHECKS)));
    expect(sorted(FAULTS.flatMap((f) => f.expectedKillers).filter((k) => k.startsWith('load.')))).toEqual(sorted(Object.keys(LOAD_CHECKS)));
  });
});

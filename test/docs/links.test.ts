/**
 * No dead link between the pages: every relative link of the README and of docs/ names a file of the
 * repository, and every `#anchor` a heading of its page, by GitHub's slug rules (docs/incoming/ holds
 * branches' notes not yet folded into a page, and is left out). The checker is tried first on pages made
 * for it, so a green run of the real pages means the links were looked at. The README's command table
 * names every command of the CLI, and nothing the CLI lacks.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/main.ts';
import { REPO_ROOT } from '../repo-paths.ts';
import { anchorsOf, deadLinks, githubSlug, relativeLinksOf } from './markdown-links.ts';

function markdownUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (relative(REPO_ROOT, p).split(sep).join('/') !== 'docs/incoming') markdownUnder(p, out);
    } else if (name.endsWith('.md')) out.push(relative(REPO_ROOT, p).split(sep).join('/'));
  }
  return out;
}

const PAGES = ['README.md', ...markdownUnder(join(REPO_ROOT, 'docs'))].sort();

describe('the link checker', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'pouchproof-links-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('slugs headings as GitHub does', () => {
    expect(githubSlug('Findings, exit codes and reports')).toBe('findings-exit-codes-and-reports');
    expect(githubSlug('The model as OpenAPI 3.1: `pouchproof openapi`')).toBe('the-model-as-openapi-31-pouchproof-openapi');
    expect(githubSlug("In CI, with secrets from the CI's store")).toBe('in-ci-with-secrets-from-the-cis-store');
    expect(githubSlug('4.1 POST /v1/cli-auth/requests/{id}/approve')).toBe('41-post-v1cli-authrequestsidapprove');
    expect(githubSlug('K-B64: a string of the alphabet A-Z a-z 0-9 _ -')).toBe('k-b64-a-string-of-the-alphabet-a-z-a-z-0-9-_--');
    expect(githubSlug('**Bold** and [a link](x.md) ≥ 20')).toBe('bold-and-a-link--20');
    expect([...anchorsOf('# A\n## Tests\n```\n## Not a heading\n```\n### Tests\n<a id="here"></a>')]).toEqual(['a', 'tests', 'tests-1', 'here']);
  });

  it('finds relative links outside code, and only those', () => {
    const page = 'See [a](a.md#x), [b](<b c.md> "title"), ![img](i.png), [web](https://example.com), `[code](no.md)`.\n```\n[fenced](no.md)\n```\n[ref]: ref.md\n';
    expect(relativeLinksOf(page)).toEqual([
      { line: 1, target: 'a.md#x' },
      { line: 1, target: 'b c.md' },
      { line: 1, target: 'i.png' },
      { line: 5, target: 'ref.md' },
    ]);
  });

  it('reports a missing file, a missing anchor and a link out of the repository, and passes live ones', () => {
    mkdirSync(join(scratch, 'docs'));
    writeFileSync(join(scratch, 'README.md'), '# Top\n[ok](docs/page.md#a-section) [self](#top) [gone](docs/gone.md) [bad anchor](docs/page.md#nowhere) [out](../x.md)\n');
    writeFileSync(join(scratch, 'docs/page.md'), '# Page\n## A section\n[back](../README.md#top)\n');
    expect(deadLinks(scratch, ['README.md', 'docs/page.md'])).toEqual([
      'README.md:2: docs/gone.md: no such file',
      'README.md:2: docs/page.md#nowhere: no heading makes #nowhere',
      'README.md:2: ../x.md: outside the repository',
    ]);
  });
});

describe('the documentation', () => {
  it('has the README and the user guide\'s pages', () => {
    for (const page of ['profiles-and-staging', 'findings-and-reports', 'readings', 'compare', 'load', 'benchmarks', 'library', 'CONTRIBUTING', 'ci']) {
      expect(PAGES, page).toContain(`docs/${page}.md`);
    }
  });

  it('has no dead link between its pages', () => {
    const links = PAGES.flatMap((p) => relativeLinksOf(readFileSync(join(REPO_ROOT, p), 'utf8')));
    // The README alone links every page of the guide: far more than this.
    expect(links.length).toBeGreaterThan(40);
    expect(deadLinks(REPO_ROOT, PAGES)).toEqual([]);
  });

  it('links every page of docs/ from the README or another page', () => {
    const linked = new Set(PAGES.flatMap((p) => relativeLinksOf(readFileSync(join(REPO_ROOT, p), 'utf8')).map((l) => join(p, '..', l.target.split('#')[0]!).split(sep).join('/'))));
    expect(PAGES.filter((p) => p !== 'README.md' && !linked.has(p))).toEqual([]);
  });

  it('keeps the README short, with a command table naming every command and nothing else', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(260);
    const rows = [...readme.matchAll(/^\| `pouchproof ([a-z][a-z0-9-]*)/gm)].map((m) => m[1]!);
    expect([...new Set(rows)].sort()).toEqual(Object.keys(COMMANDS).sort());
    expect(readme).toMatch(/^\| `pouchproof --version` \(`-V`\)/m);
  });
});

/**
 * What GitHub makes of a markdown page's links and headings, enough to tell a dead link from a live
 * one: the relative links outside code, and the anchors its headings get. The slug follows
 * github-slugger, which GitHub uses: the heading's text (formatting and link targets dropped), lower
 * case, every character but letters, marks, digits, `_`, `-` and spaces removed, each space a hyphen,
 * and a repeated slug suffixed `-1`, `-2`…
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface Link {
  readonly line: number;
  readonly target: string;
}

/** The page's lines with fenced code blocks blanked (kept as empty lines, so line numbers hold). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined && open) {
      fence = open[1]!;
      return '';
    }
    if (fence !== undefined) {
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = undefined;
      return '';
    }
    return line;
  });
}

/** Inline code is text, never a link: `[a](b)` inside backticks links nowhere. */
const withoutCodeSpans = (line: string): string => line.replace(/(`+)[\s\S]*?\1/g, '');

/** A heading's text as GitHub renders it: inline code keeps its text, links keep theirs, emphasis goes. */
function headingText(raw: string): string {
  return raw
    .replace(/\s+#+\s*$/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/(\*\*|__|\*)/g, '');
}

export function githubSlug(heading: string): string {
  return headingText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor of a page: its headings' slugs (repeats numbered), and any `id` or `name` an HTML tag gives. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(markdown)) {
    const h = /^ {0,3}#{1,6}\s+(.*)$/.exec(line);
    if (h) {
      const base = githubSlug(h[1]!.trim());
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<[a-z]+[^>]*\s(?:id|name)="([^"]+)"/gi)) anchors.add(m[1]!);
  }
  return anchors;
}

/** Links that point inside the repository: no scheme, not protocol-relative. */
const isRelative = (target: string): boolean => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('//');

/** Every relative link of a page, inline (`[text](target "title")`, images too) or by reference definition. */
export function relativeLinksOf(markdown: string): Link[] {
  const links: Link[] = [];
  proseLines(markdown).forEach((raw, i) => {
    const line = withoutCodeSpans(raw);
    const targets = [...line.matchAll(/\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!.replace(/^<|>$/g, ''));
    const def = /^ {0,3}\[[^\]]+\]:\s*(\S+)/.exec(line);
    if (def) targets.push(def[1]!.replace(/^<|>$/g, ''));
    for (const target of targets) if (isRelative(target)) links.push({ line: i + 1, target });
  });
  return links;
}

/**
 * The dead links among `pages` (paths relative to `root`), one line each: a target that is not a file
 * or folder of the repository, or an `#anchor` that no heading of its markdown page makes. Anchors into
 * other files (a source line, `#L10`) are GitHub's own and not checked.
 */
export function deadLinks(root: string, pages: readonly string[]): string[] {
  const dead: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (file: string): Set<string> => {
    if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(readFileSync(file, 'utf8')));
    return anchorCache.get(file)!;
  };
  for (const page of pages) {
    const from = join(root, page);
    for (const { line, target } of relativeLinksOf(readFileSync(from, 'utf8'))) {
      const [path = '', anchor] = target.split('#', 2);
      const to = path === '' ? from : resolve(dirname(from), decodeURIComponent(path));
      const where = `${page}:${line}: ${target}`;
      if (relative(root, to).startsWith('..')) dead.push(`${where}: outside the repository`);
      else if (!existsSync(to)) dead.push(`${where}: no such file`);
      else if (anchor !== undefined && to.endsWith('.md') && !anchors(to).has(decodeURIComponent(anchor))) dead.push(`${where}: no heading makes #${anchor}`);
    }
  }
  return dead;
}

/**
 * Shard files carried through a pod's stdout, so that `kubectl logs` collects them with no volume:
 * each file sits between a begin and an end line. Reading accepts the concatenated logs of many
 * pods, with or without `kubectl logs --prefix` (lines of a block carry its begin line's prefix).
 */
const MARK = '#### pouchproof-shard-file';

export interface ShardBlock {
  /** File name (shard.json, shard.hlog). */
  readonly name: string;
  /** Which shard wrote it (I/N), as its marker says. */
  readonly label: string;
  readonly content: string;
}

export class ShardMarkerError extends Error {}

const FILE_RE = /^[A-Za-z0-9_.-]+$/;

export function formatShardBlocks(label: string, files: Readonly<Record<string, string>>): string {
  let out = '';
  for (const [name, content] of Object.entries(files)) {
    if (!FILE_RE.test(name) || !/^\d+\/\d+$/.test(label)) throw new RangeError(`bad shard block ${label} ${name}`);
    out += `${MARK} begin ${label} ${name}\n${content.endsWith('\n') ? content : `${content}\n`}${MARK} end ${label} ${name}\n`;
  }
  return out;
}

/** Every complete block of `text` in order; a block left open (a truncated log) is an error. */
export function splitShardBlocks(text: string, what: string): ShardBlock[] {
  const open = new Map<string, { name: string; label: string; lines: string[] }>();
  const out: ShardBlock[] = [];
  const re = new RegExp(`${MARK} (begin|end) (\\d+/\\d+) ([A-Za-z0-9_.-]+)\\s*$`);
  for (const line of text.split(/\r?\n/)) {
    const m = re.exec(line);
    if (m) {
      const prefix = line.slice(0, m.index);
      const [, kind, label, name] = m;
      if (kind === 'begin') {
        const already = open.get(prefix);
        if (already) throw new ShardMarkerError(`${what}: ${already.label} ${already.name} has no end line before the next begin`);
        open.set(prefix, { name, label, lines: [] });
      } else {
        const b = open.get(prefix);
        if (!b || b.name !== name || b.label !== label) throw new ShardMarkerError(`${what}: an end line for ${label} ${name} without its begin line`);
        out.push({ name, label, content: b.lines.join('\n') + '\n' });
        open.delete(prefix);
      }
      continue;
    }
    for (const [prefix, b] of open) if (line.startsWith(prefix)) b.lines.push(line.slice(prefix.length));
  }
  const left = [...open.values()][0];
  if (left) throw new ShardMarkerError(`${what}: ${left.label} ${left.name} is cut off (no end line): was the log truncated?`);
  return out;
}

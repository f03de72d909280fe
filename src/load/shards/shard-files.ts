/**
 * Finding the shards a merge is given: a shard's report directory (shard.json + shard.hlog), a
 * directory of such directories, a shard.json (its shard.hlog beside it), or a file of collected
 * `kubectl logs` output with the files between markers.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readHdrLog } from './hdr-log.ts';
import { SHARD_HLOG, SHARD_JSON, parseShardRecord, type ShardRecord } from './shard-record.ts';
import { splitShardBlocks } from './shard-markers.ts';

export interface ShardInput {
  readonly record: ShardRecord;
  /** Histograms by tag, encoded. */
  readonly histograms: Readonly<Record<string, string>>;
  /** Where it came from, for messages. */
  readonly source: string;
}

export class ShardInputError extends Error {}

/** A directory holds at most this many entries worth looking into: a bound on a mistyped path (e.g. /). */
const MAX_ENTRIES = 10_000;

async function kind(p: string): Promise<'dir' | 'file' | 'none'> {
  const s = await stat(p).catch(() => undefined);
  return !s ? 'none' : s.isDirectory() ? 'dir' : 'file';
}

async function read(p: string): Promise<string> {
  return readFile(p, 'utf8').catch((e: Error) => Promise.reject(new ShardInputError(`cannot read ${p}: ${e.message}`)));
}

function input(json: string, hlog: string, jsonWhat: string, hlogWhat: string): ShardInput {
  return { record: parseShardRecord(json, jsonWhat), histograms: readHdrLog(hlog, hlogWhat), source: jsonWhat };
}

async function fromDir(dir: string): Promise<ShardInput[]> {
  if ((await kind(join(dir, SHARD_JSON))) === 'file') return [input(await read(join(dir, SHARD_JSON)), await read(join(dir, SHARD_HLOG)), join(dir, SHARD_JSON), join(dir, SHARD_HLOG))];
  const entries = (await readdir(dir, { withFileTypes: true })).slice(0, MAX_ENTRIES);
  const out: ShardInput[] = [];
  // `latest` points at one of the others: reading it too would count a shard twice.
  for (const e of entries.filter((x) => x.isDirectory() && x.name !== 'latest' && !x.name.startsWith('.')).sort((a, b) => a.name.localeCompare(b.name))) {
    const sub = join(dir, e.name);
    if ((await kind(join(sub, SHARD_JSON))) === 'file') out.push(...(await fromDir(sub)));
  }
  return out;
}

function fromLog(text: string, what: string): ShardInput[] {
  const blocks = splitShardBlocks(text, what);
  const out: ShardInput[] = [];
  for (const [i, b] of blocks.entries()) {
    if (b.name !== SHARD_JSON) continue;
    const h = blocks.slice(i + 1).find((x) => x.label === b.label && x.name === SHARD_HLOG);
    if (!h) throw new ShardInputError(`${what}: shard ${b.label} has ${SHARD_JSON} but no ${SHARD_HLOG}`);
    out.push(input(b.content, h.content, `${what} (shard ${b.label} ${SHARD_JSON})`, `${what} (shard ${b.label} ${SHARD_HLOG})`));
  }
  return out;
}

export async function collectShards(paths: readonly string[]): Promise<ShardInput[]> {
  if (paths.length === 0) throw new ShardInputError('name the shards to merge: report directories, shard.json files or a file of collected kubectl logs');
  const out: ShardInput[] = [];
  for (const p of paths) {
    const k = await kind(p);
    let found: ShardInput[];
    if (k === 'none') throw new ShardInputError(`${p} does not exist`);
    else if (k === 'dir') found = await fromDir(p);
    else if (basename(p) === SHARD_JSON) found = [input(await read(p), await read(join(dirname(p), SHARD_HLOG)), p, join(dirname(p), SHARD_HLOG))];
    else found = fromLog(await read(p), p);
    if (found.length === 0) throw new ShardInputError(`no shard found in ${p} (expected ${SHARD_JSON} and ${SHARD_HLOG}, or logs with pouchproof-shard-file markers)`);
    out.push(...found);
  }
  return out;
}

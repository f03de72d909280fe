/**
 * `npm run bench memory`: the peak resident memory of `pouchproof run` (the default suite, one
 * seed) in a process of its own, against (a) the reference served by `pouchproof serve` in another
 * process and (b) a server whose every answer is garbage (test/cli/serve-misbehaving.ts). Target
 * (issue 32 item 6): at most 400 MiB for both. The peak is the run's own
 * process.resourceUsage().maxRSS, written on exit by bench/report-usage.cjs with its CPU time. The run goes
 * from the sources (tsx's loader thread included), as the tests run it; each target is measured
 * again with V8's default heap growth (src/cli/heap.ts bounds it). Prints figures; never fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { HEAP_GROWING_PERCENT } from '../src/cli/heap.ts';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/pouchproof.js');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const SEED = Number(process.env.BENCH_SEED ?? 5);
const TARGET_MIB = 400;

/** A server in a child process, ready once `ready` matches a line of its output; the match is returned with it. */
async function serverChild(cmd: string, args: readonly string[], ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, POUCHPROOF_FROM_SOURCE: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const m = ready.exec(line);
    if (m) {
      // Its later output is not read: keep the pipe flowing so that it never blocks on it.
      child.stdout!.resume();
      return { child, match: m };
    }
  }
  throw new Error(`${cmd} ${args.join(' ')} ended before it was ready`);
}

interface Measured {
  readonly peakMiB: number;
  readonly seconds: number;
  /** The run's own CPU time, user and system: what a tighter heap costs in collections. */
  readonly cpuSeconds: number;
  readonly code: number | null;
  readonly summary: string;
}

/** node's own option that leaves V8's heap growth at its default (src/cli/heap.ts then sets no bound): the figures before the bound, beside it. */
const V8_DEFAULT_GROWTH = '--heap-growing-percent=0';

/** One `pouchproof run` against `profile`, in a child whose peak RSS it reports (`v8Default`: with V8's own heap growth). */
async function measuredRun(profile: string, dir: string, v8Default = false): Promise<Measured> {
  const usageFile = join(dir, `usage-${Date.now()}`);
  const heap = v8Default ? [V8_DEFAULT_GROWTH] : [];
  const args = [...heap, '--require', join(ROOT, 'bench/report-usage.cjs'), BIN, 'run', '--profile', profile, '--seed', String(SEED), '--report-dir', join(dir, 'reports')];
  const started = performance.now();
  const env = { ...process.env, NO_COLOR: '1', POUCHPROOF_FROM_SOURCE: '1', POUCHPROOF_EXAMPLES: 'off', POUCHPROOF_USAGE_FILE: usageFile };
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const usage = JSON.parse(await readFile(usageFile, 'utf8')) as { maxRSS: number; userCPUTime: number; systemCPUTime: number };
  const summary = out.split('\n').find((l) => / properties: \d+ passed/.test(l)) ?? out.trim().split('\n').at(-1) ?? '';
  return { peakMiB: usage.maxRSS / 1024, seconds: (performance.now() - started) / 1000, cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6, code, summary };
}

function print(label: string, m: Measured): void {
  console.log(`  ${label.padEnd(34)} peak RSS ${m.peakMiB.toFixed(0).padStart(5)} MiB (target ≤ ${TARGET_MIB})   ${m.seconds.toFixed(0)} s, ${m.cpuSeconds.toFixed(1)} s of CPU   exit ${m.code}`);
  console.log(`    ${m.summary.slice(0, 160)}`);
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'pouchproof-bench-memory-'));
  const refProfile = join(dir, 'reference.json');
  const ref = await serverChild(process.execPath, [BIN, 'serve', '--port', '0', '--profile-out', refProfile], /^profile written to /);
  try {
    console.log(`default suite, seed ${SEED}, \`pouchproof run\` in a child process of its own; heap bound --heap-growing-percent=${HEAP_GROWING_PERCENT} (src/cli/heap.ts), or V8's default growth where said`);
    print('(a) the reference (`serve`)', await measuredRun(refProfile, dir));
    print("(a) the same, V8's default growth", await measuredRun(refProfile, dir, true));
    const junk = await serverChild(TSX, [join(ROOT, 'test/cli/serve-misbehaving.ts'), 'garbage'], /^(http:\/\/\S+)$/);
    try {
      const profile = join(dir, 'garbage.json');
      const base = JSON.parse(await readFile(refProfile, 'utf8')) as Record<string, unknown>;
      await writeFile(profile, JSON.stringify({ ...base, name: 'garbage', baseUrl: junk.match[1] }), { mode: 0o600 });
      print('(b) every answer garbage', await measuredRun(profile, dir));
      print("(b) the same, V8's default growth", await measuredRun(profile, dir, true));
    } finally {
      junk.child.kill('SIGTERM');
    }
  } finally {
    ref.child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * One pouchproof run against one build of the independent server, in its own process: the findings
 * counted by kind. Shared by score.ts and correct.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { run } from '../../src/api/run.ts';
import { parseProfile } from '../../src/target/profile.ts';

export interface Finding {
  readonly property: string;
  readonly kind: string;
  readonly message: string;
}

export interface Outcome {
  readonly bugs: readonly string[];
  readonly exitCode: number;
  readonly counts: Readonly<Record<string, number>>;
  readonly findings: readonly Finding[];
  readonly seconds: number;
}

/**
 * Findings pouchproof raises against the correct build although the server follows the spec's words
 * (correct.test.ts says why); a bug is not counted as caught by them.
 */
export const FALSE_ALARMS: readonly { readonly property: string; readonly case: string }[] = [];

export function isFalseAlarm(f: Finding): boolean {
  return FALSE_ALARMS.some((x) => f.property === x.property && f.message.includes(x.case));
}

/** A finding that fails a run (exit 1): what counts as catching a bug. A crash is one: the target went down under a request. */
export function isFailing(f: Finding): boolean {
  return f.kind === 'violation' || f.kind === 'server-error' || f.kind === 'crash';
}

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

/** Starts main.ts with `bugs` and resolves its first stdout line. */
async function spawnServer(bugs: readonly string[]): Promise<{ child: ChildProcess; url: string; profile: unknown }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, bugs.join(',')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([
    once(lines, 'line').then(([l]) => String(l)),
    once(child, 'exit').then(([code]) => Promise.reject(new Error(`the server exited (${String(code)}) before listening`))),
  ]);
  const { url, profile } = JSON.parse(first) as { url: string; profile: unknown };
  return { child, url, profile };
}

interface ReportLike {
  exitCode: number;
  properties: { id: string; findings?: { kind: string; message?: string }[] }[];
}

function findingsOf(report: ReportLike): Finding[] {
  return report.properties.flatMap((p) => (p.findings ?? []).map((f) => ({ property: p.id, kind: f.kind, message: (f.message ?? '').slice(0, 400) })));
}

export interface RunOnceOptions {
  readonly seed: number;
  readonly maxDurationMs: number;
  readonly only?: readonly string[];
}

export async function runOnce(bugs: readonly string[], opts: RunOnceOptions): Promise<Outcome> {
  const started = Date.now();
  const { child, profile } = await spawnServer(bugs);
  try {
    // The run's own budget, and a hard stop a little after it in case the target holds requests.
    const signal = AbortSignal.timeout(opts.maxDurationMs + 30_000);
    const report = (await run({
      profile: parseProfile(profile),
      seed: opts.seed,
      maxDurationMs: opts.maxDurationMs,
      signal,
      ...(opts.only ? { only: [...opts.only] } : {}),
    })) as unknown as ReportLike;
    const findings = findingsOf(report);
    const counts: Record<string, number> = {};
    for (const f of findings) counts[f.kind] = (counts[f.kind] ?? 0) + 1;
    return { bugs, exitCode: report.exitCode, counts, findings, seconds: Math.round((Date.now() - started) / 1000) };
  } finally {
    child.kill('SIGKILL');
  }
}

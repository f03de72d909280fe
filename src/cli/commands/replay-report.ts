/**
 * `pouchproof replay --report DIR/report.json`: every finding of a report that carries a replay token,
 * replayed against the target given (or the embedded reference, as `replay` decides), one line each:
 * still failing, now passing, no longer fits (nothing sent), or could not be judged here. Exit 1 when
 * one still fails, 2 when one could not be judged or no longer fits, else 0.
 */
import { readFile } from 'node:fs/promises';
import { isFailing, replayToken, readReplayToken, type ExampleVerdict } from '../../check/run/index.ts';
import { exampleLine } from '../../report/examples.ts';
import { loadAllProperties, requireReachable } from '../../session/index.ts';
import { parsePositive, targetFromArgs } from '../args.ts';
import type { TargetFlags } from '../ci.ts';
import { UsageError } from '../command.ts';
import { errorCode, errorMessage, isRecord } from '../../spec/index.ts';

interface Flags extends TargetFlags {
  readonly assume?: readonly string[] | undefined;
  readonly 'per-request-ms'?: number | undefined;
}

/** The replay tokens of a report's findings, each once, with the property each names. */
export async function reportTokens(path: string): Promise<{ property: string; replay: string }[]> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`--report ${path}: cannot read a report.json there (${errorCode(e) ?? errorMessage(e)})`);
  }
  if (!isRecord(doc) || doc.schema === undefined || !Array.isArray(doc.properties)) throw new UsageError(`--report ${path}: not a pouchproof report.json`);
  const seen = new Map<string, string>();
  for (const p of doc.properties.filter(isRecord)) {
    const findings = Array.isArray(p.findings) ? p.findings.filter(isRecord) : [];
    for (const f of findings) if (typeof f.replay === 'string' && typeof f.property === 'string' && !seen.has(f.replay)) seen.set(f.replay, f.property);
  }
  return [...seen].map(([replay, property]) => ({ property, replay }));
}

export async function replayReport(path: string, argv: Flags): Promise<number> {
  const tokens = await reportTokens(path);
  const perRequestMs = parsePositive('per-request-ms', argv['per-request-ms'], undefined, 600_000);
  const all = await loadAllProperties();
  const target = await targetFromArgs('replay', argv);
  const verdicts: ExampleVerdict[] = [];
  try {
    await requireReachable(target);
    process.stdout.write(`replaying ${tokens.length} finding(s) of ${path} against ${target.profile.baseUrl}\n`);
    for (const { property, replay } of tokens) {
      const line = (verdict: ExampleVerdict, message: string) => {
        verdicts.push(verdict);
        process.stdout.write(`${exampleLine({ property, replay, verdict, message }).replace(/^stored case/, 'finding')}\n`);
      };
      const prop = all.find((p) => p.id === property);
      if (!prop) {
        line('no-longer-fits', `this version of pouchproof has no property ${property}`);
        continue;
      }
      const read = readReplayToken(replay);
      if ('why' in read) {
        line('no-longer-fits', read.why);
        continue;
      }
      const r = await replayToken(target.profile, prop, read.token, { ...(perRequestMs !== undefined ? { perRequestMs } : {}), embedded: target.embedded });
      if (!r.fits) line('no-longer-fits', r.why);
      else {
        const failing = r.result.findings.find((f) => isFailing(f.kind));
        if (failing) line('still-failing', `${failing.kind}: ${failing.message}`);
        else if (r.result.status === 'passed') line('now-passing', '');
        else line('not-judged', r.result.inconclusive ?? r.result.findings[0]?.message ?? r.result.status);
      }
    }
  } finally {
    await target.close();
  }
  const count = (v: ExampleVerdict) => verdicts.filter((x) => x === v).length;
  process.stdout.write(`${count('still-failing')} still failing, ${count('now-passing')} now passing, ${count('no-longer-fits')} no longer fit${count('not-judged') ? `, ${count('not-judged')} could not be judged here` : ''}\n`);
  return count('still-failing') ? 1 : count('no-longer-fits') || count('not-judged') ? 2 : 0;
}

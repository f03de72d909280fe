/**
 * The command line's spellings of the session's options: each flag's text turned into its value,
 * then checked by the session's own rules (src/session/values.ts), so a flag and the library's
 * option say the same thing when they are wrong.
 */
import { parseDuration } from '../load/index.ts';
import { type ReadingsMode, errorMessage } from '../spec/index.ts';
import { parseNemesis } from '../target/nemesis/index.ts';
import { checkTargetFlags, type TargetFlags } from './ci.ts';
import { checkExamplesDir, checkFailOn, checkGlobs, checkMaxDuration, checkReportFormats, checkPositive, checkRate, checkSeed, DEFAULT_EXAMPLES_DIR, DEFAULT_MAX_DURATION_MS, drawSeed, openTarget, UsageError, type ReadyTarget } from '../session/index.ts';

/**
 * The number a flag's text spells, or NaN. yargs' own `type: 'number'` reads an empty text as 0, so a
 * `--seed "$SEED"` whose variable is empty would run seed 0 unseen; an empty text is no number here.
 */
export function numberOf(v: unknown): number {
  return typeof v === 'number' ? v : String(v).trim() === '' ? NaN : Number(v);
}

/**
 * A numeric flag's declaration, the same in every command: its value must follow it, and the handler
 * reads a number (NaN for a text that spells none), which the session's bounds then check, so the flag
 * and the library's option fail with one message.
 */
export const numberOption = (describe: string) => ({ requiresArg: true, coerce: numberOf, describe: `${describe} [number]` }) as const;

export function parseSeed(v: number | undefined): number {
  return v === undefined ? drawSeed() : checkSeed(v, `--seed`);
}

export function parsePositive(name: string, v: number | undefined, fallback: number, max?: number): number;
export function parsePositive(name: string, v: number | undefined, fallback: number | undefined, max?: number): number | undefined;
export function parsePositive(name: string, v: number | undefined, fallback: number | undefined, max = 1_000_000): number | undefined {
  return v === undefined ? fallback : checkPositive(name, v, max);
}

export function parseOnly(v: readonly string[] | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const list = v.flatMap((x) => x.split(',')).map((s) => s.trim()).filter(Boolean);
  return list.length ? list : undefined;
}

/** `--exclude` globs (repeatable or comma-separated), spelt as `--only`'s. */
export function parseExclude(v: readonly string[] | undefined): string[] | undefined {
  const list = parseOnly(v);
  return list ? checkGlobs('exclude', list) : undefined;
}

/**
 * `--examples DIR`, or `--no-examples` (yargs reads it as `false`): the example database's directory,
 * or none. Without either, `POUCHPROOF_EXAMPLES` (a directory, or `off`), else `.pouchproof/examples`.
 */
export function parseExamples(v: string | boolean | undefined, env: string | undefined = process.env.POUCHPROOF_EXAMPLES): string | undefined {
  if (v === false) return undefined;
  if (v !== undefined && v !== true) return checkExamplesDir(v);
  if (env === undefined || env === '') return DEFAULT_EXAMPLES_DIR;
  return env === 'off' ? undefined : env;
}

/** `--max-duration` as the load command's durations are written (30s, 500ms, 2m). */
export function parseMaxDuration(v: string | undefined): number {
  if (v === undefined) return DEFAULT_MAX_DURATION_MS;
  let ms: number;
  try {
    ms = parseDuration(v);
  } catch (e) {
    throw new UsageError(`--max-duration: ${errorMessage(e)}`);
  }
  return checkMaxDuration(ms, v);
}

/** `--rate-limit 50/s` (or `50`): requests per second. */
export function parseRate(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const text = v.trim();
  const m = /^(\d+(?:\.\d+)?)\s*(?:\/\s*s)?$/.exec(text);
  return checkRate(m ? Number(m[1]) : NaN, text);
}

/** `--nemesis SPEC`: checked here, before anything is sent, so a typo ends the command with exit 4. */
export function parseNemesisFlag(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  try {
    parseNemesis(v);
  } catch (e) {
    throw new UsageError(`--nemesis: ${errorMessage(e)}`);
  }
  return v;
}

/** `--fail-on KIND` (repeatable, or comma-separated): kinds of finding that also fail the run. */
export function parseFailOn(v: readonly string[] | undefined) {
  if (v === undefined) return undefined;
  const words = v.flatMap((x) => x.split(',')).map((s) => s.trim()).filter(Boolean);
  return checkFailOn(words, v.join(','));
}

/** `--report json,junit` (repeatable, or comma-separated): the report formats to write; absent, all. */
export function parseReportFormats(v: readonly string[] | undefined) {
  if (v === undefined) return undefined;
  const words = v.flatMap((x) => x.split(',')).map((s) => s.trim()).filter(Boolean);
  return checkReportFormats(words, v.join(','));
}

/** `--assume` words: `auto`, `defaults`, and NAME=VALUE (repeatable, or comma-separated). */
export function parseAssumeMode(values: readonly string[] | undefined, fallback: ReadingsMode): ReadingsMode {
  const words = (values ?? []).flatMap((v) => String(v).split(',')).map((w) => w.trim());
  if (words.includes('auto') && words.includes('defaults')) throw new UsageError('--assume: give auto or defaults, not both');
  return words.includes('auto') ? 'auto' : words.includes('defaults') ? 'defaults' : fallback;
}

/** `--assume NAME=VALUE` (repeatable, or comma-separated) into an override record (`auto` and `defaults` are modes, not readings). */
export function parseAssume(values: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of (values ?? []).flatMap((v) => String(v).split(','))) {
    const item = raw.trim();
    if (item === '' || item === 'auto' || item === 'defaults') continue;
    const eq = item.indexOf('=');
    if (eq <= 0 || eq === item.length - 1) throw new UsageError(`--assume expects NAME=VALUE, got "${item}"`);
    out[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return out;
}

/** `--profile`, `--target` or the embedded reference (refused under CI unless named: ci.ts), with `--assume` applied. */
export function targetFromArgs(command: string, argv: TargetFlags & { readonly assume?: readonly string[] | undefined }): Promise<ReadyTarget> {
  checkTargetFlags(command, argv);
  return openTarget({
    ...(argv.profile !== undefined ? { profile: argv.profile } : {}),
    ...(argv.target !== undefined ? { target: argv.target } : {}),
    assume: parseAssume(argv.assume),
  });
}

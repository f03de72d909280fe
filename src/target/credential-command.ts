/**
 * Credentials from a command: a header value a profile names as
 * `{ "command": ["vault", "read", "-field=token", "secret/staging"], "prefix": "Bearer ", "refreshOn": [401] }`.
 * The command runs (no shell, in the profile's directory, under a time bound) when the profile
 * loads, and again when a request that carried its value is answered with one of `refreshOn`: a
 * staging token that lives 15 minutes then outlives a long run (AWS's credential_process,
 * kubectl's exec plugins). Every value it prints is a secret of the profile from then on, so the
 * masking of reports, HAR files and console lines covers the values a refresh brings too. Failures
 * name the field and the command, never its output.
 */
import { execFile, execFileSync } from 'node:child_process';
import { redact } from './redact.ts';
import { SecretRefError, type SecretSource } from './secret-ref.ts';

/** A header value from a command, as the profile file gives it. */
export interface CommandRef {
  readonly command: readonly string[];
  /** Statuses that make it run again, and the request go once more; none: it runs once, at load. */
  readonly refreshOn?: readonly number[];
  /** Put before the printed value: `"Bearer "` when the command prints a bare token. */
  readonly prefix?: string;
  readonly timeoutMs?: number;
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;
/** Far above any token; a command that prints more is not printing a credential. */
const MAX_OUTPUT_BYTES = 64 * 1024;
/** Bytes undici (and RFC 9110) accept in a field value: HTAB, visible ASCII, space, obs-text. */
export const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

export function isCommandRef(ref: unknown): ref is CommandRef {
  return typeof ref === 'object' && ref !== null && 'command' in ref;
}

/** What a run of the command left: its standard output, or how it failed. */
interface Ran {
  readonly stdout?: string;
  readonly error?: { readonly code?: unknown; readonly status?: unknown; readonly signal?: unknown; readonly killed?: unknown; readonly stderr?: unknown };
}

export class CommandCredential {
  readonly refreshOn: ReadonlySet<number>;
  private current: string;
  private readonly issued = new Set<string>();
  private pending: Promise<void> | undefined;
  /** Why the last refresh failed (the run goes on with the value it had). */
  lastFailure: string | undefined;

  /**
   * Runs the command now, synchronously (a profile loads before anything is sent); `onValue`
   * receives every value it yields, this one and each refresh's, before any request carries it.
   */
  constructor(
    /** The profile field that holds the reference, `accounts.primary.browser.headers.authorization`. */
    readonly field: string,
    /** The header it fills, lower case. */
    readonly header: string,
    private readonly ref: CommandRef,
    private readonly src: SecretSource,
    private readonly onValue: (value: string) => void,
  ) {
    this.refreshOn = new Set(ref.refreshOn ?? []);
    this.current = '';
    this.current = this.accept(runSync(ref, src));
    if (this.lastFailure !== undefined) throw new SecretRefError(field, this.lastFailure);
  }

  /** The header value to send now. */
  get value(): string {
    return this.current;
  }

  /** Whether `v` is a value this command gave (the current one or an earlier one). */
  gave(v: string | undefined): boolean {
    return v !== undefined && this.issued.has(v);
  }

  /**
   * Runs the command again for a request that carried `seen`, unless a refresh since already
   * replaced it; requests that meet the same refusal together share one run. True when the current
   * value is newer than `seen`.
   */
  async refresh(seen: string): Promise<boolean> {
    if (seen !== this.current) return true;
    this.pending ??= runAsync(this.ref, this.src)
      .then((ran) => {
        this.lastFailure = undefined;
        this.current = this.accept(ran);
      })
      .finally(() => {
        this.pending = undefined;
      });
    await this.pending;
    return this.lastFailure === undefined && seen !== this.current;
  }

  /** The value a run yields, or the current one with `lastFailure` set. */
  private accept(ran: Ran): string {
    const problem = problemOf(this.ref, ran, [...this.issued]);
    if (problem !== undefined) {
      this.lastFailure = problem;
      return this.current;
    }
    const value = (this.ref.prefix ?? '') + (ran.stdout ?? '').trim();
    this.onValue(value);
    this.issued.add(value);
    return value;
  }
}

const commandName = (ref: CommandRef): string => JSON.stringify(ref.command[0] ?? '');

/** Why a run yields no usable value, in one line without its output; undefined when it does. */
function problemOf(ref: CommandRef, ran: Ran, known: readonly string[]): string | undefined {
  const name = `command ${commandName(ref)}`;
  const e = ran.error;
  if (e) {
    const why = lastLine(e.stderr, known);
    if (e.code === 'ENOENT') return `${name} not found (ENOENT)`;
    if (e.code === 'EACCES') return `${name} cannot be run (EACCES)`;
    if (e.code === 'ETIMEDOUT' || e.killed === true) return `${name} did not finish within ${ref.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS} ms`;
    if (e.code === 'ENOBUFS' || e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return `${name} printed more than ${MAX_OUTPUT_BYTES} bytes: not a credential`;
    const status = typeof e.status === 'number' ? e.status : typeof e.code === 'number' ? e.code : undefined;
    if (status !== undefined) return `${name} exited with status ${status}${why ? `: ${why}` : ''}`;
    if (typeof e.signal === 'string') return `${name} was ended by ${e.signal}`;
    return `${name} failed${typeof e.code === 'string' ? ` (${e.code})` : ''}${why ? `: ${why}` : ''}`;
  }
  const out = (ran.stdout ?? '').trim();
  if (out === '') return `${name} printed nothing on its standard output`;
  if (BAD_HEADER_VALUE.test(out)) return `${name} printed more than one line, a control character or a character beyond U+00FF: a header value is one line`;
  return undefined;
}

/** The last line the command wrote on its standard error, short, with every known value masked. */
function lastLine(stderr: unknown, known: readonly string[]): string {
  const text = Buffer.isBuffer(stderr) ? stderr.toString('utf8') : typeof stderr === 'string' ? stderr : '';
  const line = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).pop() ?? '';
  const cut = line.length > 200 ? `${line.slice(0, 200)}…` : line;
  return redact(cut, known);
}

function options(ref: CommandRef, src: SecretSource) {
  return { cwd: src.baseDir, env: src.env, timeout: ref.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS, maxBuffer: MAX_OUTPUT_BYTES, encoding: 'utf8' as const, windowsHide: true };
}

function runSync(ref: CommandRef, src: SecretSource): Ran {
  try {
    return { stdout: execFileSync(ref.command[0], ref.command.slice(1), { ...options(ref, src), stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (e) {
    // execFileSync throws an Error with the child's status and output
    return { error: e as NonNullable<Ran['error']> };
  }
}

function runAsync(ref: CommandRef, src: SecretSource): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(ref.command[0], ref.command.slice(1), options(ref, src), (error, stdout, stderr) => {
      resolve(error ? { error: { code: error.code, signal: error.signal, killed: error.killed, stderr } } : { stdout });
    });
    child.stdin?.end();
  });
}

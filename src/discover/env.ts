/**
 * The door every probe talks to the target through: a bound on requests in flight (the profile's
 * `connections`), a per-request time bound, a deadline for the whole discovery, and one evidence
 * line per exchange (what was sent, what came back, secrets masked). Probes never throw at the
 * target's behaviour: a request past the deadline throws `OutOfTime`, which the runner turns into
 * an `unknown` result.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ENDPOINT_BY_ID, type MemberKind } from '../spec/index.ts';
import type { CallOptions, Exchange, TargetClient } from '../target/client.ts';
import type { Identity, Profile } from '../target/profile.ts';
import { redact } from '../target/redact.ts';
import { isRecord, isRefusal, unexpected } from '../check/judge/judge.ts';

export class OutOfTime extends Error {
  constructor() {
    super('discovery ran out of time before this probe finished');
    this.name = 'OutOfTime';
  }
}

/** At most `n` tasks at once. */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly n: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.n) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

/** How a plain request was answered: served, refused (4xx), or nothing to conclude from (5xx, 429, no answer, a 2xx breaking the envelope). */
export type Answer = 'accepted' | 'refused' | 'inconclusive';

export function answerOf(ex: Exchange): Answer {
  if (unexpected(ex)) return 'inconclusive';
  if (isRefusal(ex)) return 'refused';
  return ex.verdict === 'accepted' ? 'accepted' : 'inconclusive';
}

const SNIPPET = 100;

/** What came back, short: status and the start of the body, or why nothing came. */
export function shortAnswer(ex: Exchange): string {
  if (!ex.response) return `no response (${ex.reason})`;
  const body = ex.response.body.replace(/\s+/g, ' ').trim();
  const shown = body.length > SNIPPET ? `${body.slice(0, SNIPPET)}…` : body;
  const broken = ex.verdict === 'protocol-error' ? ` [${ex.reason}]` : '';
  return `HTTP ${ex.response.status}${shown ? ` ${shown}` : ''}${broken}`;
}

export interface DiscoveryEnvOptions {
  readonly profile: Profile;
  readonly client: TargetClient;
  /** Per-request time bound (capped by the profile's own). */
  readonly requestTimeoutMs: number;
  /** Wall-clock bound of the whole discovery. */
  readonly deadline: number;
}

/** Shared state of one discovery: the limiter, counters, and what earlier probes settled. */
export class DiscoveryEnv {
  readonly profile: Profile;
  readonly client: TargetClient;
  requests = 0;
  private readonly limiter: Limiter;

  constructor(private readonly o: DiscoveryEnvOptions) {
    this.profile = o.profile;
    this.client = o.client;
    this.limiter = new Limiter(Math.max(1, o.profile.caseConcurrency));
  }

  identity(kind: MemberKind, account: 'primary' | 'secondary' = 'primary'): Identity | undefined {
    return this.profile.accounts[account]?.[kind];
  }

  /** A device that can sign: credentials, device id and private key. */
  signer(account: 'primary' | 'secondary' = 'primary'): (Identity & { deviceId: string; privateKey: NonNullable<Identity['privateKey']> }) | undefined {
    const d = this.identity('device', account);
    const deviceId = d?.deviceId;
    const privateKey = d?.privateKey;
    return d && deviceId && privateKey ? { ...d, deviceId, privateKey } : undefined;
  }

  remainingMs(): number {
    return this.o.deadline - Date.now();
  }

  async send(o: CallOptions): Promise<Exchange> {
    return this.limiter.run(async () => {
      const left = this.remainingMs();
      if (left <= 0) throw new OutOfTime();
      this.requests++;
      const timeoutMs = Math.max(1, Math.min(o.timeoutMs ?? this.o.requestTimeoutMs, this.profile.timeouts.requestMs, left));
      return this.client.call({ ...o, timeoutMs });
    });
  }

  uuid(): string {
    return randomUUID();
  }

  sourceId(): string {
    return randomBytes(16).toString('hex');
  }

  redact(s: string): string {
    return redact(s, this.profile.secrets);
  }
}

/** One probe's view: sends through the env and keeps one evidence line per exchange. */
export class Scope {
  readonly evidence: string[] = [];
  constructor(readonly env: DiscoveryEnv) {}

  /** Sends `o`; `what` says in a few words what the request was (it leads the evidence line). */
  async send(what: string, o: CallOptions): Promise<Exchange> {
    const ex = await this.env.send(o);
    const e = ENDPOINT_BY_ID[o.endpoint];
    const path = pathOf(ex.request.url);
    this.evidence.push(this.env.redact(`${what}: ${e.method} ${path} → ${shortAnswer(ex)}`));
    return ex;
  }

  /** A line of reasoning (not an exchange), e.g. what an earlier probe settled. */
  note(line: string): void {
    this.evidence.push(this.env.redact(line));
  }
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** `data.<field>` of an accepted answer when it is an integer. */
export function integerIn(ex: Exchange, field: string): number | undefined {
  const json = ex.response?.json;
  const data = isRecord(json) && isRecord(json.data) ? json.data : undefined;
  const v = data?.[field];
  return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
}

/**
 * The nemesis: an in-process TCP proxy on loopback between pouchproof's own connections and the
 * target. It reads each request's HTTP/1 framing (the head, then `content-length` bytes) so its faults
 * land on request boundaries, and injects them only into pouchproof's side of the wire: safe against
 * any target, a remote one included. Every decision is drawn from the run's seed and the request's tag
 * (the `x-pouchproof-nemesis` header the client adds, stripped before the target sees it), so a run
 * is reproducible request by request.
 */
import net from 'node:net';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import { draw } from './draw.ts';
import { partitionEnd, type NemesisFault, type NemesisPlan } from './grammar.ts';
import { NemesisConnection, type Decision, type NemesisHost } from './connection.ts';

import { NEMESIS_TAG_HEADER } from './connection.ts';

export { NEMESIS_TAG_HEADER };

/** The tag of a copy sent again after no answer by a sender that tags nothing else (the load engine's). */
export const NEMESIS_RETRY_TAG = 'retry';

/** The header line that marks such a copy. */
export const NEMESIS_RETRY_LINE = `${NEMESIS_TAG_HEADER}: ${NEMESIS_RETRY_TAG}\r\n`;

/** One fault injected into one request (or one connection, for a partition that refused it). */
export interface NemesisEvent {
  readonly fault: NemesisFault;
  readonly detail: string;
}

/** Where the nemesis connects: the target's host and port, with TLS when the target is https. */
export interface Upstream {
  readonly host: string;
  readonly port: number;
  readonly tls?: tls.ConnectionOptions;
}

export type NemesisCounts = Readonly<Record<NemesisFault, number>>;

/** A duplicate's copy is given this long to be answered before its connection is dropped. */
const DUPLICATE_WAIT_MS = 5_000;

export class Nemesis implements NemesisHost {
  readonly ready: Promise<number>;
  private readonly server: net.Server;
  private readonly startedAt = performance.now();
  private readonly events = new Map<string, NemesisEvent[]>();
  private readonly counts: Record<NemesisFault, number> = { 'lose-response': 0, 'reset-mid-request': 0, duplicate: 0, delay: 0, partition: 0 };
  private readonly open = new Set<net.Socket>();
  private untagged = 0;
  private refusals: number[] = [];
  requests = 0;
  /** Requests tagged `retry` (the load engine's copies sent again after no answer). */
  retries = 0;

  constructor(
    readonly plan: NemesisPlan,
    readonly seed: number,
    private readonly upstream: Upstream,
  ) {
    this.server = net.createServer((s) => this.accept(s));
    this.ready = new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => {
        const address = this.server.address();
        // A TCP listener has an AddressInfo; a string is a pipe's path, null a closed server.
        if (address === null || typeof address === 'string') reject(new Error('nemesis proxy: not listening on a TCP port'));
        else resolve(address.port);
      });
    });
  }

  /** The faults injected into the request tagged `tag` so far (taken: asked once per exchange). */
  take(tag: string): readonly NemesisEvent[] {
    const e = this.events.get(tag) ?? [];
    this.events.delete(tag);
    return e;
  }

  /** Whether a connection was refused (a partition) between two performance.now() times. */
  refusedBetween(from: number, to: number): boolean {
    return this.refusals.some((t) => t >= from && t <= to);
  }

  stats(): { readonly requests: number; readonly retries: number; readonly counts: NemesisCounts } {
    return { requests: this.requests, retries: this.retries, counts: { ...this.counts } };
  }

  /** ms since the nemesis started: the partitions' clock. */
  elapsed(): number {
    return performance.now() - this.startedAt;
  }

  /** Waits out the partition window `now` falls in, if any; true when it waited. */
  async partitionWait(): Promise<boolean> {
    const end = partitionEnd(this.plan, this.elapsed());
    if (end === undefined) return false;
    await new Promise((r) => setTimeout(r, end - this.elapsed()));
    return true;
  }

  /** What the nemesis does to the request tagged `tag` (untagged requests, e.g. the load engine's, are numbered in arrival order). */
  decide(tag: string | undefined): Decision {
    this.requests++;
    // The load engine tags only its retries: they draw from the arrival order, as its first copies do.
    if (tag === NEMESIS_RETRY_TAG) this.retries++;
    const key = tag === undefined || tag === NEMESIS_RETRY_TAG ? `u${this.untagged++}` : tag;
    // A stable tag comes again when its case does (a shrink re-runs it): what a late fault noted for its last use is not this request's.
    this.events.delete(key);
    const p = this.plan;
    const u = draw(this.seed, key, 'fault');
    const fault = u < p.resetMidRequest ? 'reset-mid-request' : u < p.resetMidRequest + p.loseResponse ? 'lose-response' : u < p.resetMidRequest + p.loseResponse + p.duplicate ? 'duplicate' : undefined;
    const d = p.delay;
    const delayMs = d && draw(this.seed, key, 'delay') < d.rate ? Math.round(d.minMs + draw(this.seed, key, 'delay-ms') * (d.maxMs - d.minMs)) : 0;
    return { key, ...(fault ? { fault } : {}), delayMs, cut: draw(this.seed, key, 'cut') };
  }

  note(key: string, fault: NemesisFault, detail: string): void {
    this.counts[fault]++;
    const list = this.events.get(key) ?? [];
    list.push({ fault, detail });
    this.events.set(key, list);
  }

  /** A connection to the target. */
  dial(): net.Socket {
    const u = this.upstream;
    const s = u.tls ? tls.connect({ ...u.tls, host: u.host, port: u.port }) : net.connect(u.port, u.host);
    this.track(s);
    return s;
  }

  /** Delivers a copy of a request on a connection of its own, as a retransmitting proxy does; resolves once it is answered (or given up). */
  async sendCopy(bytes: Buffer): Promise<void> {
    const s = this.dial();
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => s.destroy(), DUPLICATE_WAIT_MS);
      s.on('data', () => undefined);
      s.on('error', () => undefined);
      s.once('close', () => {
        clearTimeout(t);
        resolve();
      });
      s.write(bytes);
    });
  }

  async close(): Promise<void> {
    for (const s of this.open) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private track(s: net.Socket): void {
    this.open.add(s);
    s.once('close', () => this.open.delete(s));
  }

  private accept(client: net.Socket): void {
    this.track(client);
    if (partitionEnd(this.plan, this.elapsed()) !== undefined) {
      // A partition: new connections are refused (reset at once, before a byte of a request is read).
      this.counts.partition++;
      this.refusals.push(performance.now());
      if (this.refusals.length > 10_000) this.refusals = this.refusals.slice(-1000);
      client.resetAndDestroy();
      return;
    }
    new NemesisConnection(this, client, this.dial());
  }
}

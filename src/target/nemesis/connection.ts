/**
 * One client connection through the nemesis: requests are read whole (head, then `content-length`
 * bytes), the fault drawn for each is applied, and the answer is passed back untouched unless the
 * fault drops it. A request whose framing the nemesis cannot follow (chunked, a head past 64 KiB)
 * turns the connection into a plain pipe: nothing is injected there rather than something misplaced.
 */
import type net from 'node:net';
import type { NemesisFault } from './grammar.ts';

/** What a connection asks of the nemesis it runs under (proxy.ts `Nemesis`). */
export interface NemesisHost {
  decide(tag: string | undefined): Decision;
  note(key: string, fault: NemesisFault, detail: string): void;
  partitionWait(): Promise<boolean>;
  sendCopy(bytes: Buffer): Promise<void>;
}

/** What the nemesis does to one request. `cut`: where in the body a reset falls (a fraction). */
export interface Decision {
  readonly key: string;
  readonly fault?: Extract<NemesisFault, 'lose-response' | 'reset-mid-request' | 'duplicate'>;
  readonly delayMs: number;
  readonly cut: number;
}

/** The header a client tags a request with, so faults are told per exchange. Never reaches the target. */
export const NEMESIS_TAG_HEADER = 'x-pouchproof-nemesis';
const MAX_HEAD_BYTES = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');

interface Pending {
  readonly decision: Decision;
  readonly head: Buffer;
  readonly bodyLength: number;
  readonly chunks: Buffer[];
  got: number;
}

/** Tasks run one after another: what one direction of the connection passes on, in order. */
class Serial {
  private tail: Promise<void> = Promise.resolve();
  push(task: () => Promise<void> | void): void {
    this.tail = this.tail.then(task).catch(() => undefined);
  }
}

export class NemesisConnection {
  private buf: Buffer = Buffer.alloc(0);
  private raw = false;
  private pending: Pending | undefined;
  /** The request sent on and waiting for the first byte of its answer. */
  private awaiting: { readonly decision: Decision; readonly bytes: Buffer } | undefined;
  private readonly toTarget = new Serial();
  private readonly toClient = new Serial();
  private ended = false;

  constructor(
    private readonly n: NemesisHost,
    private readonly client: net.Socket,
    private readonly target: net.Socket,
  ) {
    client.on('data', (d: Buffer) => this.fromClient(d));
    target.on('data', (d: Buffer) => this.fromTarget(d));
    for (const s of [client, target]) {
      s.on('error', () => this.end());
      s.on('close', () => this.end());
    }
    // A half-close from the client (a request cut short on its side) is passed on as it is.
    client.on('end', () => this.toTarget.push(() => void target.end()));
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.client.destroy();
    this.target.destroy();
  }

  private fromClient(d: Buffer): void {
    if (this.raw) return this.toTarget.push(() => this.pass(this.target, d));
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    for (;;) {
      if (!this.pending && !this.readHead()) return;
      if (!this.pending) return; // turned raw
      const p = this.pending;
      const take = Math.min(p.bodyLength - p.got, this.buf.length);
      if (take > 0) {
        p.chunks.push(this.buf.subarray(0, take));
        p.got += take;
        this.buf = this.buf.subarray(take);
      }
      if (p.got < p.bodyLength) return;
      this.pending = undefined;
      this.dispatch(p);
      if (this.buf.length === 0 || this.ended) return;
    }
  }

  /** Reads a request head off the buffer; false when it is not all there yet. */
  private readHead(): boolean {
    const at = this.buf.indexOf(HEAD_END);
    if (at < 0) {
      if (this.buf.length > MAX_HEAD_BYTES) this.goRaw();
      return false;
    }
    const lines = this.buf.subarray(0, at).toString('latin1').split('\r\n');
    this.buf = this.buf.subarray(at + HEAD_END.length);
    let tag: string | undefined;
    let length = 0;
    const kept: string[] = [lines[0] ?? ''];
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === NEMESIS_TAG_HEADER) {
        tag = value;
        continue;
      }
      if (name === 'transfer-encoding' || (name === 'content-length' && !/^\d+$/.test(value))) {
        const untagged = lines.filter((l, i) => i === 0 || l.slice(0, l.indexOf(':')).trim().toLowerCase() !== NEMESIS_TAG_HEADER);
        this.buf = Buffer.concat([Buffer.from(`${untagged.join('\r\n')}\r\n\r\n`, 'latin1'), this.buf]);
        this.goRaw();
        return true;
      }
      if (name === 'content-length') length = Number(value);
      kept.push(line);
    }
    const head = Buffer.from(`${kept.join('\r\n')}\r\n\r\n`, 'latin1');
    this.pending = { decision: this.n.decide(tag), head, bodyLength: length, chunks: [], got: 0 };
    return true;
  }

  /** No more injection on this connection: what is buffered and all that follows goes through as it comes. */
  private goRaw(): void {
    this.raw = true;
    const rest = this.buf;
    this.buf = Buffer.alloc(0);
    if (rest.length) this.toTarget.push(() => this.pass(this.target, rest));
  }

  private dispatch(p: Pending): void {
    const d = p.decision;
    const body = Buffer.concat(p.chunks);
    if (d.delayMs > 0) this.n.note(d.key, 'delay', `held ${d.delayMs} ms before it was passed on`);
    if (d.fault === 'reset-mid-request') return this.reset(p, body);
    const bytes = Buffer.concat([p.head, body]);
    this.awaiting = { decision: d, bytes };
    this.toTarget.push(async () => {
      if (d.delayMs > 0) await new Promise((r) => setTimeout(r, d.delayMs));
      await this.pass(this.target, bytes);
    });
  }

  /** The request cut part-way through its body (through its head when it has no body): the target sees a connection closed under it. */
  private reset(p: Pending, body: Buffer): void {
    const d = p.decision;
    const whole = Buffer.concat([p.head, body]);
    const at = body.length > 1 ? p.head.length + Math.max(1, Math.floor(d.cut * body.length)) : Math.max(1, Math.floor(d.cut * p.head.length));
    const sent = Math.min(at, whole.length - 1);
    this.n.note(d.key, 'reset-mid-request', `connection cut after ${sent} of ${whole.length} bytes of the request`);
    this.toTarget.push(async () => {
      if (d.delayMs > 0) await new Promise((r) => setTimeout(r, d.delayMs));
      await new Promise<void>((r) => this.target.end(whole.subarray(0, sent), () => r()));
      this.client.resetAndDestroy();
    });
  }

  private fromTarget(d: Buffer): void {
    const a = this.awaiting;
    this.awaiting = undefined;
    if (a?.decision.fault === 'lose-response') {
      this.n.note(a.decision.key, 'lose-response', 'delivered in full; the answer was dropped and the connection closed');
      return this.end();
    }
    if (a?.decision.fault === 'duplicate') {
      this.n.note(a.decision.key, 'duplicate', 'delivered twice: a copy went on a second connection before this answer was passed back');
      const copy = withConnectionClose(a.bytes);
      this.toClient.push(() => this.n.sendCopy(copy));
    }
    this.toClient.push(() => this.pass(this.client, d, a?.decision.key));
  }

  /** Writes `d` once no partition holds the wire (open connections stall for the window). */
  private async pass(to: net.Socket, d: Buffer, key?: string): Promise<void> {
    if (await this.n.partitionWait()) {
      if (key) this.n.note(key, 'partition', 'stalled until a partition window ended');
    }
    if (!to.destroyed) to.write(d);
  }
}

/** The request with `connection: close`, so its copy's connection ends with its answer. */
function withConnectionClose(bytes: Buffer): Buffer {
  const at = bytes.indexOf(HEAD_END);
  const lines = bytes.subarray(0, at).toString('latin1').split('\r\n').filter((l, i) => i === 0 || !/^connection\s*:/i.test(l));
  lines.push('connection: close');
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes.subarray(at + HEAD_END.length)]);
}

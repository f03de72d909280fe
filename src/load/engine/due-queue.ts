/** A ring of due times (ms) with a fixed capacity: the open model's requests waiting for a free connection. */
export class DueQueue {
  private readonly buf: Float64Array;
  private head = 0;
  size = 0;
  constructor(capacity: number) {
    this.buf = new Float64Array(Math.max(1, capacity));
  }
  get capacity(): number {
    return this.buf.length;
  }
  push(t: number): boolean {
    if (this.size === this.buf.length) return false;
    this.buf[(this.head + this.size) % this.buf.length] = t;
    this.size++;
    return true;
  }
  unshift(t: number): void {
    this.head = (this.head - 1 + this.buf.length) % this.buf.length;
    this.buf[this.head] = t;
    this.size = Math.min(this.size + 1, this.buf.length);
  }
  shift(): number {
    const t = this.buf[this.head];
    if (t === undefined) throw new RangeError('shift from an empty due queue');
    this.head = (this.head + 1) % this.buf.length;
    this.size--;
    return t;
  }
}

/**
 * The random phase's cases, drawn from the seed's stream as they are needed. A case depends on the
 * seed and its place in the stream alone (fast-check's `path`: `fc.sample` from place k walks the
 * same stream as `fc.check`, skipping the places before k without generating them), so drawing a
 * block at a time gives the same cases as drawing all at once. Drawn all at once, `--runs 100000`
 * generated every case before the first was sent: minutes of CPU, past the time budget, and 4 GB
 * of heap until the process died.
 */
import fc from 'fast-check';
import type { Property } from '../property.ts';

/** Discarded draws (`stillValid`) allowed per planned case, as fast-check's `maxSkipsPerRun`. */
export const MAX_SKIPS_PER_RUN = 100;

export interface Drawn {
  /** Its place in the seed's stream: its replay token's path. */
  readonly index: number;
  readonly input: unknown;
}

/** Cases drawn ahead at first; later blocks grow with the place, so skipping to it costs little over a long run. */
const FIRST_BLOCK = 8;

/** The first `runs` draws of the seed's stream that the property's `stillValid` keeps, a block at a time. */
export class DrawStream {
  /** Places of the stream looked at so far. */
  private place = 0;
  /** Drawn and not yet taken. */
  private ahead: Drawn[] = [];
  private taken = 0;
  private readonly limit: number;
  kept = 0;
  skipped = 0;

  constructor(
    private readonly prop: Pick<Property, 'stillValid'>,
    private readonly arb: fc.Arbitrary<unknown>,
    private readonly seed: number,
    private readonly runs: number,
  ) {
    this.limit = runs * (MAX_SKIPS_PER_RUN + 1);
  }

  /** The next kept case, or undefined when there is none: drawn a block ahead, a quarter of the places behind it at most. */
  take(): Drawn | undefined {
    if (this.taken === this.ahead.length) {
      this.ahead = this.next(Math.max(FIRST_BLOCK, Math.floor(this.place / 4)));
      this.taken = 0;
    }
    return this.ahead[this.taken++];
  }

  /** The next kept cases, `want` at most; empty once `runs` were kept or the places allowed ran out. */
  next(want: number): Drawn[] {
    const out: Drawn[] = [];
    const keep = this.prop.stillValid;
    while (out.length < want && this.kept < this.runs && this.place < this.limit) {
      const missing = Math.min(want - out.length, this.runs - this.kept);
      // Without a filter every place is kept; with one, a few more are drawn than are missing, as before.
      const n = Math.min(this.limit - this.place, keep ? missing * 2 + 8 : missing);
      const block = fc.sample(this.arb, { seed: this.seed, path: String(this.place), numRuns: n });
      let used = 0;
      for (const input of block) {
        if (out.length === want || this.kept === this.runs) break;
        const index = this.place + used++;
        if (keep && !keep(input)) this.skipped++;
        else {
          out.push({ index, input });
          this.kept++;
        }
      }
      this.place += used;
      if (block.length === 0) break;
    }
    return out;
  }
}

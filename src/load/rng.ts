/**
 * A seeded small fast PRNG (sfc32) and the few draws the load generator needs. fast-check is the
 * right tool for finding counterexamples but builds large bodies far too slowly for a load run;
 * this expands one 32-bit seed into a deterministic stream at tens of millions of draws per second.
 */
import { CHARSETS, UUID_VARIANTS, UUID_VERSIONS } from '../spec/index.ts';

const HEX = '0123456789abcdef';
const B64U = CHARSETS.base64url.chars;

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // splitmix32 spreads a small seed over the four state words.
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** A version-4 style UUID inside the spec's pattern (2.2); 122 random bits, so unique in practice. */
  uuid(): string {
    let s = '';
    for (let w = 0; w < 4; w++) {
      const x = this.u32();
      for (let k = 28; k >= 0; k -= 4) s += HEX[(x >>> k) & 15];
    }
    const version = UUID_VERSIONS[3]; // '4': random
    const variant = UUID_VARIANTS[this.u32() & 3].toLowerCase();
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${version}${s.slice(13, 16)}-${variant}${s.slice(17, 20)}-${s.slice(20, 32)}`;
  }

  /** `n` lowercase hexadecimal characters. */
  hex(n: number): string {
    let s = '';
    while (s.length < n) {
      const x = this.u32();
      for (let k = 28; k >= 0 && s.length < n; k -= 4) s += HEX[(x >>> k) & 15];
    }
    return s;
  }

  /** `n` characters of the base64url alphabet. */
  b64u(n: number): string {
    let s = '';
    while (s.length < n) {
      const x = this.u32();
      for (let k = 0; k < 30 && s.length < n; k += 6) s += B64U[(x >>> k) & 63];
    }
    return s;
  }

  /**
   * Index in [0, n) with a Zipf-like skew: 0 is uniform, larger values concentrate draws on the
   * low indices (s = 1 is classic Zipf). Uses a precomputed CDF per (n, s).
   */
  skewed(cdf: Float64Array): number {
    const u = this.float();
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** Cumulative distribution of a Zipf(s) law over n items; s = 0 is uniform. */
export function zipfCdf(n: number, s: number): Float64Array {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += 1 / (i + 1) ** s;
    cdf[i] = sum;
  }
  for (let i = 0; i < n; i++) cdf[i] /= sum;
  cdf[n - 1] = 1;
  return cdf;
}

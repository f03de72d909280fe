/**
 * The nemesis's draws: a number in [0, 1) from the run's seed, the request's key and what is being
 * drawn, with no state between draws. A request meets the same faults whatever order requests
 * arrive in, so a run with the same seed injects the same faults into the same exchanges.
 */
export function draw(seed: number, key: string, what: string): number {
  // FNV-1a over the text, then murmur3's finaliser to spread the low bits.
  let h = 0x811c9dc5;
  const text = `${seed}:${key}:${what}`;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 0x1_0000_0000;
}

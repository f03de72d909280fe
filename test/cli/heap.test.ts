/** src/cli/heap.ts: the heap's growth is bounded unless node was given its own bound, which wins. */
import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from '../../src/cli/heap.ts';

describe('boundHeapGrowth', () => {
  it("leaves a bound given on node's command line or in NODE_OPTIONS alone, in either spelling", () => {
    expect(boundHeapGrowth(['--heap-growing-percent=0'], '')).toBe(false);
    expect(boundHeapGrowth(['--require', 'x.cjs'], '--max-old-space-size=512 --heap_growing_percent=30')).toBe(false);
  });

  it('sets its own otherwise (what it saves is measured by `npm run bench memory`, not here)', () => {
    expect(boundHeapGrowth([], '--max-old-space-size=512')).toBe(true);
  });
});

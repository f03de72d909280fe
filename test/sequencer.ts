/**
 * The order vitest hands test files to its workers: the slow tier first, its longest files first
 * (LONGEST_FIRST in vitest.config.ts), then the fast tier. vitest's own order runs the projects one
 * after another by name and, on a fresh clone with no recorded durations, the larger files first, so
 * CI started the three-line zoo files, the longest of all, last: one worker ran the tail alone. The
 * longest first, the many short files fill the workers at the end (longest-processing-time order).
 * The timed tier's group order still puts it after everything, one file at a time.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export function sequencerFor(longestFirst: readonly string[], slowProject: string): typeof BaseSequencer {
  return class LongestFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const base = await super.sort(files);
      const rank = (s: TestSpecification): number => {
        if (s.project.name !== slowProject) return longestFirst.length + 1;
        const file = relative(s.project.config.root, s.moduleId).split('\\').join('/');
        // Paths, not globs: node 20's matchesGlob warns that it is experimental on every run's console.
        const i = longestFirst.indexOf(file);
        return i < 0 ? longestFirst.length : i;
      };
      const group = (s: TestSpecification): number => s.project.config.sequence.groupOrder;
      // Array.prototype.sort is stable: within a rank, vitest's own order (measured durations when it has them).
      return base.map((s, i) => ({ s, i })).sort((a, b) => group(a.s) - group(b.s) || rank(a.s) - rank(b.s) || a.i - b.i).map((x) => x.s);
    }
  };
}

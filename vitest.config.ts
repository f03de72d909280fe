import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores on CI: forks keep worker memory apart and let a crashing test die alone.
    pool: 'forks',
    reporters: process.env.CI ? ['default'] : ['default'],
    // bin/pouchproof.js prefers a build in dist/ when there is one: the suite tests the sources, never a stale build.
    env: { POUCHPROOF_FROM_SOURCE: '1' },
  },
});

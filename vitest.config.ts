import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores on CI: forks keep worker memory apart and let a crashing test die alone.
    pool: 'forks',
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});

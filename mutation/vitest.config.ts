import { defineConfig } from 'vitest/config';

/** The mutation oracle's own config (`npm run mutation`); the main config's include never reaches `mutation/`. */
export default defineConfig({
  test: {
    include: ['mutation/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});

/**
 * Tests that run curl lines with curl itself (test/tools.ts): without curl they are skipped, loudly;
 * under POUCHPROOF_REQUIRE_TOOLS=1 (.ci/run installs curl and sets it) they run and fail.
 */
import { it } from 'vitest';
import { tool } from '../tools.ts';

/** `it` for the tests of `file` that need curl (`what`: which tests, for the warning). */
export function curlTests(file: string, what: string): { readonly withCurl: typeof it.skip; readonly requireCurl: () => void } {
  const curl = tool({ names: ['curl'], file, tests: `${what} are`, install: 'apt-get install curl' });
  return { withCurl: it.skipIf(curl.skip), requireCurl: () => void curl.need() };
}

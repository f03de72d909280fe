/**
 * Tests that run curl lines with curl itself. Without curl they are skipped on a developer's
 * machine, loudly (a warning, and "needs curl" in their names); on CI (`CI` or
 * `POUCHPROOF_REQUIRE_TOOLS` set; .ci/run installs curl and sets the latter) they run and fail.
 */
import { execFileSync } from 'node:child_process';
import { it } from 'vitest';

function hasCurl(): boolean {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const CURL = hasCurl();
const REQUIRE_TOOLS = Boolean(process.env['CI'] || process.env['POUCHPROOF_REQUIRE_TOOLS']);

/** `it` for the tests of `file` that need curl (`what`: which tests, for the warning). */
export function curlTests(file: string, what: string): { readonly withCurl: typeof it.skip; readonly requireCurl: () => void } {
  if (!CURL && !REQUIRE_TOOLS) console.warn(`${file}: curl is not installed, so ${what} are SKIPPED (install curl to run them; CI installs it in .ci/run)`);
  return {
    withCurl: it.skipIf(!CURL && !REQUIRE_TOOLS),
    requireCurl: () => {
      if (!CURL) throw new Error('curl is not installed, and this run requires it (CI or POUCHPROOF_REQUIRE_TOOLS is set): install curl (.ci/run does)');
    },
  };
}

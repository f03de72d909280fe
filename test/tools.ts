/**
 * Outside tools some tests need (curl, Chromium), found on PATH. A test whose tool is missing is
 * skipped with a message saying so, unless POUCHPROOF_REQUIRE_TOOLS=1 (CI: `.ci/run` installs the
 * tools and sets it): then it runs and fails with the reason, so a CI run never passes by skipping.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const required = process.env['POUCHPROOF_REQUIRE_TOOLS'];
export const REQUIRE_TOOLS = required !== undefined && required !== '' && required !== '0';

/** The first of `names` that is an executable on PATH (then in `alsoIn`, e.g. sbin directories a user's PATH lacks). */
export function findTool(names: readonly string[], alsoIn: readonly string[] = []): string | undefined {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), ...alsoIn].filter(Boolean);
  for (const name of names) {
    const found = dirs.map((dir) => join(dir, name)).find(isExecutable);
    if (found) return found;
  }
  return undefined;
}

export interface Tool {
  /** The tool's path, when it is installed. */
  readonly path: string | undefined;
  /** Its tests are skipped: the tool is missing and not required. */
  readonly skip: boolean;
  /** The path; throws the one-line reason when the tool is required and missing. */
  need(): string;
}

/**
 * A tool for one test file: `override` names an environment variable that may give its path.
 * Missing and not required: warns once that `tests` are skipped, and how to install it.
 */
export function tool(o: { readonly names: readonly string[]; readonly file: string; readonly tests: string; readonly install: string; readonly override?: string }): Tool {
  const given = o.override ? process.env[o.override] : undefined;
  const path = !given ? findTool(o.names) : given.includes('/') ? (isExecutable(given) ? given : undefined) : findTool([given]);
  const label = o.names[0]!;
  if (!path && !REQUIRE_TOOLS) {
    console.warn(`${o.file}: ${label} is not installed${given ? ` (${o.override}=${given})` : ''}, so ${o.tests} SKIPPED (${o.install}; POUCHPROOF_REQUIRE_TOOLS=1 makes this a failure)`);
  }
  return {
    path,
    skip: !path && !REQUIRE_TOOLS,
    need() {
      if (!path) throw new Error(`${label} is not installed, and POUCHPROOF_REQUIRE_TOOLS is set: ${o.install} (.ci/run does)`);
      return path;
    },
  };
}

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

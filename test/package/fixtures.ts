/** The files of the throwaway project that installs the packed tarball, as a team adopting pouchproof would write them. */

/** The library API against a faulted reference and the embedded one; prints what it saw as one JSON line. */
export const API_SCRIPT = `
import { writeFile } from 'node:fs/promises';
import { run, startReference, properties, loadProfile } from 'pouchproof';

const clean = await run({ only: ['usage.idempotent'], runs: 3, seed: 11 });
const ref = await startReference({ faults: ['usage-summed'] });
let faulted;
try {
  await writeFile('reference-profile.json', JSON.stringify(ref.profileDocument));
  const profile = await loadProfile('reference-profile.json');
  faulted = await run({ profile, only: ['usage.never-summed'], runs: 5, seed: 11, readings: 'defaults' });
} finally {
  await ref.close();
}
let bad;
try {
  await run({ runs: 0 });
} catch (e) {
  bad = e.message;
}
console.log(JSON.stringify({
  properties: properties.length,
  clean: { exitCode: clean.exitCode, passed: clean.totals.passed },
  faulted: { exitCode: faulted.exitCode, violations: faulted.totals.findings.violation },
  bad,
}));
`;

/** A user's vitest file: one block passes on the embedded reference, one fails on a faulted one, one is skipped for want of credentials. */
export const VITEST_FILE = `
import { afterAll } from 'vitest';
import { startReference } from 'pouchproof';
import { describeProperties } from 'pouchproof/vitest';

const faulted = await startReference({ faults: ['usage-summed'] });
afterAll(() => faulted.close());

describeProperties({ name: 'embedded', select: ['usage.idempotent'], runs: 3, seed: 5 });
describeProperties({ name: 'faulted', profile: faulted.profile, select: ['usage.never-summed'], runs: 5, seed: 5, readings: 'defaults' });
describeProperties({ name: 'no-credentials', target: faulted.url, select: ['usage.monotone'], readings: 'defaults' });
`;

/** A TypeScript adopter: the declarations resolve through `exports` and type the API (checked with skipLibCheck off). */
export const TYPED_CONSUMER = `
import { run, startReference, properties, loadProfile, UsageError, type Report, type RunOptions } from 'pouchproof';
import { describeProperties, type DescribePropertiesOptions } from 'pouchproof/vitest';

const options: RunOptions = { only: ['usage.*'], readings: 'defaults', failOn: ['performance'] };
export async function check(): Promise<0 | 1 | 2 | 3> {
  const ref = await startReference({ faults: ['usage-summed'] });
  try {
    const report: Report = await run({ ...options, profile: ref.profile });
    return report.exitCode;
  } finally {
    await ref.close();
  }
}
export const ids: string[] = properties.map((p) => p.id);
export const load: (path: string) => Promise<{ baseUrl: string }> = loadProfile;
export const isUsage = (e: unknown): boolean => e instanceof UsageError;
const suite: DescribePropertiesOptions = { select: ['usage.*'], seed: 1 };
describeProperties(suite);
// @ts-expect-error: readings is 'auto' or 'defaults'
export const wrong: RunOptions = { readings: 'sometimes' };
`;

export const CONSUMER_PACKAGE = (tarball: string, vitestVersion: string): string =>
  `${JSON.stringify({ name: 'adopter', private: true, type: 'module', dependencies: { pouchproof: `file:${tarball}` }, devDependencies: { vitest: vitestVersion } }, null, 2)}\n`;

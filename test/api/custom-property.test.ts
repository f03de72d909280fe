/**
 * The worked example of a property of one's own in docs/library.md, run as written (its code block, with the
 * package's name pointing at the sources): it stands beside the catalogue, passes against the correct
 * reference on what it judged, and its violation against a faulty one carries its ground like a
 * built-in property's does.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Property } from '../../src/index.ts';
import { properties, run, startReference } from '../../src/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** docs/library.md's example, without its last statement (the run), exporting the property it builds. */
async function docProperty(): Promise<Property> {
  const page = await readFile(join(ROOT, 'docs/library.md'), 'utf8');
  const at = page.indexOf('**Properties of your own**');
  expect(at, 'docs/library.md has its "Properties of your own" example').toBeGreaterThanOrEqual(0);
  const block = /```js\n([\s\S]*?)```/.exec(page.slice(at))![1]!;
  const [definitions] = block.split('\nconst report = await run(');
  const code = `${definitions!.replace("from 'pouchproof'", "from '../../src/index.ts'")}\nexport { storedInRange };\n`;
  const file = join(ROOT, 'test', 'api', `.doc-example-${process.pid}.ts`);
  await writeFile(file, code);
  try {
    return ((await import(file)) as { storedInRange: Property }).storedInRange;
  } finally {
    await rm(file, { force: true });
  }
}

describe('a property of your own (the example of docs/library.md)', () => {
  it('runs beside the catalogue, judged and reported as the built-in ones are', async () => {
    const mine = await docProperty();
    const report = await run({ properties: [...properties, mine], only: ['mine.*', 'usage.idempotent'], seed: 4, runs: 5, readings: 'defaults' });
    expect(report.exitCode).toBe(0);
    const p = report.properties.find((x) => x.id === 'mine.stored-in-range')!;
    expect(p).toMatchObject({ status: 'passed', section: '4.3', evidence: { random: { planned: 5, judged: 5 } } });

    const ref = await startReference({ faults: ['envelope-wrong-types'] });
    try {
      const faulty = await run({ profile: ref.profile, properties: [mine], seed: 4, runs: 5, readings: 'defaults' });
      expect(faulty.exitCode).toBe(1);
      const v = faulty.properties[0]!.findings.find((f) => f.kind === 'violation')!;
      // A stored sent as a string breaks the envelope before the example's own judgement looks: the shared judge says so, with its ground.
      expect(v).toMatchObject({ property: 'mine.stored-in-range', section: '4.3', judgement: 'shared.success-envelope' });
      expect(v.ground).toMatch(/^§2\.1 "Common response envelope/);
      expect(v.replay).toMatch(/^[A-Za-z0-9_-]+$/);
    } finally {
      await ref.close();
    }
  });

  it('two properties with one id are refused in one line', async () => {
    const mine = await docProperty();
    await expect(run({ properties: [mine, mine] })).rejects.toThrow(/two properties share the id mine\.stored-in-range/);
  });
});

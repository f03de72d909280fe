import { defineCommand } from '../command.ts';
import { DEFAULT_FLOOR } from '../../check/property.ts';
import { selectProperties } from '../../check/run/index.ts';
import { groundLines, groundRows } from '../../report/grounds-list.ts';
import { loadAllProperties } from '../../session/index.ts';
import { parseOnly } from '../args.ts';

const pct = (x: number): string => (x === 1 ? 'every one' : `${Math.round(x * 100)}%`);

/** `pouchproof list`: every property with its section, invariant, assumptions, needs and evidence floor. */
const list = defineCommand({
  describe: 'list every property with its section and assumptions',
  examples: [
    ['pouchproof list', 'every property with its section and assumptions'],
    ["pouchproof list --grounds --only 'usage.*'", 'what each usage judgement rests on'],
  ],
  builder: (y) =>
    y
      .option('json', { type: 'boolean', default: false, describe: 'print JSON' })
      .option('grounds', { type: 'boolean', default: false, describe: 'print every judgement with what it rests on: a quoted clause of SPEC.md, or a named reading' })
      .option('only', { type: 'string', array: true, describe: 'property id globs' }),
  async handler(argv) {
    const props = selectProperties(await loadAllProperties(), parseOnly(argv.only));
    if (argv.grounds) {
      const rows = groundRows(props);
      process.stdout.write(argv.json ? `${JSON.stringify(rows, null, 2)}\n` : `${groundLines(rows).join('\n')}\n`);
      return 0;
    }
    const rows = props.map((p) => ({ id: p.id, section: p.section, invariant: p.invariant, assumptions: [...p.assumptions], needs: [...p.needs], floor: { ...(p.floor ?? DEFAULT_FLOOR) }, ...(p.runs !== undefined ? { runs: p.runs } : {}), ...(p.concurrency !== undefined ? { concurrency: p.concurrency } : {}) }));
    if (argv.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    const lines: string[] = [];
    for (const r of rows) {
      lines.push(`${r.id}  (§${r.section})`);
      lines.push(`    ${r.invariant}`);
      lines.push(`    assumptions: ${r.assumptions.length ? r.assumptions.join(', ') : '(none)'}`);
      lines.push(`    needs: ${r.needs.length ? r.needs.join(', ') : '(nothing)'}${r.runs !== undefined ? `; at most ${r.runs} cases` : ''}${r.concurrency !== undefined ? `; ${r.concurrency} at a time` : ''}`);
      lines.push(`    vouches when it judged: ${pct(r.floor.coverage)} of its coverage cases, ${pct(r.floor.random)} of its random cases`);
    }
    lines.push('', `${rows.length} properties`);
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  },
});
export default list;

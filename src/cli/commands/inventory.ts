import type { Argv } from 'yargs';
import { defineCommand } from '../command.ts';
import { ASSUMPTIONS, INVENTORY, LIMITS, LIMIT_NAMES } from '../../spec/index.ts';

/** Prints the spec coverage inventory: limits, constraints per endpoint and scope, assumptions. */
const inventory = defineCommand({
  describe: 'print the spec constraint inventory and the assumption registry',
  examples: [
    ['pouchproof inventory', 'limits, constraint counts per endpoint and the assumption registry'],
    ['pouchproof inventory --json > inventory.json', 'every constraint with its ground, as JSON'],
  ],
  builder: (y: Argv) => y.option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
  async handler(argv) {
    if (argv.json) {
      const constraints = INVENTORY.map(({ node: _node, ...c }) => c);
      process.stdout.write(JSON.stringify({ limits: LIMITS, constraints, assumptions: ASSUMPTIONS }, null, 2) + '\n');
      return 0;
    }
    const lines: string[] = ['Limits (section 8 and beside the fields):'];
    for (const n of LIMIT_NAMES) lines.push(`  ${n.padEnd(24)} ${LIMITS[n].text}  [${LIMITS[n].sections.join(', ')}]`);
    lines.push('', 'Constraints:');
    const counts = new Map<string, number>();
    for (const c of INVENTORY) counts.set(`${c.endpoint} ${c.scope}`, (counts.get(`${c.endpoint} ${c.scope}`) ?? 0) + 1);
    for (const [k, v] of counts) lines.push(`  ${k.padEnd(32)} ${v}`);
    lines.push(`  total ${INVENTORY.length}`, '', 'Assumptions (every "not shown"):');
    for (const a of ASSUMPTIONS) lines.push(`  ${a.name.padEnd(28)} default ${a.default}  (${a.choices.map((c) => c.value).join(' | ')})`);
    process.stdout.write(lines.join('\n') + '\n');
    return 0;
  },
});
export default inventory;

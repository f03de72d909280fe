import type { CommandModule } from '../main.ts';
import inventory from './inventory.ts';

/** `npm start`: until the runner lands, the spec coverage inventory. */
const start: CommandModule = {
  describe: 'the full job against the embedded reference',
  builder: (y) => y,
  handler: (argv) => inventory.handler({ ...argv, json: false }),
};
export default start;

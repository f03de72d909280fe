import type { Argv } from 'yargs';
import type { CommandModule } from '../command.ts';
const loadK8s: CommandModule = { describe: 'todo', builder: (y: Argv) => y, handler: async () => 2 };
export default loadK8s;

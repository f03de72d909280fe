/**
 * One misbehaving server of misbehaving-servers.ts as a process of its own, for the memory benchmark
 * (bench/memory.bench.ts), which measures a run in another process: `tsx test/cli/serve-misbehaving.ts garbage`
 * prints the server's URL on its first line and serves until it is sent SIGTERM.
 */
import { always500, garbage, type Local } from './misbehaving-servers.ts';

const SERVERS: Readonly<Record<string, () => Promise<Local>>> = { garbage, always500 };

const name = process.argv[2] ?? '';
const start = SERVERS[name];
if (!start) {
  process.stderr.write(`usage: serve-misbehaving.ts ${Object.keys(SERVERS).join('|')}\n`);
  process.exit(2);
}
const server = await start();
process.stdout.write(`${server.url}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));

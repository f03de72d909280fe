/**
 * The independent server as a process: `tsx test/independent/main.ts [BUG,...]`. It prints one JSON
 * line `{ "url", "profile" }` on stdout once it listens, and serves until killed. score.ts runs each
 * bug in its own process, so a bug that kills or hangs the server (Intro-2, 2.5-9) ends only it.
 */
import { isBugName } from './bugs.ts';
import { generateConfig, profileFor } from './config.ts';
import { startServer } from './server.ts';

const names = (process.argv[2] ?? '').split(',').filter((s) => s !== '');
const unknown = names.filter((n) => !isBugName(n));
if (unknown.length > 0) {
  process.stderr.write(`unknown bug name(s): ${unknown.join(', ')}\n`);
  process.exit(2);
}
const config = generateConfig();
const server = await startServer({ config, bugs: names.filter(isBugName) });
process.stdout.write(`${JSON.stringify({ url: server.url, profile: profileFor(config, server.url) })}\n`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));

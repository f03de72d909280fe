import { writeFile } from 'node:fs/promises';
import type { Argv } from 'yargs';
import { stringify } from 'yaml';
import { defineCommand, UsageError } from '../command.ts';
import { openApiDocument } from '../../spec/index.ts';
import { toolVersion } from '../../session/index.ts';

const FORMATS = ['json', 'yaml'] as const;

/** `pouchproof openapi`: the spec model as an OpenAPI 3.1 document, on stdout or into a file. */
const openapi = defineCommand({
  describe: 'write the spec model as an OpenAPI 3.1 document',
  examples: [
    ['pouchproof openapi --out openapi.yaml', 'the document as YAML, for Schemathesis, Prism or a client generator'],
    ['pouchproof openapi --format json | jq .paths', 'the document as JSON on stdout'],
  ],
  builder: (y: Argv) =>
    y
      .option('out', { type: 'string', describe: 'write to this file instead of stdout' })
      .option('format', { type: 'string', choices: FORMATS, describe: 'json or yaml (default: from --out\'s extension, else json)' })
      .option('base-url', { type: 'string', describe: 'default of the {base_url} server variable' }),
  async handler(argv) {
    const out = typeof argv.out === 'string' && argv.out !== '' ? argv.out : undefined;
    const format = argv.format ?? (out && /\.ya?ml$/i.test(out) ? 'yaml' : 'json');
    const doc = openApiDocument({ version: toolVersion(), ...(typeof argv['base-url'] === 'string' ? { baseUrl: argv['base-url'] } : {}) });
    // YAML without anchors: a reader that resolves no aliases still sees every schema in full.
    const text = format === 'yaml' ? stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 }) : `${JSON.stringify(doc, null, 2)}\n`;
    if (!out) {
      process.stdout.write(text);
      return 0;
    }
    await writeFile(out, text).catch((e: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot write ${out}: ${e.code ?? e.message}`);
    });
    process.stdout.write(`pouchproof: OpenAPI 3.1 document written to ${out}\n`);
    return 0;
  },
});
export default openapi;

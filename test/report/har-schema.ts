/**
 * A HAR 1.2 validator for the tests: the JSON Schemas of the `har-schema` package (draft-06, one
 * file per HAR object) compiled with ajv. The formats they name are checked here (ajv leaves
 * formats to a plugin): date-time as ISO 8601 with a zone, uri as a parseable URL.
 */
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject } from 'ajv';

const require = createRequire(import.meta.url);

let compiled: ((value: unknown) => readonly ErrorObject[]) | undefined;

/** Compiled once per test file: ajv's compilation is the slow part. */
export function harValidator(): (value: unknown) => readonly ErrorObject[] {
  return (compiled ??= compile());
}

function compile(): (value: unknown) => readonly ErrorObject[] {
  // Not strict: har-schema's draft-06 files are loose (a `required` inside an array's schema, `min` for
  // `minimum`), which a draft-06 validator ignores; ajv's strict mode would refuse to compile them.
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
  ajv.addFormat('date-time', (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s) && !Number.isNaN(Date.parse(s)));
  ajv.addFormat('uri', (s: string) => URL.canParse(s));
  ajv.addFormat('ipv4', /^(\d{1,3}\.){3}\d{1,3}$/);
  ajv.addFormat('ipv6', /^[0-9a-f:]+$/i);
  const schemas = require('har-schema') as Record<string, { $id: string }>;
  for (const [name, s] of Object.entries(schemas)) if (name !== 'har') ajv.addSchema(s);
  const validate = ajv.compile(schemas.har!);
  return (value) => (validate(value) ? [] : [...(validate.errors ?? [])]);
}

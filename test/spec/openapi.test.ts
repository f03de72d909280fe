import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it, vi } from 'vitest';
import { ASSUMPTIONS, ASSUMPTION_BY_NAME, CHARSETS, assumptionOf, ENDPOINTS, INVENTORY, LIMITS, PATTERNS, UUID_MAX, UUID_NIL, type Constraint } from '../../src/spec/index.ts';
import { caselessSource, openApiDocument, type JsonSchema } from '../../src/spec/openapi.ts';
import { main } from '../../src/cli/main.ts';

const doc = openApiDocument({ version: '1.2.3' });

type Schema = Record<string, unknown>;

/** Follows `$ref`s and the success response's `then` (a body with ok true) to the schema that holds the properties. */
function resolve(s: Schema): Schema {
  if (typeof s['$ref'] === 'string') {
    const name = (s['$ref'] as string).replace('#/components/schemas/', '');
    return resolve((doc['components'] as { schemas: Record<string, Schema> }).schemas[name]!);
  }
  if (s['then'] !== undefined) return resolve(s['then'] as Schema);
  return s;
}

/** The field's schema with a nullable `anyOf` unwrapped, and whether null was allowed. */
function unwrapNull(s: Schema): { schema: Schema; allowsNull: boolean } {
  if (Array.isArray(s['anyOf'])) {
    const parts = s['anyOf'] as Schema[];
    return { schema: resolve(parts.find((p) => p['type'] !== 'null')!), allowsNull: parts.some((p) => p['type'] === 'null') };
  }
  const t = s['type'];
  if (Array.isArray(t)) return { schema: { ...resolve(s), type: t.find((x) => x !== 'null') }, allowsNull: t.includes('null') };
  return { schema: resolve(s), allowsNull: false };
}

interface Located {
  readonly schema: Schema;
  readonly allowsNull: boolean;
  /** The `required` list of the object holding the field, when the path ends in a field. */
  readonly parentRequired?: readonly string[];
  readonly key?: string;
}

/** Finds the schema a constraint sits on by walking the document, independently of how it was built. */
function locate(c: Constraint): Located {
  const e = ENDPOINTS.find((x) => x.id === c.endpoint)!;
  const op = (doc['paths'] as Record<string, Record<string, Schema>>)[e.pathTemplate]![e.method.toLowerCase()]!;
  if (c.scope === 'params') {
    const p = (op['parameters'] as Schema[]).find((x) => x['name'] === c.path && x['in'] === 'path')!;
    return { schema: p['schema'] as Schema, allowsNull: false, parentRequired: p['required'] === true ? [c.path] : [], key: c.path };
  }
  let cur: Located =
    c.scope === 'body'
      ? { schema: resolve(((op['requestBody'] as Schema)['content'] as Record<string, Schema>)['application/json']!['schema'] as Schema), allowsNull: false }
      : {
          schema: resolve((((op['responses'] as Record<string, Schema>)['2XX']!['content'] as Record<string, Schema>)['application/json']!['schema'] as Schema)),
          allowsNull: false,
        };
  if (c.path === '') return cur;
  for (const seg of c.path.split('.')) {
    const name = seg.replace(/(\[\])+$/, '');
    const items = (seg.length - name.length) / 2;
    const props = cur.schema['properties'] as Record<string, Schema> | undefined;
    expect(props?.[name], `${c.id}: no property ${name}`).toBeDefined();
    const { schema, allowsNull } = unwrapNull(props![name]!);
    cur = { schema, allowsNull, parentRequired: (cur.schema['required'] as string[] | undefined) ?? [], key: name };
    for (let i = 0; i < items; i++) cur = { ...unwrapNull(cur.schema['items'] as Schema) };
  }
  return cur;
}

/** What each kind of constraint looks like in JSON Schema. */
function expressed(c: Constraint, at: Located): void {
  const s = at.schema;
  const limit = c.limit ? LIMITS[c.limit] : undefined;
  switch (c.kind) {
    case 'required':
      expect(at.parentRequired, c.id).toContain(at.key);
      return;
    case 'not-null':
      expect(at.allowsNull, c.id).toBe(false);
      return;
    case 'type': {
      const want = c.node.kind === 'uuid' || c.node.kind === 'enum' ? 'string' : c.node.kind === 'integer' ? 'integer' : c.node.kind;
      expect(s['type'], c.id).toBe(want);
      return;
    }
    case 'integer':
      expect(s['type'], c.id).toBe('integer');
      return;
    case 'min':
      expect(s['minimum'], c.id).toBe(limit!.min);
      return;
    case 'max':
      expect(s['maximum'], c.id).toBe(limit!.max);
      return;
    case 'minLength':
      expect(s['minLength'], c.id).toBe(limit!.min);
      return;
    case 'maxLength':
      expect(s['maxLength'], c.id).toBe(limit!.max);
      return;
    case 'minItems':
      expect(s['minItems'], c.id).toBe(limit!.min);
      return;
    case 'maxItems':
      expect(s['maxItems'], c.id).toBe(limit!.max);
      return;
    case 'charset': {
      const re = new RegExp(s['pattern'] as string, 'u');
      expect(re.test(CHARSETS[c.charset!].chars), c.id).toBe(true);
      expect(re.test(`${CHARSETS[c.charset!].chars}!`), c.id).toBe(false);
      return;
    }
    case 'pattern':
      expect(s['pattern'], c.id).toBe(caselessSource(PATTERNS[c.pattern!].regex));
      return;
    case 'calendar':
      expect(s['format'], c.id).toBe('date');
      expect(s['x-pouchproof-reading'], c.id).toEqual({ [c.assumption!]: assumptionOf(c.assumption!).default });
      return;
    case 'uuid':
      expect(s['pattern'], c.id).toBe(caselessSource(PATTERNS.uuid.regex));
      return;
    case 'enum':
      // An answer's list that section 7 says is not the whole (result statuses) stays open: its values are examples.
      if (c.scope === 'response' && c.node.kind === 'enum' && c.node.othersNotShown) {
        expect(s['enum'], c.id).toBeUndefined();
        expect(s['examples'], c.id).toEqual(c.values);
        expect(s['x-pouchproof-reading'], c.id).toHaveProperty(c.node.othersNotShown);
      } else expect(s['enum'], c.id).toEqual(c.values);
      return;
    default:
      return c.kind satisfies never;
  }
}

describe('pouchproof openapi: the spec model as an OpenAPI 3.1 document', () => {
  it('is a valid OpenAPI 3.1 document (@readme/openapi-parser)', async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(doc['openapi']).toBe('3.1.0');
  });

  it('has the six endpoints, each with its method and path template', () => {
    const paths = doc['paths'] as Record<string, Record<string, Schema>>;
    for (const e of ENDPOINTS) expect(paths[e.pathTemplate]?.[e.method.toLowerCase()]?.['operationId']).toBe(e.id);
    expect(Object.values(paths).flatMap((p) => Object.keys(p))).toHaveLength(ENDPOINTS.length);
  });

  it(`expresses every one of the ${INVENTORY.length} constraints of the inventory where it applies`, () => {
    for (const c of INVENTORY) expressed(c, locate(c));
  });

  it('keeps the roster-only limits inside the roster and plain strings elsewhere (2.3, 2.4)', () => {
    const schemas = (doc['components'] as { schemas: Record<string, Schema> }).schemas;
    const plain = schemas['Statement']!['properties'] as Record<string, Schema>;
    const roster = schemas['StatementRoster']!['properties'] as Record<string, Schema>;
    expect(plain['statement']).toEqual({ type: 'string' });
    expect(roster['statement']!['maxLength']).toBe(LIMITS.rosterStatementLength.max);
  });

  it('declares Service-Signature on the commit only, and every registry assumption as an extension', () => {
    for (const e of ENDPOINTS) {
      const op = (doc['paths'] as Record<string, Record<string, Schema>>)[e.pathTemplate]![e.method.toLowerCase()]!;
      const header = (op['parameters'] as Schema[]).find((p) => p['in'] === 'header');
      expect(header?.['name'], e.id).toBe(e.signedByDevice ? 'Service-Signature' : undefined);
      expect(op['x-pouchproof-assumptions'], e.id).toContain(e.environment);
    }
    const registry = doc['x-pouchproof-assumptions'] as JsonSchema[];
    expect(registry.map((a) => a['name'])).toEqual(ASSUMPTIONS.map((a) => a.name));
    expect(registry.every((a) => typeof a['default'] === 'string' && Array.isArray(a['choices']))).toBe(true);
  });

  it('states only the spec\'s words: no additionalProperties but the free-form objects, no pinned ok, no header required of every caller', () => {
    const schemas = (doc['components'] as { schemas: Record<string, Schema> }).schemas;
    const freeForm = Object.entries(schemas).filter(([, x]) => x['additionalProperties'] !== undefined);
    // 4.4's "free-form object with arbitrary properties" and its data ("content of data: not shown") only.
    expect(freeForm.map(([k, x]) => [k, x['additionalProperties'], x['properties']])).toEqual([
      ['Response', true, undefined],
      ['PasskeyData', true, undefined],
    ]);
    for (const e of ENDPOINTS) {
      const op = (doc['paths'] as Record<string, Record<string, Schema>>)[e.pathTemplate]![e.method.toLowerCase()]!;
      const responses = op['responses'] as Record<string, Schema>;
      expect(Object.keys(responses), e.id).toEqual(['2XX', 'default']);
      expect(responses['default']!['content'], e.id).toBeUndefined();
      const success = ((responses['2XX']!['content'] as Record<string, Schema>)['application/json']!['schema']) as Schema;
      // ok true is the condition of a success (section 7), never a demand on every 2xx.
      expect(success['if'], e.id).toEqual({ type: 'object', properties: { ok: { const: true } }, required: ['ok'] });
      expect(Object.keys(success).filter((k) => !k.startsWith('x-')).sort(), e.id).toEqual(['if', 'then']);
      for (const p of (op['parameters'] as Schema[]).filter((x) => x['in'] === 'header')) expect(p['required'], e.id).toBe(false);
    }
  });

  it('names each reading it was drawn under by the registry\'s own name and default, and only as an annotation', () => {
    const notes: [string, string][] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === 'x-pouchproof-reading') notes.push(...Object.entries(x as Record<string, string>));
          else walk(x);
        }
      }
    };
    walk({ paths: doc['paths'], components: doc['components'] });
    expect(notes.length).toBeGreaterThan(10);
    for (const [name, value] of notes) expect(value, name).toBe(ASSUMPTION_BY_NAME.get(name)?.default);
    expect(new Set(notes.map(([n]) => n))).toEqual(
      new Set(['unknown-fields-ignored', 'duplicate-keys', 'characters-are-code-points', 'day-calendar-valid', 'integers-json-safe', 'empty-lists', 'conflict-behaviour', 'error-response', 'signature-required-callers', 'canonical-json', 'jws-form', 'kid-binding', 'high-s-accepted']),
    );
  });

  it('spells the case-insensitive uuid rule out without flags, matching exactly what the model matches', () => {
    const re = new RegExp(caselessSource(PATTERNS.uuid.regex));
    const samples = [
      '123e4567-e89b-42d3-a456-426614174000',
      '123E4567-E89B-42D3-A456-426614174000',
      '123e4567-e89b-42d3-B456-426614174000',
      UUID_NIL,
      UUID_MAX,
      UUID_MAX.toUpperCase(),
      'FFFFffff-ffff-ffff-ffff-ffffffffffff',
      '123e4567-e89b-02d3-a456-426614174000', // version 0
      '123e4567-e89b-92d3-a456-426614174000', // version 9
      '123e4567-e89b-42d3-c456-426614174000', // variant c
      '123e4567e89b42d3a456426614174000',
      'g23e4567-e89b-42d3-a456-426614174000',
      '',
    ];
    for (const s of samples) expect(re.test(s), s).toBe(PATTERNS.uuid.regex.test(s));
  });

  it('writes YAML or JSON from the command line, the same document either way', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pouchproof-openapi-'));
    try {
      // In-process: main() is what bin/pouchproof.js runs; the files it writes are the evidence.
      for (const args of [['openapi', '--out', join(dir, 'openapi.yaml')], ['openapi', '--format', 'json', '--out', join(dir, 'openapi.out')]]) {
        const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
        try {
          await main(args);
        } finally {
          write.mockRestore();
        }
        expect(process.exitCode ?? 0, args.join(' ')).toBe(0);
      }
      const fromYaml = parseYaml(await readFile(join(dir, 'openapi.yaml'), 'utf8')) as Schema;
      const fromJson = JSON.parse(await readFile(join(dir, 'openapi.out'), 'utf8')) as Schema;
      expect(fromYaml).toEqual(fromJson);
      expect(fromJson['paths']).toEqual(JSON.parse(JSON.stringify(doc['paths'])));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

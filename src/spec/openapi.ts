/**
 * The spec model as an OpenAPI 3.1 document: the six endpoints of section 4 with every field, type,
 * bound, pattern and required flag the model states, the roster-only forms of 2.3/2.4 where the
 * roster holds them, the `Service-Signature` header of section 5, and each "not shown" of the
 * assumption registry as an `x-pouchproof-…` extension. Nothing here restates a rule: it walks the
 * same nodes the zod schemas, the inventory and the generators walk, so a tool that starts from this
 * document (Schemathesis, Prism, a client generator) starts from the model itself.
 *
 * Where the spec is silent the document says so instead of guessing: success answers are `2XX`
 * (no status code is shown), and failures are a `default` response with no schema (section 7).
 */
import { ASSUMPTIONS, type Assumption, type AssumptionName } from './assumptions.ts';
import { ENDPOINTS, SIGNATURE_HEADER, type Endpoint } from './endpoints.ts';
import { CHARSETS, LIMITS, charsetSource, type LimitName } from './limits.ts';
import { PATTERNS } from './patterns.ts';
import type { Field, Node, ObjectNode } from './model.ts';
import { envelopeNode } from './zod.ts';

/** A JSON Schema 2020-12 object, as OpenAPI 3.1 embeds it. */
export type JsonSchema = { readonly [key: string]: unknown };

export interface OpenApiOptions {
  /** `info.version`: the version of the document (pouchproof's own version by default). */
  readonly version?: string;
  /** The default of the `{base_url}` server variable. */
  readonly baseUrl?: string;
}

/** The extension prefix of everything pouchproof adds beyond OpenAPI's own vocabulary. */
export const OPENAPI_EXTENSION = 'x-pouchproof';
const X = (name: string): string => `${OPENAPI_EXTENSION}-${name}`;

/**
 * JSON Schema patterns have no flags, so a case-insensitive RegExp (2.2's uuid rule, "either case")
 * is spelled out: a letter outside a class becomes `[xX]`, a class gains the other case of its
 * letters and letter ranges.
 */
export function caselessSource(re: RegExp): string {
  if (!re.flags.includes('i')) return re.source;
  const src = re.source;
  let out = '';
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') {
      out += src.slice(i, i + 2);
      i++;
    } else if (c === '[') {
      const end = classEnd(src, i);
      out += caselessClass(src.slice(i + 1, end));
      i = end;
    } else if (/[a-z]/i.test(c)) {
      out += `[${c.toLowerCase()}${c.toUpperCase()}]`;
    } else out += c;
  }
  return out;
}

function classEnd(src: string, start: number): number {
  for (let j = start + 1; j < src.length; j++) {
    if (src[j] === '\\') j++;
    else if (src[j] === ']') return j;
  }
  throw new Error(`unterminated character class in /${src}/`);
}

/** A class with the other case of each letter it matches and does not match in that case already. */
function caselessClass(body: string): string {
  const negated = body.startsWith('^');
  const inner = negated ? body.slice(1) : body;
  const cls = new RegExp(`^[${inner}]$`);
  const other = (ch: string) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase());
  let extra = '';
  for (const ch of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ') if (cls.test(ch) && !cls.test(other(ch))) extra += other(ch);
  return `[${negated ? '^' : ''}${inner}${extra}]`;
}

function describeLimit(name: LimitName): string {
  const l = LIMITS[name];
  return `${l.text} (SPEC.md ${l.sections.join(', ')})`;
}

/** Builds component schemas for the model's objects, each once, under a unique name. */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly names = new Map<ObjectNode, string>();

  ref(o: ObjectNode, name = o.name): JsonSchema {
    let key = this.names.get(o);
    if (!key) {
      key = this.unique(pascal(name));
      this.names.set(o, key);
      this.schemas[key] = {}; // reserved before the walk, so a cycle would end in a $ref
      this.schemas[key] = this.object(o);
    }
    return { $ref: `#/components/schemas/${key}` };
  }

  private unique(base: string): string {
    let key = base;
    for (let n = 2; key in this.schemas; n++) key = `${base}${n}`;
    return key;
  }

  private object(o: ObjectNode): JsonSchema {
    const meta = { title: o.name, description: `SPEC.md section ${o.section}` };
    if (o.freeForm) return { ...meta, type: 'object', additionalProperties: true };
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [key, field] of Object.entries(o.fields) as [string, Field][]) {
      properties[key] = this.field(field);
      if (field.required) required.push(key);
    }
    return {
      ...meta,
      type: 'object',
      properties,
      ...(required.length ? { required } : {}),
      // Fields the spec does not list are accepted and ignored under the default reading.
      additionalProperties: true,
      [X('assumptions')]: ['unknown-fields-ignored', 'duplicate-keys'] satisfies AssumptionName[],
    };
  }

  private field(f: Field): JsonSchema {
    const s = this.node(f.node);
    if (!f.nullable) return s;
    if ('$ref' in s) return { anyOf: [s, { type: 'null' }] };
    return { ...s, type: [s['type'], 'null'] };
  }

  node(n: Node): JsonSchema {
    switch (n.kind) {
      case 'string': {
        const out: Record<string, unknown> = { type: 'string' };
        const notes: string[] = [];
        if (n.length) {
          // JSON Schema counts code points, as the default reading of "characters" does.
          const { min, max } = LIMITS[n.length];
          if (min !== undefined && min > 0) out['minLength'] = min;
          if (max !== undefined) out['maxLength'] = max;
          notes.push(describeLimit(n.length));
          out[X('assumptions')] = ['characters-are-code-points'] satisfies AssumptionName[];
        }
        if (n.charset && n.pattern) throw new Error('a string node with both a charset and a pattern needs allOf');
        if (n.charset) {
          out['pattern'] = charsetSource(n.charset);
          notes.push(`${CHARSETS[n.charset].text} (SPEC.md ${CHARSETS[n.charset].sections.join(', ')})`);
        }
        if (n.pattern) {
          const p = PATTERNS[n.pattern];
          out['pattern'] = caselessSource(p.regex);
          notes.push(`${p.text} (SPEC.md ${p.sections.join(', ')})`);
          if (p.calendarAssumption) {
            out[X('calendar')] = true;
            out[X('assumptions')] = [p.calendarAssumption] satisfies AssumptionName[];
          }
        }
        if (n.mayBeEmpty) notes.push('may be empty');
        if (notes.length) out['description'] = notes.join('; ');
        return out;
      }
      case 'uuid': {
        const out: Record<string, unknown> = {
          type: 'string',
          pattern: caselessSource(PATTERNS.uuid.regex),
          description: `uuid: ${PATTERNS.uuid.text} (SPEC.md 2.2)`,
        };
        if (n.listedUnder) out[X('listed-under')] = n.listedUnder;
        return out;
      }
      case 'integer': {
        if (!n.range) return { type: 'integer', [X('assumptions')]: ['integers-json-safe'] satisfies AssumptionName[] };
        const { min, max } = LIMITS[n.range];
        return { type: 'integer', ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}), description: describeLimit(n.range) };
      }
      case 'boolean':
        return { type: 'boolean' };
      case 'enum':
        return { type: 'string', enum: [...n.values] };
      case 'array': {
        const out: Record<string, unknown> = { type: 'array', items: this.node(n.items) };
        if (n.count) {
          const { min, max } = LIMITS[n.count];
          if (min !== undefined && min > 0) out['minItems'] = min;
          if (max !== undefined) out['maxItems'] = max;
          out['description'] = describeLimit(n.count);
        } else out[X('assumptions')] = ['empty-lists'] satisfies AssumptionName[];
        if (n.chain) out[X('chain')] = n.chain;
        return out;
      }
      case 'object':
        return this.ref(n);
      default:
        return n satisfies never;
    }
  }
}

function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** The registry entries an endpoint's behaviour rests on: those of its section, of section 4 as a whole, and its environment. */
function assumptionsOf(e: Endpoint): AssumptionName[] {
  const names = ASSUMPTIONS.filter((a) => a.sections.some((s) => s === e.section || s === '4')).map((a) => a.name);
  if (!names.includes(e.environment)) names.push(e.environment);
  return names;
}

function registryEntry(a: Assumption<AssumptionName>): JsonSchema {
  return { name: a.name, sections: a.sections, question: a.question, default: a.default, choices: a.choices, rationale: a.rationale, decidedBy: a.decidedBy };
}

function operation(e: Endpoint, c: Components): JsonSchema {
  const parameters: JsonSchema[] = Object.entries(e.params).map(([name, node]) => ({ name, in: 'path', required: true, schema: c.node(node) }));
  if (e.signedByDevice) {
    parameters.push({
      name: headerName(SIGNATURE_HEADER),
      in: 'header',
      required: true,
      description:
        'SPEC.md section 5: command-line devices must send it. A detached ES256 JWS over the base64url encoding of the BLAKE3 hash of the canonical JSON body; the canonical form is not shown.',
      schema: { type: 'string' },
      [X('assumptions')]: ['signature-required-callers', 'canonical-json', 'jws-form', 'kid-binding', 'high-s-accepted'] satisfies AssumptionName[],
    });
  }
  const envelope = envelopeNode(e.data);
  return {
    operationId: e.id,
    summary: e.title,
    description: `SPEC.md section ${e.section}. Called by a ${e.caller} member (assumption caller-kinds).`,
    tags: [`section ${e.section}`],
    parameters,
    requestBody: { required: true, content: { 'application/json': { schema: c.ref(e.body) } } },
    responses: {
      // Section 7: success carries `ok` true; no status code is shown, so any 2xx is a success.
      '2XX': {
        description: 'Success: the 2.1 envelope around this operation’s data. The status code is not shown.',
        content: { 'application/json': { schema: { allOf: [c.ref(envelope, `${e.id} response`), { properties: { ok: { const: true } } }] } } },
      },
      default: {
        description: 'Error response body, status codes and error codes: not shown (SPEC.md section 7).',
        [X('assumptions')]: ['error-response'] satisfies AssumptionName[],
      },
    },
    [X('section')]: e.section,
    [X('caller')]: e.caller,
    [X('assumptions')]: assumptionsOf(e),
  };
}

/** `service-signature` → `Service-Signature`: the spelling section 5 uses. */
function headerName(lower: string): string {
  return lower.replace(/(^|-)([a-z])/g, (_, dash: string, ch: string) => dash + ch.toUpperCase());
}

/** The OpenAPI 3.1 document of the spec model. */
export function openApiDocument(options: OpenApiOptions = {}): JsonSchema {
  const c = new Components();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const e of ENDPOINTS) (paths[e.pathTemplate] ??= {})[e.method.toLowerCase()] = operation(e, c);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Encrypted Artifact Sync Service',
      version: options.version ?? '0.0.0',
      description:
        'Generated by pouchproof from its spec model of SPEC.md. Every "not shown" of the spec is an assumption with a default reading and alternatives, listed under x-pouchproof-assumptions; schemas follow the default readings. How callers authenticate is not shown (assumption caller-auth), so no security scheme is declared.',
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: options.baseUrl ?? 'http://127.0.0.1:8080' } } }],
    paths,
    components: { schemas: c.schemas },
    [X('assumptions')]: ASSUMPTIONS.map(registryEntry),
  };
}

/**
 * The spec model as an OpenAPI 3.1 document: the six endpoints of section 4 with every field, type,
 * bound, pattern and required flag the model states, the roster-only forms of 2.3/2.4 where the
 * roster holds them, the `Service-Signature` header of section 5, and the assumption registry as
 * `x-pouchproof-…` extensions. Nothing here restates a rule: it walks the same nodes the zod
 * schemas, the inventory and the generators walk, so a tool that starts from this document
 * (Schemathesis, Prism, a client generator) starts from the model itself.
 *
 * The document states only the spec's words. Where the spec is silent a schema leaves the question
 * open (no `additionalProperties`, no closed list of result statuses, no status code) and names
 * pouchproof's default reading under `x-pouchproof-reading`, an annotation no validator enforces: a
 * correct server that takes another reading must not fail a tool that trusts the document.
 */
import { ASSUMPTIONS, assumptionOf, type Assumption, type AssumptionName } from './assumptions.ts';
import { ENDPOINTS, SIGNATURE_HEADER, type Endpoint } from './endpoints.ts';
import { CHARSETS, LIMITS, charsetSource, type LimitName } from './limits.ts';
import { PATTERNS } from './patterns.ts';
import { CLAUSES } from './grounds.ts';
import type { EnumNode, Field, Node, ObjectNode, StringNode } from './model.ts';
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
    const c = src[i];
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

/** Which way a schema describes a message: what a client sends, or what a server answers. */
type Side = 'request' | 'response';

/**
 * The readings a schema was drawn under where the spec is silent: each assumption with its default
 * reading (the registry at the top of the document lists the alternatives). An annotation only.
 */
function readingsNote(names: readonly AssumptionName[]): JsonSchema {
  return names.length ? { [X('reading')]: Object.fromEntries(names.map((n) => [n, assumptionOf(n).default])) } : {};
}

/**
 * What the spec leaves open about an object's members it does not list: in a request, what the
 * server does with them (and with a name given twice) is a reading; in an answer they are simply
 * not shown (2.1 and section 4 list the required members only).
 */
const UNLISTED_MEMBERS: Readonly<Record<Side, readonly AssumptionName[]>> = { request: ['unknown-fields-ignored', 'duplicate-keys'], response: [] };

/** Builds component schemas for the model's objects, each once per side, under a unique name. */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly names: Record<Side, Map<ObjectNode, string>> = { request: new Map(), response: new Map() };

  ref(o: ObjectNode, side: Side, name = o.name): JsonSchema {
    let key = this.names[side].get(o);
    if (!key) {
      key = this.unique(pascal(name));
      this.names[side].set(o, key);
      this.schemas[key] = {}; // reserved before the walk, so a cycle would end in a $ref
      this.schemas[key] = this.object(o, side);
    }
    return { $ref: `#/components/schemas/${key}` };
  }

  private unique(base: string): string {
    let key = base;
    for (let n = 2; key in this.schemas; n++) key = `${base}${n}`;
    return key;
  }

  private object(o: ObjectNode, side: Side): JsonSchema {
    const meta = { title: o.name, description: `SPEC.md section ${o.section}` };
    // "free-form object with arbitrary properties" (4.4), or a `data` whose content is not shown.
    if (o.freeForm) return { ...meta, type: 'object', additionalProperties: true };
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [key, field] of Object.entries(o.fields)) {
      properties[key] = this.field(field, side);
      if (field.required) required.push(key);
    }
    // No `additionalProperties`: members the spec does not list are left open, never allowed or forbidden.
    return { ...meta, type: 'object', properties, ...(required.length ? { required } : {}), ...readingsNote(UNLISTED_MEMBERS[side]) };
  }

  private field(f: Field, side: Side): JsonSchema {
    const s = this.node(f.node, side);
    if (!f.nullable) return s;
    if ('$ref' in s) return { anyOf: [s, { type: 'null' }] };
    return { ...s, type: [s['type'], 'null'] };
  }

  node(n: Node, side: Side): JsonSchema {
    switch (n.kind) {
      case 'string':
        return stringSchema(n);
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
        if (!n.range) return { type: 'integer', ...readingsNote(['integers-json-safe']) };
        const { min, max } = LIMITS[n.range];
        return { type: 'integer', ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}), description: describeLimit(n.range) };
      }
      case 'boolean':
        return { type: 'boolean' };
      case 'enum':
        return enumSchema(n, side);
      case 'array': {
        const out: Record<string, unknown> = { type: 'array', items: this.node(n.items, side) };
        if (n.count) {
          const { min, max } = LIMITS[n.count];
          if (min !== undefined && min > 0) out['minItems'] = min;
          if (max !== undefined) out['maxItems'] = max;
          out['description'] = describeLimit(n.count);
        } else Object.assign(out, readingsNote(['empty-lists']));
        if (n.chain) out[X('chain')] = n.chain;
        return out;
      }
      case 'object':
        return this.ref(n, side);
      default:
        return n satisfies never;
    }
  }
}

/** A string's length, charset or pattern; a UTC day (2.7) is also `format: date`, JSON Schema's word for a calendar day. */
function stringSchema(n: StringNode): JsonSchema {
  const out: Record<string, unknown> = { type: 'string' };
  const notes: string[] = [];
  const readings: AssumptionName[] = [];
  if (n.length) {
    // JSON Schema counts code points, as the default reading of "characters" does: the unit is a reading, the number the spec's.
    const { min, max } = LIMITS[n.length];
    if (min !== undefined && min > 0) out['minLength'] = min;
    if (max !== undefined) out['maxLength'] = max;
    notes.push(describeLimit(n.length));
    readings.push('characters-are-code-points');
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
      out['format'] = 'date';
      notes.push(`${CLAUSES.usageDayIsUtcDay.quote} (SPEC.md ${CLAUSES.usageDayIsUtcDay.section})`);
      readings.push(p.calendarAssumption);
    }
  }
  if (n.mayBeEmpty) notes.push('may be empty');
  if (notes.length) out['description'] = notes.join('; ');
  return { ...out, ...readingsNote(readings) };
}

/**
 * A list of values. In an answer, a list the spec says is not the whole (section 7: other result
 * statuses are not shown) is open: the listed values are `examples`, and the reading that would
 * close it is named. A request keeps to the listed values: nothing else is known to be valid.
 */
function enumSchema(n: EnumNode, side: Side): JsonSchema {
  if (side === 'response' && n.othersNotShown) {
    return { type: 'string', examples: [...n.values], description: `listed: ${n.values.join(', ')}; other values not shown (SPEC.md 7)`, ...readingsNote([n.othersNotShown]) };
  }
  return { type: 'string', enum: [...n.values] };
}

function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
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

/** Section 5's header: devices must send it, so a caller may; who else must is a reading (`signature-required-callers`). */
function signatureHeader(): JsonSchema {
  return {
    name: headerName(SIGNATURE_HEADER),
    in: 'header',
    required: false,
    description: `SPEC.md section 5: "${CLAUSES.signatureRequired.quote}" ${CLAUSES.signatureForm.quote} The canonical form is not shown; no caller kind is in this document, so the header is not required of every caller.`,
    schema: { type: 'string' },
    ...readingsNote(['signature-required-callers', 'canonical-json', 'jws-form', 'kid-binding', 'high-s-accepted']),
  };
}

/**
 * Section 7 shows neither a success's status code nor a refusal's, nor a refusal's body. A 2xx is a
 * success when its body says `ok` true, and then it is this operation's envelope; under another
 * reading of `error-response` a refusal may come as a 2xx with `ok` not true, so `ok` is not pinned.
 */
function responses(e: Endpoint, c: Components): JsonSchema {
  const envelope = c.ref(envelopeNode(e.data), 'response', `${e.id} response`);
  const ok = CLAUSES.successOkTrue;
  return {
    '2XX': {
      description: `"${ok.quote}" (SPEC.md ${ok.section}): a body with ok true is the 2.1 envelope around this operation's data. Status codes are not shown, so a 2xx whose ok is not true is not described.`,
      content: {
        'application/json': {
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, a plain JSON value never awaited
          schema: { if: { type: 'object', properties: { ok: { const: true } }, required: ['ok'] }, then: envelope, ...readingsNote(['error-response']) },
        },
      },
    },
    default: {
      description: 'Error response body, status codes and error codes: not shown (SPEC.md section 7).',
      ...readingsNote(['error-response']),
    },
  };
}

function operation(e: Endpoint, c: Components): JsonSchema {
  const parameters: JsonSchema[] = Object.entries(e.params).map(([name, node]) => ({ name, in: 'path', required: true, schema: c.node(node, 'request') }));
  if (e.signedByDevice) parameters.push(signatureHeader());
  return {
    operationId: e.id,
    summary: e.title,
    description: `SPEC.md section ${e.section}. Called by a ${e.caller} member (assumption caller-kinds).`,
    tags: [`section ${e.section}`],
    parameters,
    requestBody: { required: true, content: { 'application/json': { schema: c.ref(e.body, 'request') } } },
    responses: responses(e, c),
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
        'Generated by pouchproof from its spec model of SPEC.md, stating only what the spec says. Every "not shown" of the spec is an assumption with a default reading and alternatives, listed under x-pouchproof-assumptions. Where a schema meets one, it leaves the question open and names the default reading under x-pouchproof-reading (an annotation, never a constraint). How callers authenticate is not shown (assumption caller-auth), so no security scheme is declared.',
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: options.baseUrl ?? 'http://127.0.0.1:8080' } } }],
    paths,
    components: { schemas: c.schemas },
    [X('assumptions')]: ASSUMPTIONS.map(registryEntry),
  };
}

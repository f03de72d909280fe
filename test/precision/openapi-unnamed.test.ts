/**
 * `pouchproof openapi` against servers the spec allows: the plain reference and the reference serving
 * each of its unnamed behaviours (src/reference/unnamed.ts), and two readings whose answers a
 * document that pinned them would call wrong. Every request drawn from the document alone (a small
 * JSON Schema sampler, as Schemathesis draws them) is accepted with a 2xx, and every answer fits the
 * document's response schema (ajv, draft 2020-12, as OpenAPI 3.1 embeds it). A document that states
 * more than the spec (a day by its pattern only, a pinned `ok`, a closed list of result statuses)
 * fails here the way it failed Schemathesis against a correct server.
 */
import { randomUUID } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNNAMED, startReference, type ReferenceOptions, type RunningReference } from '../../src/reference/index.ts';
import { ENDPOINTS, isCalendarDay, type Endpoint, type MemberKind } from '../../src/spec/index.ts';
import { openApiDocument } from '../../src/spec/openapi.ts';
import { DocumentSampler } from '../spec/openapi-sampler.ts';

type Schema = Record<string, unknown>;

const doc = openApiDocument();
const SAMPLERS = { any: new DocumentSampler(doc), low: new DocumentSampler(doc, 'low'), high: new DocumentSampler(doc, 'high') };
/** Drawn requests per endpoint, beside one at each end of every bound. */
const PER_ENDPOINT = 6;

const ajv = new Ajv2020({ strict: false, allErrors: true });
// JSON Schema's `date` (RFC 3339 full-date): the shape, and a real day.
ajv.addFormat('date', (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s) && isCalendarDay(s));
ajv.addSchema(doc, 'openapi');

const pointer = (...segs: string[]): string => `openapi#/${segs.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
const operationOf = (e: Endpoint): Schema => ((doc['paths'] as Record<string, Record<string, Schema>>)[e.pathTemplate]![e.method.toLowerCase()]!);
const compiled = (ref: string): ValidateFunction => ajv.compile({ $ref: ref });

interface Validators {
  readonly request: ValidateFunction;
  readonly success: ValidateFunction;
}
const VALIDATORS = new Map<Endpoint, Validators>(
  ENDPOINTS.map((e) => {
    const at = ['paths', e.pathTemplate, e.method.toLowerCase()];
    return [e, { request: compiled(pointer(...at, 'requestBody', 'content', 'application/json', 'schema')), success: compiled(pointer(...at, 'responses', '2XX', 'content', 'application/json', 'schema')) }];
  }),
);

interface Drawn {
  readonly path: string;
  readonly body: unknown;
}

/** Requests drawn from the document: `PER_ENDPOINT` anywhere in the bounds, then one at each end (drawn once, sent to every server). */
function requestsOf(e: Endpoint, seed: number): Drawn[] {
  return [...drawnBy(SAMPLERS.any, e, seed, PER_ENDPOINT), ...drawnBy(SAMPLERS.low, e, seed, 1), ...drawnBy(SAMPLERS.high, e, seed, 1)];
}

function drawnBy(sampler: DocumentSampler, e: Endpoint, seed: number, n: number): Drawn[] {
  const op = operationOf(e);
  const params = (op['parameters'] as Schema[]).filter((p) => p['in'] === 'path');
  const paramArb = fc.record(Object.fromEntries(params.map((p) => [p['name'] as string, sampler.arbitrary(p['schema'] as Schema)])));
  const bodyArb = sampler.arbitrary(((op['requestBody'] as Schema)['content'] as Record<string, Schema>)['application/json']!['schema'] as Schema);
  return fc.sample(fc.tuple(paramArb, bodyArb), { numRuns: n, seed }).map(([p, body]) => ({
    path: e.pathTemplate.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(p[name]))),
    body,
  }));
}

const SEED = 30;
const REQUESTS = new Map(ENDPOINTS.map((e) => [e, requestsOf(e, SEED)]));

/**
 * The document describes shapes; which revision an op may name is state (section 1: "Concurrency is
 * optimistic and based on revision ids"), which the document marks (`x-pouchproof-chain`) and cannot
 * carry. So each drawn op becomes the create of a new artifact (base null, fresh ids) under a fresh
 * operation_id (a re-sent one is `operation-id-idempotency`'s business), still a value the document
 * calls valid, as a peer tool's hook would make it.
 */
function fitState(e: Endpoint, body: unknown): unknown {
  const ops = (body as { ops?: unknown }).ops;
  if (e.id !== 'commitOperations' || !Array.isArray(ops)) return body;
  return {
    ...(body as object),
    operation_id: randomUUID(),
    ops: ops.map((o: object) => ({ ...o, type: 'create', artifact_id: randomUUID(), revision_id: randomUUID(), base_revision_id: null })),
  };
}

/** Who sends: the document's `x-pouchproof-caller`, except the commit, sent as a browser (the header is asked of devices, and a peer tool cannot sign). */
function callerOf(e: Endpoint): MemberKind {
  return e.signedByDevice ? 'browser' : (operationOf(e)['x-pouchproof-caller'] as MemberKind);
}

async function send(ref: RunningReference, e: Endpoint, r: Drawn): Promise<{ status: number; body: unknown }> {
  const headers = ref.profile.accounts.primary[callerOf(e)]!.headers;
  const res = await fetch(`${ref.url}${r.path}`, { method: e.method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(r.body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

const errorsOf = (v: ValidateFunction): string => ajv.errorsText(v.errors);

/** Every drawn request of every endpoint: a 2xx whose body fits the document; the misfits, one line each. */
async function misfits(ref: RunningReference): Promise<string[]> {
  const out: string[] = [];
  for (const e of ENDPOINTS) {
    const v = VALIDATORS.get(e)!;
    for (const drawn of REQUESTS.get(e)!) {
      const r = { ...drawn, body: fitState(e, drawn.body) };
      // The sampler and the state fit keep to the document: what it calls valid is what is sent.
      if (!v.request(r.body)) throw new Error(`${e.id}: the drawn body does not fit the document: ${errorsOf(v.request)}`);
      const got = await send(ref, e, r);
      const brief = JSON.stringify(got.body).slice(0, 300);
      if (got.status < 200 || got.status > 299) out.push(`${e.id} ${r.path}: refused with ${got.status}: ${brief}`);
      else if (!v.success(got.body)) out.push(`${e.id}: the answer does not fit the document (${errorsOf(v.success)}): ${brief}`);
    }
  }
  return out;
}

async function withReference<T>(o: ReferenceOptions, f: (ref: RunningReference) => Promise<T>): Promise<T> {
  const ref = await startReference(o);
  try {
    return await f(ref);
  } finally {
    await ref.close();
  }
}

describe('the OpenAPI document against servers the spec allows', () => {
  it.each([['the plain reference', []], ...UNNAMED.map((u) => [u.name, [u.name]])] as [string, string[]][])(
    '%s accepts every request the document calls valid, and answers as the document says',
    async (_, unnamed) => {
      expect(await withReference({ unnamed }, (ref) => misfits(ref))).toEqual([]);
    },
    60_000,
  );

  describe('answers a pinned document would have called wrong', () => {
    let refs: RunningReference[] = [];
    beforeAll(async () => {
      refs = await Promise.all([startReference({ readings: { 'error-response': 'ok-false-any-status' } }), startReference({ readings: { 'conflict-behaviour': 'per-op-status' } })]);
    });
    afterAll(async () => {
      await Promise.all(refs.map((r) => r.close()));
    });
    const commit = ENDPOINTS.find((e) => e.signedByDevice)!;
    /** A commit whose one op updates an artifact that does not exist: refused for its state. */
    const conflicting = (): Drawn => {
      const drawn = REQUESTS.get(commit)![0]!;
      const body = fitState(commit, drawn.body) as { ops: object[] };
      return { path: drawn!.path, body: { ...body, ops: [{ ...body.ops[0]!, type: 'update', base_revision_id: randomUUID() }] } };
    };

    it('a refusal as a 2xx with ok false (error-response=ok-false-any-status) fits the 2XX response', async () => {
      const got = await send(refs[0]!, commit, conflicting());
      expect(got.status).toBe(200);
      expect((got.body as { ok: unknown }).ok).toBe(false);
      const v = VALIDATORS.get(commit)!.success;
      expect(v(got.body), errorsOf(v)).toBe(true);
    });

    it('a result status other than applied (conflict-behaviour=per-op-status) fits the 2XX response', async () => {
      const got = await send(refs[1]!, commit, conflicting());
      expect(got.status).toBeGreaterThanOrEqual(200);
      expect(got.status).toBeLessThan(300);
      const statuses = (got.body as { data: { results: { status: string }[] } }).data.results.map((r) => r.status);
      expect(statuses.some((s) => s !== 'applied'), JSON.stringify(got.body)).toBe(true);
      const v = VALIDATORS.get(commit)!.success;
      expect(v(got.body), errorsOf(v)).toBe(true);
    });
  });
});

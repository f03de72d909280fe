/**
 * A hand-written corpus taken from SPEC.md's own words, for the subtle cases. Numbers and strings
 * here are copied from the spec on purpose (not read from src/spec/limits.ts): this is the
 * independent second reading the model is checked against.
 */
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, ENDPOINT_BY_ID, REQUEST_CONSTRAINTS, issuesOf, schemasOf, type EndpointId } from '../../src/spec/index.ts';

const body = (id: EndpointId, v: unknown) => issuesOf(schemasOf(ENDPOINT_BY_ID[id]).body, v).map((i) => `${i.path}#${i.kind}`);
const param = (id: EndpointId, name: string, v: string) => issuesOf(schemasOf(ENDPOINT_BY_ID[id]).params[name]!, v).map((i) => i.kind);

const U = '123e4567-e89b-42d3-a456-426614174000';
const stmt = { statement: 's', signature: 'g' };
const env = (o: Record<string, unknown> = {}) => ({ pouch_id: U, member_id: U, key_gen: 1, hpke_enc: 'h', ciphertext: 'c', created_by_member: U, signature: 'g', ...o });
const op = (o: Record<string, unknown> = {}) => ({
  type: 'create', artifact_id: U, revision_id: U, base_revision_id: null, key_gen: 1, envelope: '', signature: '', signer_member_id: U, blob_ids: [], ...o,
});
const commit = (ops: unknown[]) => ({ operation_id: U, epoch: U, ops });
const row = (o: Record<string, unknown> = {}) => ({ input: 0, output: 0, cache_read: 0, cache_write: 0, day: '2026-01-31', assistant: 'claude', model: 'm', ...o });
const roster = (o: Record<string, unknown> = {}) => ({ roster: { statements: [stmt], ...o } });
const x = (n: number, ch = 'a') => ch.repeat(n);

describe('2.2 UUID format', () => {
  const uuidIssues = (u: string) => param('commitOperations', 'pouchId', u);
  it('"The version digit is 1 to 8"', () => {
    for (const v of '12345678') expect(uuidIssues(`123e4567-e89b-${v}2d3-a456-426614174000`)).toEqual([]);
    for (const v of '09cf') expect(uuidIssues(`123e4567-e89b-${v}2d3-a456-426614174000`)).toEqual(['uuid']);
  });
  it('"the variant digit is one of 8, 9, a, b (either case)"', () => {
    for (const v of '89abAB') expect(uuidIssues(`123e4567-e89b-42d3-${v}456-426614174000`)).toEqual([]);
    for (const v of '01234567cdefCDEF') expect(uuidIssues(`123e4567-e89b-42d3-${v}456-426614174000`)).toEqual(['uuid']);
  });
  it('"The all-zero UUID and the all-f UUID are also accepted", upper-case hex too', () => {
    expect(uuidIssues('00000000-0000-0000-0000-000000000000')).toEqual([]);
    expect(uuidIssues('ffffffff-ffff-ffff-ffff-ffffffffffff')).toEqual([]);
    expect(uuidIssues('FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF')).toEqual([]);
    expect(uuidIssues('123E4567-E89B-42D3-A456-426614174000')).toEqual([]);
  });
  it('"8-4-4-4-12": no missing hyphens, braces or prefixes', () => {
    for (const u of ['123e4567e89b42d3a456426614174000', `{${U}}`, `urn:uuid:${U}`, `${U} `, U.slice(1), '00000000-0000-0000-0000-00000000000']) {
      expect(uuidIssues(u)).toEqual(['uuid']);
    }
  });
});

describe('2.3/2.4 limits that hold only in the revoke roster', () => {
  const long = x(87383, '+');
  it('statements outside the roster are plain strings', () => {
    expect(body('approveDevice', { statement: { statement: long, signature: x(343, '=') }, welcome: '', key_envelopes: [] })).toEqual([]);
    expect(body('changeUnlock', { statements: [{ statement: long, signature: '/' }] })).toEqual([]);
  });
  it('inside the roster: "at most 87382 characters, alphabet A-Z a-z 0-9 _ -"', () => {
    expect(body('revokeBrowser', roster({ statements: [{ statement: x(87382, '_'), signature: x(342, '-') }] }))).toEqual([]);
    expect(body('revokeBrowser', roster({ statements: [{ statement: x(87383), signature: 'g' }] }))).toEqual(['roster.statements[].statement#maxLength']);
    expect(body('revokeBrowser', roster({ statements: [{ statement: 'a+b', signature: 'g' }] }))).toEqual(['roster.statements[].statement#charset']);
  });
  it('key envelopes: hpke_enc, ciphertext and signature bounded in the roster only', () => {
    const big = env({ hpke_enc: x(343, '='), ciphertext: x(5463, ' '), signature: x(343) });
    expect(body('registerPasskey', { response: {}, statement: stmt, key_envelopes: [big] })).toEqual([]);
    expect(body('revokeBrowser', roster({ key_envelopes: [env({ hpke_enc: x(342), ciphertext: x(5462), signature: x(342) })] }))).toEqual([]);
    expect(body('revokeBrowser', roster({ key_envelopes: [env({ ciphertext: x(5463) })] }))).toEqual(['roster.key_envelopes[].ciphertext#maxLength']);
  });
  it('"key_gen … in the revoke roster: 1 to 9007199254740991" (and 1 to … in ops); a plain integer elsewhere', () => {
    for (const k of [0, -1, 9007199254740991]) {
      expect(body('approveDevice', { statement: stmt, welcome: 'w', key_envelopes: [env({ key_gen: k })] })).toEqual([]);
      expect(body('changeUnlock', { statements: [], key_envelopes: [env({ key_gen: k })] })).toEqual([]);
    }
    expect(body('revokeBrowser', roster({ key_envelopes: [env({ key_gen: 0 })] }))).toEqual(['roster.key_envelopes[].key_gen#min']);
    expect(body('revokeBrowser', roster({ key_envelopes: [env({ key_gen: 9007199254740991 })] }))).toEqual([]);
    expect(body('commitOperations', commit([op({ key_gen: 0 })]))).toEqual(['ops[].key_gen#min']);
    expect(body('commitOperations', commit([op({ key_gen: 9007199254740992 })]))).toEqual(['ops[].key_gen#max']);
    expect(body('approveDevice', { statement: stmt, welcome: 'w', key_envelopes: [env({ key_gen: 1.5 })] })).toEqual(['key_envelopes[].key_gen#integer']);
    const keyGenBounds = REQUEST_CONSTRAINTS.filter((c) => c.path.endsWith('key_gen') && (c.kind === 'min' || c.kind === 'max'));
    expect(new Set(keyGenBounds.map((c) => c.endpoint))).toEqual(new Set(['commitOperations', 'revokeBrowser']));
  });
  it('2.8: "statements 1 to 16 items", "key_envelopes … default empty; at most 2000 items"', () => {
    expect(body('revokeBrowser', roster())).toEqual([]);
    expect(body('revokeBrowser', roster({ statements: [] }))).toEqual(['roster.statements#minItems']);
    expect(body('revokeBrowser', roster({ statements: Array(16).fill(stmt) }))).toEqual([]);
    expect(body('revokeBrowser', roster({ statements: Array(17).fill(stmt) }))).toEqual(['roster.statements#maxItems']);
    expect(body('revokeBrowser', roster({ key_envelopes: Array(2001).fill(env()) }))).toEqual(['roster.key_envelopes#maxItems']);
    expect(body('revokeBrowser', {})).toEqual([]);
  });
});

describe('2.5 pouch operation', () => {
  it('"envelope … (may be empty)"; "at most 699051 characters"', () => {
    expect(body('commitOperations', commit([op({ envelope: '' })]))).toEqual([]);
    expect(body('commitOperations', commit([op({ envelope: x(699051) })]))).toEqual([]);
    expect(body('commitOperations', commit([op({ envelope: x(699052) })]))).toEqual(['ops[].envelope#maxLength']);
  });
  it('"base_revision_id: string uuid or null, required": present-but-null is valid, absent is not', () => {
    expect(body('commitOperations', commit([op({ base_revision_id: null })]))).toEqual([]);
    const { base_revision_id: _, ...without } = op();
    expect(body('commitOperations', commit([without]))).toEqual(['ops[].base_revision_id#required']);
  });
  it('"name_index: exactly 43 characters of A-Z a-z 0-9 _ -", optional and nullable', () => {
    expect(body('commitOperations', commit([op({ name_index: x(43, '-') })]))).toEqual([]);
    expect(body('commitOperations', commit([op({ name_index: null })]))).toEqual([]);
    expect(body('commitOperations', commit([op({ name_index: x(42) })]))).toEqual(['ops[].name_index#minLength']);
    expect(body('commitOperations', commit([op({ name_index: x(44) })]))).toEqual(['ops[].name_index#maxLength']);
  });
  it('"ops 1 to 50 items"; "blob_ids at most 2000 items"', () => {
    expect(body('commitOperations', commit([]))).toEqual(['ops#minItems']);
    expect(body('commitOperations', commit(Array(50).fill(op())))).toEqual([]);
    expect(body('commitOperations', commit(Array(51).fill(op())))).toEqual(['ops#maxItems']);
    expect(body('commitOperations', commit([op({ blob_ids: Array(2000).fill('') })]))).toEqual([]);
    expect(body('commitOperations', commit([op({ blob_ids: Array(2001).fill('') })]))).toEqual(['ops[].blob_ids#maxItems']);
  });
  it('"one of create, update, rename, delete, restore, resolve"', () => {
    for (const t of ['create', 'update', 'rename', 'delete', 'restore', 'resolve']) expect(body('commitOperations', commit([op({ type: t })]))).toEqual([]);
    expect(body('commitOperations', commit([op({ type: 'Create' })]))).toEqual(['ops[].type#enum']);
  });
});

describe('2.7 / 4.3 usage', () => {
  it('counters are bounded only above: "at most 9007199254740991"', () => {
    expect(body('reportUsage', { rows: [row({ input: -1, output: -9007199254740991, cache_write: 9007199254740991 })] })).toEqual([]);
    expect(body('reportUsage', { rows: [row({ cache_read: 9007199254740992 })] })).toEqual(['rows[].cache_read#max']);
    expect(REQUEST_CONSTRAINTS.some((c) => c.path === 'rows[].input' && c.kind === 'min')).toBe(false);
  });
  it('"pattern 20YY-MM-DD …; a UTC day"', () => {
    expect(body('reportUsage', { rows: [row({ day: '2000-01-01' }), row({ day: '2099-12-31' }), row({ day: '2024-02-29' })] })).toEqual([]);
    expect(body('reportUsage', { rows: [row({ day: '1999-12-31' })] })).toEqual(['rows[].day#pattern']);
    expect(body('reportUsage', { rows: [row({ day: '2026-02-30' })] })).toEqual(['rows[].day#calendar']);
    expect(body('reportUsage', { rows: [row({ day: '2026-1-01' })] })).toEqual(['rows[].day#pattern']);
  });
  it('"assistant 1 to 32 characters of a-z 0-9 -", "model 1 to 120 characters"', () => {
    expect(body('reportUsage', { rows: [row({ assistant: x(32, '-'), model: x(120, '\u{1F600}') })] })).toEqual([]);
    expect(body('reportUsage', { rows: [row({ assistant: 'Claude' })] })).toEqual(['rows[].assistant#charset']);
    expect(body('reportUsage', { rows: [row({ assistant: '' })] })).toEqual(['rows[].assistant#minLength']);
    expect(body('reportUsage', { rows: [row({ model: x(121) })] })).toEqual(['rows[].model#maxLength']);
  });
  it('"rows … at most 2000 items"; "sourceId exactly 32 lowercase hexadecimal characters"', () => {
    expect(body('reportUsage', { rows: [] })).toEqual([]);
    expect(body('reportUsage', { rows: Array(2001).fill(row()) })).toEqual(['rows#maxItems']);
    expect(param('reportUsage', 'sourceId', x(32, 'f'))).toEqual([]);
    expect(param('reportUsage', 'sourceId', x(32, 'F'))).toEqual(['charset']);
    expect(param('reportUsage', 'sourceId', x(31, 'f'))).toEqual(['minLength']);
  });
});

describe('4.4, 4.5, 4.6 bodies', () => {
  it('4.4 "response: object … free-form object with arbitrary properties"', () => {
    expect(body('registerPasskey', { response: {}, statement: stmt })).toEqual([]);
    expect(body('registerPasskey', { response: { a: [1, { b: null }] }, statement: stmt })).toEqual([]);
    expect(body('registerPasskey', { response: [], statement: stmt })).toEqual(['response#type']);
    expect(body('registerPasskey', { response: 'x', statement: stmt })).toEqual(['response#type']);
    expect(body('registerPasskey', { response: null, statement: stmt })).toEqual(['response#not-null']);
  });
  it('4.5 every field optional (an empty body is allowed); "reason at most 200 characters"', () => {
    expect(body('revokeBrowser', {})).toEqual([]);
    expect(body('revokeBrowser', { reason: x(200, 'é') })).toEqual([]);
    expect(body('revokeBrowser', { reason: x(201) })).toEqual(['reason#maxLength']);
  });
  it('4.6 statements: an array of Statement with no stated bounds', () => {
    expect(body('changeUnlock', { statements: [] })).toEqual([]);
    expect(body('changeUnlock', { statements: Array(17).fill(stmt) })).toEqual([]);
    expect(REQUEST_CONSTRAINTS.filter((c) => c.endpoint === 'changeUnlock' && /Items|Length|^min$|^max$/.test(c.kind))).toEqual([]);
  });
});

describe('zod schemas carry their spec section', () => {
  it('tags every object schema with its section and name', () => {
    for (const e of ENDPOINTS) {
      const meta = schemasOf(e).body.meta();
      expect(meta?.description).toBe(`SPEC.md section ${e.section}`);
      expect(meta?.title).toBe(e.body.name);
    }
  });
});

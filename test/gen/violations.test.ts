import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONSTRAINT_BY_ID, ENDPOINTS } from '../../src/spec/index.ts';
import {
  allViolations,
  breaksOnlyItsLabel,
  requestIssues,
  validRequest,
  violationsFor,
  withAt,
  type ViolationCase,
} from '../../src/gen/index.ts';

/** `$.ops[3].envelope` → `ops[].envelope`. */
const template = (jsonPath: string) => jsonPath.replace(/^\$\.?/, '').replace(/\[\d+\]/g, '[]');

describe('violation generators', () => {
  for (const e of ENDPOINTS) {
    it(`every violation of ${e.id} fails, and only at its label`, () => {
      fc.assert(
        fc.property(allViolations(e.id), (v) => {
          const issues = requestIssues(e.id, v);
          expect(issues.length).toBeGreaterThan(0);
          for (const i of issues) expect({ scope: i.scope, kind: i.kind === v.label.alsoBreaks ? v.label.kind : i.kind, path: i.path }).toEqual({ scope: v.label.scope, kind: v.label.kind, path: v.label.template });
          // The label's own kind is always among them: a second kind is never all the case breaks.
          expect(issues.some((i) => i.kind === v.label.kind)).toBe(true);
          expect(breaksOnlyItsLabel(v)).toBe(true);
        }),
        { numRuns: 150, seed: 11 },
      );
    });
  }

  it('an exact-length pattern gets the full length then a newline (what `^[0-9a-f]{32}$` with a `$` before a final newline lets through), its one clause broken twice', () => {
    for (const id of ['reportUsage/params/sourceId#charset']) {
      const [v] = fc.sample(violationsFor(id, 'char:trailing-newline'), { numRuns: 1, seed: 3 });
      const value = v!.params['sourceId']!;
      expect(value).toMatch(/^[0-9a-f]{32}\n$/);
      expect(v!.label.alsoBreaks).toBe('maxLength');
      expect(new Set(requestIssues('reportUsage', v!).map((i) => i.kind))).toEqual(new Set(['charset', 'maxLength']));
    }
  });

  it('one op too many in creates only: every op a create of its own new artifact on a null base, the twin the same batch without its last op', () => {
    for (const v of fc.sample(violationsFor('commitOperations/body/ops#maxItems', 'max+1:creates'), { numRuns: 5, seed: 7 })) {
      const ops = (v.body as { ops: { type: string; base_revision_id: unknown; artifact_id: string }[] }).ops;
      expect(ops).toHaveLength(51);
      expect(new Set(ops.map((o) => `${o.type} ${String(o.base_revision_id)}`))).toEqual(new Set(['create null']));
      expect(new Set(ops.map((o) => o.artifact_id.toLowerCase())).size).toBe(51);
      expect(breaksOnlyItsLabel(v)).toBe(true);
      const twin = v.twin!.body as { ops: unknown[] };
      expect(twin.ops).toEqual(ops.slice(0, 50));
      expect(requestIssues('commitOperations', v.twin!)).toEqual([]);
    }
  });

  it('labels agree with the inventory entry they name', () => {
    for (const v of fc.sample(allViolations(), { numRuns: 300, seed: 5 })) {
      const c = CONSTRAINT_BY_ID.get(v.label.constraintId)!;
      expect(c).toBeDefined();
      expect([v.label.endpoint, v.label.scope, v.label.kind, v.label.section, v.label.template]).toEqual([c.endpoint, c.scope, c.kind, c.section, c.path]);
      expect(v.label.assumption).toBe(c.assumption);
      expect(v.label.scope === 'params' ? v.label.path : template(v.label.path)).toBe(c.path);
      expect(v.label.description).toContain(v.label.path);
    }
  });

  it('breaksOnlyItsLabel is false for a valid request and for a second break', () => {
    const [v] = fc.sample(violationsFor('commitOperations/body/ops[].envelope#charset'), { numRuns: 1, seed: 1 });
    const [ok] = fc.sample(validRequest('commitOperations'), { numRuns: 1, seed: 1 });
    expect(breaksOnlyItsLabel({ ...v!, params: ok!.params, body: ok!.body })).toBe(false);
    const twice = withAt(v!.body, ['operation_id'], 'not-a-uuid');
    expect(breaksOnlyItsLabel({ ...v!, body: twice })).toBe(false);
    expect(breaksOnlyItsLabel({ ...v!, params: { pouchId: 'nope' } })).toBe(false);
  });

  it('the uuid-case variants keep their case forms and the calendar ones carry the assumption', () => {
    const calendar = fc.sample(violationsFor('reportUsage/body/rows[].day#calendar'), { numRuns: 20, seed: 2 });
    expect(calendar.every((v) => v.label.assumption === 'day-calendar-valid')).toBe(true);
    const upper = fc.sample(violationsFor('commitOperations/params/pouchId#uuid', 'uuid:version-0'), { numRuns: 40, seed: 2 });
    expect(upper.some((v) => /[A-F]/.test(v.params.pouchId!))).toBe(true);
    expect(upper.every((v) => v.label.path === 'pouchId' && v.label.scope === 'params')).toBe(true);
  });

  // The runner shrinks a violation a target accepted; every step must still be that violation.
  const SHRINK = [
    'commitOperations/body/ops[].envelope#charset',
    'commitOperations/body/ops[].envelope#maxLength',
    'commitOperations/body/ops#maxItems',
    'commitOperations/body/ops[].base_revision_id#required',
    'commitOperations/body/ops[].key_gen#max',
    'commitOperations/body/ops[].type#enum',
    'commitOperations/params/pouchId#uuid',
    'reportUsage/params/sourceId#charset',
    'reportUsage/body/rows[].day#calendar',
    'reportUsage/body/rows[].input#type',
    'reportUsage/body/rows[].model#minLength',
    'revokeBrowser/body/roster.key_envelopes#maxItems',
    'revokeBrowser/body/roster.statements#minItems',
    'revokeBrowser/body/roster.key_envelopes[].key_gen#integer',
    'registerPasskey/body/response#type',
    'approveDevice/body/key_envelopes[].pouch_id#not-null',
    'changeUnlock/body/statements[]#type',
    'changeUnlock/body/$#type',
  ];
  it.each(SHRINK)('a shrunk violation of %s still breaks only its label', (id) => {
    const tried: ViolationCase[] = [];
    const r = fc.check(
      fc.property(violationsFor(id), (v) => {
        tried.push(v);
        return false; // a target that accepts everything: fast-check shrinks as far as it can
      }),
      { numRuns: 1, seed: 13 },
    );
    expect(r.failed).toBe(true);
    const shrunk = r.counterexample![0];
    expect(shrunk.label.constraintId).toBe(id);
    expect(breaksOnlyItsLabel(shrunk)).toBe(true);
    expect(tried.length).toBeGreaterThan(1);
    expect(tried.filter((v) => !breaksOnlyItsLabel(v)).map((v) => v.label.path)).toEqual([]);
  });
});

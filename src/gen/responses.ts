/**
 * Response-side generators: valid success envelopes (2.1 with each endpoint's `data`) and
 * envelopes breaking exactly one response constraint, labelled like request violations. The
 * client layer tests its classification of a target's answers with them.
 */
import fc from 'fast-check';
import { CONSTRAINT_BY_ID, ENDPOINT_BY_ID, INVENTORY, envelopeNode, issuesOf, schemasOf, type Constraint, type EndpointId } from '../spec/index.ts';
import { arbitraryOf } from './arbitrary.ts';
import { upperCased, type Edit } from './body.ts';
import { arrayDepth, concretePath, getAt, objectValue, toJsonPath, withAt, type Json, type JsonObject } from './json.ts';
import { labelOf, violationSpecs, type ViolationLabel } from './violations.ts';

export interface ResponseViolationCase {
  readonly label: ViolationLabel;
  /** The whole response body (the 2.1 envelope). */
  readonly body: Json;
}

export const RESPONSE_CONSTRAINTS: readonly Constraint[] = INVENTORY.filter((c) => c.scope === 'response');

function envelopeArbitrary(endpoint: EndpointId, require?: string): fc.Arbitrary<JsonObject> {
  // "Success responses carry ok true" (section 7): the schema only says boolean.
  return arbitraryOf(envelopeNode(ENDPOINT_BY_ID[endpoint].data), { require }).map((b) => ({ ...objectValue(b, `the ${endpoint} envelope`), ok: true }));
}

/** A valid success envelope of the endpoint. */
export function validResponse(endpoint: EndpointId): fc.Arbitrary<JsonObject> {
  return envelopeArbitrary(endpoint);
}

function responseConstraint(c: Constraint | string): Constraint {
  const k = typeof c === 'string' ? CONSTRAINT_BY_ID.get(c) : c;
  if (k?.scope !== 'response') throw new Error(`${String(typeof c === 'string' ? c : c.id)} is not a response constraint`);
  return k;
}

export function responseViolationsFor(constraint: Constraint | string, variant?: string): fc.Arbitrary<ResponseViolationCase> {
  const c = responseConstraint(constraint);
  const specs = violationSpecs(c).filter((s) => variant === undefined || s.variant === variant);
  if (specs.length === 0) throw new Error(`no violation variant ${variant ?? ''} for ${c.id}`);
  const depth = arrayDepth(c.path);
  return fc.oneof(
    ...specs.map((s) =>
      fc
        .record({ body: envelopeArbitrary(c.endpoint, c.path), picks: fc.array(fc.nat(), { minLength: depth, maxLength: depth }), edit: s.edit })
        .map(({ body, picks, edit }: { body: JsonObject; picks: number[]; edit: Edit }): ResponseViolationCase => {
          const at = concretePath(body, c.path, picks);
          if (!at) throw new Error(`generator bug: ${c.path} not present in a response generated to contain it`);
          const next = 'set' in edit ? withAt(body, at, edit.set) : 'upper' in edit ? withAt(body, at, upperCased(getAt(body, at))) : 'remove' in edit ? withAt(body, at, undefined) : body;
          return { label: labelOf(c, s, toJsonPath(at)), body: next };
        }),
    ),
  );
}

export function allResponseViolations(endpoint?: EndpointId): fc.Arbitrary<ResponseViolationCase> {
  return fc.oneof(...RESPONSE_CONSTRAINTS.filter((c) => endpoint === undefined || c.endpoint === endpoint).map((c) => responseViolationsFor(c)));
}

/** True iff the envelope breaks its label's constraint and nothing else. */
export function breaksOnlyItsResponseLabel(v: ResponseViolationCase): boolean {
  const issues = issuesOf(schemasOf(ENDPOINT_BY_ID[v.label.endpoint]).envelope, v.body);
  return issues.length > 0 && issues.every((i) => i.kind === v.label.kind && i.path === v.label.template);
}

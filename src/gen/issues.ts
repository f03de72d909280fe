/**
 * What the model says is wrong with a whole request: every broken constraint with its scope, so a
 * violation's label can be compared with exactly what the schemas report.
 */
import { ENDPOINT_BY_ID, issuesOf, schemasOf, type ConstraintKind, type EndpointId, type SchemaOptions } from '../spec/index.ts';
import type { RequestSample } from './json.ts';

export interface RequestIssue {
  readonly scope: 'params' | 'body';
  readonly kind: ConstraintKind;
  /** Template path inside the scope; a path parameter by its name. */
  readonly path: string;
  /** Concrete path (`['ops', 3, 'envelope']`); for a parameter, `[name]`. */
  readonly at: readonly PropertyKey[];
}

export function requestIssues(endpoint: EndpointId, req: RequestSample, options: SchemaOptions = {}): RequestIssue[] {
  const e = ENDPOINT_BY_ID[endpoint];
  const s = schemasOf(e, options);
  const out: RequestIssue[] = [];
  for (const [name, schema] of Object.entries(s.params)) {
    for (const i of issuesOf(schema, req.params[name])) out.push({ scope: 'params', kind: i.kind, path: name, at: [name] });
  }
  for (const i of issuesOf(s.body, req.body)) out.push({ scope: 'body', kind: i.kind, path: i.path, at: i.at });
  return out;
}

/** Generators derived from the spec model: valid requests, boundaries, violations, fresh ids. */
export * from './json.ts';
export * from './arbitrary.ts';
export * from './body.ts';
export * from './coherence.ts';
export * from './issues.ts';
export * from './valid.ts';
export * from './boundaries.ts';
export * from './violations.ts';
export * from './fresh.ts';
export { alphabetString, plainString, bmpChar, astralChar, type PlainRepertoire } from './strings.ts';
export { edgeUuid, versionedUuid, applyCase, caseForm, type CaseForm } from './uuid.ts';
export { edgeDay, randomDay, FIRST_DAY, LAST_DAY, DAY_YEARS } from './days.ts';
export * from './responses.ts';
export { seededRandom } from './seeded.ts';
export * from './coverage.ts';
export * from './unlisted.ts';

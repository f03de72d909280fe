/**
 * The vocabulary of constraints. Every rule the model states is one of these kinds at one JSON
 * path; schemas report failures with the same kind, so a violation's label can be checked against
 * exactly what the schema said.
 */
export const CONSTRAINT_KINDS = [
  'required', // field missing
  'not-null', // null where the field is not nullable
  'type', // wrong JSON type (number as string, object as array…)
  'integer', // a number that is not an integer (1.5)
  'min', // integer below its lower bound
  'max', // integer above its upper bound
  'minLength',
  'maxLength',
  'charset', // a character outside the allowed alphabet
  'pattern', // a structured format (day)
  'calendar', // a day that matches the pattern but is no calendar day (assumption `day-calendar-valid`)
  'uuid', // the 2.2 UUID rule
  'enum',
  'minItems',
  'maxItems',
] as const;

export type ConstraintKind = (typeof CONSTRAINT_KINDS)[number];

/** `['ops', 3, 'envelope']` → `ops[].envelope`: concrete paths folded onto the model's template paths. */
export function templatePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += '[]';
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

/** `['ops', 3, 'envelope']` → `$.ops[3].envelope`, for reports. */
export function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '$';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : `.${String(seg)}`;
  return out;
}

/** A problem with one field of a profile (or the variable it came from): `field: problem`, never the value. */
export class FieldError extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'FieldError';
  }
}

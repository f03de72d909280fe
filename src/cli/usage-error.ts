/**
 * Errors in pouchproof's own input: printed as one line, exit code 2. Apart from command.ts so the
 * library's declarations, which export it, need no yargs types.
 */
export class UsageError extends Error {}

/** The error for bad input to pouchproof itself lives with the session (the library throws it too). */
export { asUsage, UsageError } from '../session/index.ts';

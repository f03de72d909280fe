/** Reading a failure from Node or undici: errors wrap their causes, and the code that says what happened may sit on any of them. */

/** The codes on an error and its causes, outermost first. */
export function errorCodes(err: unknown): string[] {
  const out: string[] = [];
  let e: unknown = err;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') out.push(code);
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

/** The message of the innermost cause that has one, on one line. */
export function innermostMessage(err: unknown): string {
  let e: unknown = err;
  let msg = err instanceof Error ? err.message : String(err);
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    if (e instanceof Error && e.message) msg = e.message;
    e = (e as { cause?: unknown }).cause;
  }
  return msg.replace(/[\r\n]+/g, ' ');
}

/** Reading a failure from Node or undici: errors wrap their causes, and the code that says what happened may sit on any of them. */

/** The codes on an error and its causes, outermost first. */
export function errorCodes(err: unknown): string[] {
  return causeChain(err).flatMap((e) => ('code' in e && typeof e.code === 'string' ? [e.code] : []));
}

/** An error and its causes, outermost first; five deep at most, as a cause chain may loop. */
export function causeChain(err: unknown): object[] {
  const out: object[] = [];
  let e: unknown = err;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    out.push(e);
    e = 'cause' in e ? e.cause : undefined;
  }
  return out;
}

/** The message of the innermost cause that has one, on one line. */
export function innermostMessage(err: unknown): string {
  let e: unknown = err;
  let msg = err instanceof Error ? err.message : String(err);
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    if (e instanceof Error && e.message) msg = e.message;
    e = 'cause' in e ? e.cause : undefined;
  }
  return msg.replace(/[\r\n]+/g, ' ');
}

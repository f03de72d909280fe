/**
 * Ctrl-C handling shared by the long-running commands: the first Ctrl-C stops the run after the
 * requests in flight (the partial report is still written), the second exits at once.
 */
export function interruptible(onFirst: () => void = () => undefined): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  const handler = () => {
    if (ac.signal.aborted) {
      process.stderr.write('\npouchproof: interrupted again, exiting now\n');
      process.exit(130);
    }
    process.stderr.write('\npouchproof: stopping after the requests in flight (Ctrl-C again to quit at once)\n');
    ac.abort(new Error('interrupted'));
    onFirst();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: ac.signal,
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

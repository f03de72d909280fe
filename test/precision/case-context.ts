/**
 * One property case run by hand: a case context on the embedded reference served as `choice` says
 * (faults, readings, unnamed behaviours), the run told none of it (the registry's defaults). For tests
 * that call a property's `check` with a fixed input, or a support helper, against one server.
 */
import { createCaseContext, RequestCounter } from '../../src/check/run/context.ts';
import type { CaseContext } from '../../src/check/property.ts';
import { resolveAssumptions } from '../../src/spec/index.ts';
import { TargetClient } from '../../src/target/client.ts';
import { resolveTarget, type EmbeddedChoice, type ResolvedTarget } from '../../src/target/resolve.ts';
import { EMBEDDED_REFERENCE } from '../../src/reference/embedded.ts';

/** The context and its client (closed by the caller), and the target (closed by the caller, after its tests). */
export async function caseContextOn(choice: Omit<EmbeddedChoice, 'kind'>): Promise<{ readonly ctx: CaseContext; readonly client: TargetClient; readonly target: ResolvedTarget }> {
  const target = await resolveTarget({ kind: 'embedded', ...choice }, EMBEDDED_REFERENCE);
  const assumptions = resolveAssumptions({});
  const profile = { ...target.profile, assumptions };
  const client = new TargetClient(profile);
  return { ctx: createCaseContext({ profile, assumptions, client, signal: new AbortController().signal, counter: new RequestCounter(), embedded: true }), client, target };
}

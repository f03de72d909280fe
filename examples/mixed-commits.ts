/**
 * A scenario of one's own (docs/load.md, "Your own scenario"): 90 % one-op commits and 10 % maximal
 * ones (the most ops a commit may hold, SPEC.md section 8), across N pouches, every commit signed and
 * continuing its artifact's revision chain. Run it with
 *
 *   pouchproof load --scenario ./examples/mixed-commits.ts --param pouches=1000 --reference
 *
 * load.json then counts the two kinds apart (`kinds`: one-op, maximal). The README's example;
 * test/load/example-scenario.test.ts runs it and checks the mix.
 */
import { COMMIT_PARAMS, LIMITS, commitSource, defineScenario, num } from 'pouchproof';

export default defineScenario({
  name: 'mixed-commits',
  description: '90 % one-op commits, 10 % commits of the most ops a commit may hold, across N pouches',
  unit: 'ops',
  // The built-in commit parameters (ops, envelope, blobs, pouches, artifacts, member) and one of its own.
  params: [
    ...COMMIT_PARAMS,
    { name: 'maximal', description: 'percent of commits with the most ops a commit may hold', default: 10, kind: 'number', min: 0, max: 100 },
  ],
  createSource: (ctx) =>
    commitSource(ctx, {
      mix: [
        { kind: 'one-op', weight: 100 - num(ctx.params, 'maximal'), shape: { opsPerBatch: 1 } },
        { kind: 'maximal', weight: num(ctx.params, 'maximal'), shape: { opsPerBatch: LIMITS.opsPerCommit.max } },
      ],
    }),
});

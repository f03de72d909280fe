import COMMITS from '../../properties/commits.ts';
import RACES from '../../properties/races.ts';
import { propertySuite } from './suite.ts';

propertySuite('commits (4.2)', [...COMMITS, ...RACES], [
  { id: 'commits.stale-base-rejected', fault: 'stale-base-accepted', expect: 'failing' },
  // Only from the browser, whose unsigned commits (4.2) a case draws one time in four.
  { id: 'commits.stale-base-rejected', fault: 'browser-stale-base-accepted', expect: 'failing', runs: 25 },
  { id: 'commits.create-existing-rejected', fault: 'create-overwrites', expect: 'failing' },
  // That a create names no base is the registry's op-semantics=base-only; the spec shows no state rules.
  { id: 'commits.create-existing-rejected', fault: 'create-base-ignored', expect: 'assumption:op-semantics' },
  { id: 'commits.revision-reuse-rejected', fault: 'revision-reuse-accepted', expect: 'assumption:revision-id-unique' },
  { id: 'commits.batch-chains', fault: 'no-batch-chaining', expect: 'assumption:batch-chaining' },
  { id: 'commits.seq-increasing', fault: 'seq-per-batch', expect: 'assumption:seq-semantics' },
  { id: 'commits.seq-increasing', fault: 'high-water-stale', expect: 'assumption:seq-semantics' },
  // What seq means is not shown, but its range is (2.6): a seq beyond it is a violation.
  { id: 'commits.seq-increasing', fault: 'seq-snowflake', expect: 'failing' },
  { id: 'commits.atomic-batch', fault: 'partial-batch', expect: 'assumption:batch-atomicity' },
  // Not deduplicating operation_id is a reading of the registry (not-deduplicated), not a violation.
  { id: 'commits.operation-id-replay', fault: 'operation-id-ignored', expect: 'assumption:operation-id-idempotency' },
  { id: 'races.one-winner', fault: 'check-then-act-race', expect: 'failing', runs: 2 },
]);

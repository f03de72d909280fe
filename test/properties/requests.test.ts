import REJECTION from '../../properties/rejection.ts';
import ROSTER from '../../properties/roster.ts';
import SHAPES from '../../properties/shapes.ts';
import { propertySuite } from './suite.ts';

// The boundaries are in boundaries.test.ts: each file's coverage phase runs beside the other's.
propertySuite('shapes, rejection, roster', [...SHAPES, ...REJECTION, ...ROSTER], [
  { id: 'shapes.valid-accepted', fault: 'uuid-lowercase-only', expect: 'failing' },
  { id: 'shapes.response-envelope', fault: 'envelope-missing-request-id', expect: 'failing' },
  { id: 'shapes.response-envelope', fault: 'envelope-wrong-types', expect: 'failing' },
  { id: 'rejection.violations-rejected', fault: 'ops-limit-off-by-one', expect: 'failing' },
  { id: 'rejection.violations-rejected', fault: 'uuid-any-version', expect: 'failing' },
  { id: 'rejection.violations-rejected', fault: 'path-id-unvalidated', expect: 'failing' },
  { id: 'rejection.violations-rejected', fault: 'blob-ids-off-by-one', expect: 'failing' },
  { id: 'rejection.violations-rejected', fault: 'roster-statements-off-by-one', expect: 'failing' },
  { id: 'rejection.violations-rejected', fault: 'usage-rows-off-by-one', expect: 'failing' },
  { id: 'rejection.violations-rejected', fault: 'key-gen-zero-accepted', expect: 'failing' },
  // Found by the coverage phase, whatever the seed (one variant of one field).
  { id: 'rejection.violations-rejected', fault: 'lax-pattern', expect: 'failing' },
  { id: 'rejection.violations-rejected', fault: 'nullable-missing-as-null', expect: 'failing' },
  // Checking the day's pattern only is a reading of day-calendar-valid.
  { id: 'rejection.violations-rejected', fault: 'day-pattern-only', expect: 'assumption:day-calendar-valid' },
  { id: 'rejection.no-side-effect', fault: 'partial-batch', expect: 'assumption:batch-atomicity' },
  { id: 'roster.limits-only-in-roster', fault: 'roster-limits-everywhere', expect: 'failing' },
]);

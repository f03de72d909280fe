import BOUNDARIES from '../../properties/boundaries.ts';
import REJECTION from '../../properties/rejection.ts';
import ROSTER from '../../properties/roster.ts';
import SHAPES from '../../properties/shapes.ts';
import { propertySuite } from './suite.ts';

propertySuite('shapes, rejection, boundaries, roster', [...SHAPES, ...REJECTION, ...BOUNDARIES, ...ROSTER], [
  { id: 'shapes.valid-accepted', fault: 'uuid-lowercase-only', expect: 'failing' },
  { id: 'shapes.response-envelope', fault: 'envelope-missing-request-id', expect: 'failing' },
  { id: 'shapes.response-envelope', fault: 'envelope-wrong-types', expect: 'failing' },
  { id: 'rejection.violations-rejected', fault: 'ops-limit-off-by-one', expect: 'failing' },
  { id: 'rejection.violations-rejected', fault: 'uuid-any-version', expect: 'failing' },
  { id: 'rejection.violations-rejected', fault: 'path-id-unvalidated', expect: 'failing' },
  { id: 'rejection.no-side-effect', fault: 'partial-batch', expect: 'assumption:batch-atomicity' },
  { id: 'boundaries.limits-accepted', fault: 'roster-key-envelopes-exclusive', expect: 'failing' },
  { id: 'boundaries.limits-accepted', fault: 'uuid-nil-rejected', expect: 'failing' },
  // Counting UTF-16 units is a reading of characters-are-code-points.
  { id: 'boundaries.limits-accepted', fault: 'length-in-utf16', expect: 'assumption:characters-are-code-points', runs: 25 },
  { id: 'roster.limits-only-in-roster', fault: 'roster-limits-everywhere', expect: 'failing' },
]);

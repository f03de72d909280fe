import BOUNDARIES from '../../properties/boundaries.ts';
import { propertySuite } from './suite.ts';

propertySuite('boundaries', BOUNDARIES, [
  { id: 'boundaries.limits-accepted', fault: 'roster-key-envelopes-exclusive', expect: 'failing' },
  { id: 'boundaries.limits-accepted', fault: 'envelope-length-exclusive', expect: 'failing' },
  { id: 'boundaries.limits-accepted', fault: 'reason-length-exclusive', expect: 'failing' },
  { id: 'boundaries.limits-accepted', fault: 'ops-limit-exclusive', expect: 'failing' },
  { id: 'boundaries.limits-accepted', fault: 'uuid-nil-rejected', expect: 'failing' },
  // Counting UTF-16 units is a reading of characters-are-code-points.
  { id: 'boundaries.limits-accepted', fault: 'length-in-utf16', expect: 'assumption:characters-are-code-points', runs: 25 },
]);

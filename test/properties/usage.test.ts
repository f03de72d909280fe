import USAGE from '../../properties/usage.ts';
import { propertySuite } from './suite.ts';

propertySuite('usage (4.3)', USAGE, [
  { id: 'usage.idempotent', fault: 'refuse-everything', expect: 'failing' },
  { id: 'usage.idempotent', fault: 'usage-summed', expect: 'failing' },
  { id: 'usage.never-summed', fault: 'usage-summed', expect: 'failing' },
  { id: 'usage.never-summed', fault: 'usage-last-write-wins', expect: 'failing' },
  { id: 'usage.monotone', fault: 'usage-last-write-wins', expect: 'failing' },
  { id: 'usage.commutative', fault: 'usage-last-write-wins', expect: 'failing' },
  { id: 'usage.associative', fault: 'usage-summed', expect: 'failing' },
  // Per-field maxima is the registry's other reading of usage-row-key: an assumption, never a violation.
  { id: 'usage.monotone', fault: 'usage-per-field-max', expect: 'failing', runs: 25 },
  { id: 'usage.commutative', fault: 'usage-per-field-max', expect: 'failing' },
]);

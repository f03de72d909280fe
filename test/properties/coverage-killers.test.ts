import REJECTION from '../../properties/rejection.ts';
import { propertySuite } from './suite.ts';

// Faults in one variant of one field, which the coverage phase finds whatever the seed (the clean
// runs of these properties are in requests.test.ts).
propertySuite('rejection: faults the coverage phase finds', REJECTION, [
  { id: 'rejection.violations-rejected', fault: 'lax-pattern', expect: 'failing' },
  { id: 'rejection.violations-rejected', fault: 'nullable-missing-as-null', expect: 'failing' },
  // Checking the day's pattern only is a reading of day-calendar-valid.
  { id: 'rejection.violations-rejected', fault: 'day-pattern-only', expect: 'assumption:day-calendar-valid' },
], { clean: false });

import AUTH from '../../properties/auth.ts';
import SIGNATURES from '../../properties/signatures.ts';
import { propertySuite } from './suite.ts';

propertySuite('signatures and auth (5)', [...SIGNATURES, ...AUTH], [
  { id: 'signatures.header-required', fault: 'signature-header-optional', expect: 'failing' },
  { id: 'signatures.forgeries-rejected', fault: 'signature-zero-accepted', expect: 'failing' },
  { id: 'signatures.forgeries-rejected', fault: 'signature-alg-none', expect: 'failing' },
  { id: 'signatures.forgeries-rejected', fault: 'signature-not-verified', expect: 'failing' },
  { id: 'signatures.forgeries-rejected', fault: 'signature-partial-body', expect: 'failing' },
  { id: 'signatures.forgeries-rejected', fault: 'signature-kid-unbound', expect: 'assumption:kid-binding', runs: 25 },
  // A kid of nobody verified with the caller's key: kid-binding=bound's words refuse it, §5's do not.
  { id: 'signatures.forgeries-rejected', fault: 'signature-kid-fallback', expect: 'assumption:kid-binding', runs: 25 },
  { id: 'signatures.variants-accepted', fault: 'signature-low-s-only', expect: 'assumption:high-s-accepted' },
  { id: 'signatures.variants-accepted', fault: 'signature-raw-bytes', expect: 'assumption:canonical-json' },
  // A JWS header is JSON: members in another order, whitespace or a typ leave it a valid ES256 JWS (5).
  { id: 'signatures.variants-accepted', fault: 'signature-header-literal', expect: 'failing' },
  // How callers authenticate is not shown: both checks rest on registry readings.
  { id: 'auth.credentials-required', fault: 'auth-ignored', expect: 'assumption:credentials-required' },
  // Whatever the reading, a 5xx fails the run: a malformed Authorization header that crashes the server.
  { id: 'auth.credentials-required', fault: 'auth-scheme-500', expect: 'failing' },
  { id: 'auth.cross-account', fault: 'cross-account-access', expect: 'failing' },
]);

import ACCOUNT from '../../properties/account.ts';
import ROBUSTNESS from '../../properties/robustness.ts';
import { propertySuite } from './suite.ts';

propertySuite('account operations and robustness', [...ACCOUNT, ...ROBUSTNESS], [
  { id: 'approve.device-created', fault: 'approve-camel-case', expect: 'failing' },
  { id: 'passkeys.response-object', fault: 'passkey-data-null', expect: 'failing' },
  { id: 'revoke.ends-sessions', fault: 'revoke-keeps-sessions', expect: 'failing' },
  { id: 'unlock.head-seq', fault: 'unlock-head-seq-stuck', expect: 'assumption:head-seq-semantics' },
  { id: 'unlock.head-seq', fault: 'head-seq-not-integer', expect: 'failing' },
  { id: 'robustness.malformed-rejected', fault: 'malformed-json-500', expect: 'failing' },
  { id: 'robustness.malformed-rejected', fault: 'invalid-utf8-accepted', expect: 'failing' },
  { id: 'robustness.malformed-rejected', fault: 'duplicate-keys-last-wins', expect: 'assumption:duplicate-keys' },
  { id: 'robustness.malformed-rejected', fault: 'duplicate-keys-first-only', expect: 'assumption:duplicate-keys' },
  { id: 'robustness.malformed-rejected', fault: 'content-type-unchecked', expect: 'assumption:content-type-json-only' },
  { id: 'robustness.still-serving', fault: 'deep-nesting-crash', expect: 'failing' },
  { id: 'robustness.malformed-rejected', fault: 'dies-on-input', expect: 'failing' },
  { id: 'robustness.oversized-body', fault: 'body-cap-500', expect: 'failing' },
]);

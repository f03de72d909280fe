// Preloaded (node --require) into a pouchproof child by the memory tests: on exit, it writes the
// process's peak resident set (KiB, process.resourceUsage().maxRSS) to $POUCHPROOF_MAXRSS_FILE.
'use strict';
const { writeFileSync } = require('node:fs');
process.on('exit', () => {
  const file = process.env.POUCHPROOF_MAXRSS_FILE;
  if (file) writeFileSync(file, String(process.resourceUsage().maxRSS));
});

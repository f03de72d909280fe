// Preloaded (node --require) into the pouchproof child of bench/memory.bench.ts: on exit, it writes the
// process's peak resident set (KiB) and CPU time (µs, user and system) to $POUCHPROOF_USAGE_FILE as JSON.
'use strict';
const { writeFileSync } = require('node:fs');
process.on('exit', () => {
  const file = process.env.POUCHPROOF_USAGE_FILE;
  if (!file) return;
  const u = process.resourceUsage();
  writeFileSync(file, JSON.stringify({ maxRSS: u.maxRSS, userCPUTime: u.userCPUTime, systemCPUTime: u.systemCPUTime }));
});

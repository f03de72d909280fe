import { openTarget, runSession } from './src/session/index.ts';
const [kind, name] = process.argv.slice(2) as [string, string];
const t = await openTarget({}, kind === 'unnamed' ? { unnamed: [name] } : kind === 'fault' ? { faults: [name] } : {});
try {
  const { report } = await runSession(t, { seed: 1, runs: 10, readings: 'auto', maxDurationMs: 300_000, ...(process.env.ONLY ? { only: [process.env.ONLY] } : {}) }, { line: () => undefined });
  console.log(kind, name, 'exit', report.exitCode, JSON.stringify(report.totals));
  for (const p of report.properties) {
    const k = p.findings.map((f) => f.kind + (f.assumption ? `(${f.assumption})` : '')).join(',');
    if (p.status !== 'passed' || k) console.log(' ', p.status.padEnd(12), p.id.padEnd(34), k, p.inconclusive ?? '');
  }
  for (const p of report.properties) for (const f of p.findings) if (f.kind === 'violation' || f.kind === 'unknown') console.log('   ', f.kind, p.id, f.message.slice(0, 250));
} finally { await t.close(); }

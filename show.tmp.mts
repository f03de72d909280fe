import { readFileSync } from 'node:fs';
import { originalText } from '/work/wt-mutation/mutation/summary.ts';
const r = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
for (const [file, f] of Object.entries<any>(r.files)) for (const m of f.mutants) {
  if (m.status === 'Ignored') continue;
  const kb = m.status === 'Killed' ? (m.killedBy ?? []).join(',') : '';
  console.log(`${m.status.padEnd(10)} ${file.replace('src/reference/','')}:${m.location.start.line} ${m.mutatorName} | ${originalText(f.source, m).replace(/\s+/g,' ').slice(0,70)} -> ${String(m.replacement).replace(/\s+/g,' ').slice(0,40)} ${m.static?'STATIC':''} ${kb}`);
}

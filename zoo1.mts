import { ALL_PROPERTIES } from './properties/index.ts';
import { runZooCase } from './src/check/readings-zoo.ts';
const props = ALL_PROPERTIES.filter((p) => p.id !== 'performance.cost-growth');
for (const [name, value] of [['credentials-required','open'],['error-response','ok-false-any-status']] as const) {
  for (const mode of ['assume', 'default'] as const) {
    const r = await runZooCase(props, { label: `${name}=${value}`, readings: { [name]: value } as any }, mode, { seed: 1, runs: 2 });
    console.log(name, value, mode, JSON.stringify(r.falseAlarms.map((f) => `${f.kind} ${f.property}: ${f.message.slice(0, 300)}`), null, 1));
  }
}

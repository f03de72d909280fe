/**
 * A capacity search in the reports: the figure and every step in load.md, the knee charts
 * (latency percentiles and throughput against the offered rate, with the objective and the
 * capacity marked) in load.html, one line on the console.
 */
import { rateText, type CapacitySearch, type CapacityStep, type LoadRunResult, parseThreshold } from '../../load/index.ts';
import { esc } from '../html-text.ts';
import { lineChart, type Series } from '../svg-chart.ts';
import { ms, n0, pct } from './md.ts';

const STATUS_TEXT: Readonly<Record<CapacitySearch['status'], string>> = {
  found: 'knee found to the resolution',
  'at-max-rate': 'the highest rate allowed held: the knee is above it',
  'generator-limited': 'the load generator was the limit: the knee is not the target\'s',
  'budget-spent': 'the search ran out of steps or time before reaching the resolution',
  'none-within': 'no rate tried was within the objective',
  interrupted: 'interrupted',
};

export function capacityConsole(r: LoadRunResult): string[] {
  return r.capacity ? [r.capacity.message] : [];
}

function plan(c: CapacitySearch): string {
  return `Objective ${c.objective.map((o) => `\`${o}\``).join(', ')}; from ${rateText(c.startRate)} req/s doubling (or halving) to the first step beyond, then bisecting to ${(c.resolution * 100).toFixed(0)}%; `
    + `each step an open-model run of at least ${c.stepMs / 1000} s after a discarded warm-up; at most ${c.maxSteps} steps, ${c.budgetMs / 1000} s and ${n0(c.maxRate)} req/s. `
    + `${c.steps.length} steps took ${(c.elapsedMs / 1000).toFixed(1)} s: ${STATUS_TEXT[c.status]}.`;
}

const verdict = (s: CapacityStep): string => (s.within ? 'within' : `**beyond**: ${s.objective.filter((t) => !t.passed).map((t) => `${t.threshold} (${t.actualText})`).join(', ')}`);

export function capacityMarkdown(r: LoadRunResult): string {
  const c = r.capacity;
  if (!c) return '';
  const L = ['## Capacity', '', `**${c.message}**`, '', plan(c), ''];
  if (c.capacity !== undefined) L.push(`The sections below are the figures of the step at capacity (${rateText(c.capacity)} req/s).`, '');
  L.push('| step | phase | offered req/s | sent/s | answered/s | goodput/s | p50 ms | p90 ms | p99 ms | errors | verdict |', '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const s of c.steps) {
    L.push(`| ${s.index} | ${s.phase} | ${rateText(s.offered)} | ${n0(s.sent)} | ${n0(s.rps)} | ${s.goodput.toFixed(1)} | ${ms(s.latency.p50)} | ${ms(s.latency.p90)} | ${ms(s.latency.p99)} | ${pct(s.errorRate)} | ${verdict(s)}${s.generatorLimited ? ' (generator saturated)' : ''} |`);
  }
  const limited = c.steps.filter((s) => s.generatorLimited);
  const lastLimited = limited.at(-1);
  if (lastLimited) L.push('', `Load generator: at ${limited.map((s) => `${rateText(s.offered)}`).join(', ')} req/s ${lastLimited.generatorNote}.`);
  return L.join('\n');
}

/** Offered rates on a log scale when they span a factor of 4 or more, as doubling steps do. */
function axis(steps: readonly CapacityStep[]): { x: (rate: number) => number; ticks: ReadonlyArray<readonly [number, string]>; label: string } {
  const rates = [...new Set(steps.map((s) => s.offered))].sort((a, b) => a - b);
  // the axis is drawn only for a non-empty list of steps
  const log = rates.at(-1)! / rates[0] >= 4;
  const x = (rate: number): number => (log ? Math.log2(rate) : rate);
  // Bisection steps crowd around the knee: a tick only where its label has room.
  const span = Math.max(1e-9, x(rates.at(-1)!) - x(rates[0]));
  const ticks: Array<readonly [number, string]> = [];
  for (const r of rates) {
    // ticks is non-empty (checked on the same line)
    if (ticks.length > 0 && x(r) - ticks.at(-1)![0] < span / 9) {
      // The highest rate keeps its tick, at the expense of the one before.
      if (r !== rates.at(-1) || ticks.length === 1) continue;
      ticks.pop();
    }
    ticks.push([x(r), rateText(r)] as const);
  }
  return { x, ticks, label: `offered requests/s${log ? ' (log scale)' : ''}` };
}

const LATENCY_METRICS: Readonly<Record<string, (s: CapacityStep) => number>> = {
  p50: (s) => s.latency.p50, p90: (s) => s.latency.p90, p99: (s) => s.latency.p99, 'p99.9': (s) => s.latency.p999, max: (s) => s.latency.max,
};

function kneeSeries(c: CapacitySearch, x: (rate: number) => number, top: number): Series[] {
  return c.capacity === undefined ? [] : [{ name: `capacity ${rateText(c.capacity)}/s`, color: '#2ca02c', dashed: true, points: [[x(c.capacity), 0], [x(c.capacity), top]] }];
}

export function capacityCharts(r: LoadRunResult): string {
  const c = r.capacity;
  if (!c || c.steps.length === 0) return '';
  // By offered rate, not in the order the search visited them (a bisection zig-zags around the knee).
  const steps = [...c.steps].sort((a, b) => a.offered - b.offered || a.index - b.index);
  const { x, ticks, label } = axis(steps);
  // the chart is drawn only for a non-empty list of steps
  const lo = x(steps[0].offered), hi = x(steps.at(-1)!.offered);
  const objectives = c.objective.map(parseThreshold).filter((t) => t.metric in LATENCY_METRICS);
  // Far beyond the knee latency is the queue's length, not the server's: clip it a little above the objective.
  const clip = objectives.length ? 3 * Math.max(...objectives.map((t) => t.value)) : Infinity;
  const clipped = steps.some((s) => s.latency.p99 > clip);
  const lat = (name: 'p50' | 'p90' | 'p99', color: string): Series => ({ name: `${name} ms`, color, points: steps.map((s) => [x(s.offered), Math.min(clip, LATENCY_METRICS[name](s)) / 1000] as const) });
  const latency: Series[] = [lat('p50', '#1f77b4'), lat('p90', '#ff7f0e'), lat('p99', '#9467bd')];
  const top = Math.max(...latency.flatMap((s) => s.points.map((p) => p[1])));
  const bounds: Series[] = objectives.map((t) => ({ name: `objective ${t.source}`, color: '#d62728', dashed: true, points: [[lo, t.value / 1000], [hi, t.value / 1000]] }));
  const latencyChart = lineChart([...latency, ...bounds, ...kneeSeries(c, x, Math.max(top, ...bounds.map((b) => b.points[0][1])))], {
    title: `Latency against offered rate${clipped ? ` (clipped at ${clip / 1000} ms)` : ''}`, xLabel: label, yLabel: 'ms', xTicks: ticks,
  });
  const through: Series[] = [
    { name: 'offered/s', color: '#7f7f7f', dashed: true, points: steps.map((s) => [x(s.offered), s.offered] as const) },
    { name: 'answered/s', color: '#1f77b4', points: steps.map((s) => [x(s.offered), s.rps] as const) },
    { name: `goodput ${r.unit}/s`, color: '#ff7f0e', points: steps.map((s) => [x(s.offered), s.goodput] as const) },
  ];
  const peak = Math.max(...through.flatMap((s) => s.points.map((p) => p[1])));
  const throughputChart = lineChart([...through, ...kneeSeries(c, x, peak)], { title: 'Throughput against offered rate', xLabel: label, yLabel: 'per second', xTicks: ticks });
  return `${latencyChart}\n${throughputChart}`;
}

export function capacityHtml(r: LoadRunResult): string {
  const c = r.capacity;
  if (!c) return '';
  const rows = c.steps
    .map((s) => `<tr><td>${s.index}</td><td>${esc(s.phase)}</td><td>${rateText(s.offered)}</td><td>${n0(s.rps)}</td><td>${s.goodput.toFixed(1)}</td><td>${ms(s.latency.p50)}</td><td>${ms(s.latency.p99)}</td><td>${pct(s.errorRate)}</td><td class="${s.within ? 'ok' : 'bad'}">${s.within ? 'within' : 'beyond'}${s.generatorLimited ? ' (generator saturated)' : ''}</td></tr>`)
    .join('');
  return `<h2>Capacity</h2>
<p class="${c.capacity === undefined ? 'bad' : 'ok'}">${esc(c.message)}</p>
<p>${esc(plan(c).replace(/`/g, ''))}${c.capacity !== undefined ? ` The rest of this page shows the step at capacity (${rateText(c.capacity)} req/s).` : ''}</p>
${capacityCharts(r)}
<table><tr><th>step</th><th>phase</th><th>offered/s</th><th>answered/s</th><th>goodput/s</th><th>p50 ms</th><th>p99 ms</th><th>errors</th><th>verdict</th></tr>${rows}</table>`;
}

/**
 * The live figures of a run in the Prometheus text exposition format (`--metrics-listen`). Each
 * engine thread sends a cumulative snapshot a few times a second (live.ts); a scrape turns the
 * latest snapshot of every job into prom-client's metric objects and lets prom-client's aggregator
 * add them (as it does for a Node cluster) and write the exposition, escaping included.
 * Every series carries the scenario and the shard index ("0" when the run is not sharded), so the
 * shards of a `load k8s` run add up in PromQL with `sum without (shard, pod)`.
 * Counters of jobs that ended (an earlier sweep point, capacity step) stay in the sums, so they never
 * go down; gauges (in flight, rates, busy share) are those of the jobs now running.
 */
import { performance } from 'node:perf_hooks';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { LATENCY_BUCKETS_S, OUTCOMES, type Buckets, type LiveSnapshot } from './live.ts';
import { PHASES } from '../stats/phases.ts';


export interface LiveLabels {
  readonly scenario: string;
  readonly shard: number;
}

/** Where the snapshots of a run go: the main thread's sink (workers post to it through the parent). */
export interface LiveSink {
  /** A new set of jobs (a run, a sweep point, a capacity step) offering `offeredRate` req/s (open model). */
  begin(offeredRate: number | undefined): number;
  update(generation: number, worker: number, s: LiveSnapshot): void;
}

type Value = { value: number; labels: Record<string, string | number>; metricName?: string };
interface MetricJson {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  aggregator: 'sum';
  values: Value[];
}

/** A histogram's series: cumulative buckets up to +Inf, then its sum and count. */
function histogramValues(name: string, labels: Record<string, string | number>, b: Buckets): Value[] {
  const out: Value[] = [];
  let cumulative = 0;
  b.buckets.forEach((n, i) => {
    cumulative += n;
    out.push({ value: cumulative, labels: { ...labels, le: i < LATENCY_BUCKETS_S.length ? LATENCY_BUCKETS_S[i] : '+Inf' }, metricName: `${name}_bucket` });
  });
  out.push({ value: b.sumSeconds, labels, metricName: `${name}_sum` }, { value: cumulative, labels, metricName: `${name}_count` });
  return out;
}

const metric = (name: string, type: MetricJson['type'], help: string, values: Value[]): MetricJson => ({ name, help, type, aggregator: 'sum', values });

export class LiveMetrics implements LiveSink {
  private readonly jobs = new Map<string, { generation: number; worker: number; snapshot: LiveSnapshot }>();
  private generation = 0;
  private offered: number | undefined;
  /** performance.now() of the last snapshot received and of the last scrape: has the final figure been read? */
  private updatedAt = 0;
  private scrapedAt = -1;

  constructor(private readonly labels: LiveLabels) {}

  begin(offeredRate: number | undefined): number {
    this.offered = offeredRate;
    return ++this.generation;
  }

  update(generation: number, worker: number, snapshot: LiveSnapshot): void {
    this.jobs.set(`${generation}/${worker}`, { generation, worker, snapshot });
    this.updatedAt = performance.now();
  }

  /** Every snapshot received so far has been served to a scrape. */
  get read(): boolean {
    return this.scrapedAt >= this.updatedAt;
  }

  /** One job's snapshot as prom-client's JSON (what `registry.getMetricsAsJSON()` gives). */
  private json(job: { generation: number; worker: number; snapshot: LiveSnapshot }): MetricJson[] {
    const base = { scenario: this.labels.scenario, shard: this.labels.shard };
    const s = job.snapshot;
    const current = job.generation === this.generation;
    const requests: Value[] = [];
    const sent: Value[] = [];
    const latency: Value[] = [];
    for (const [operation, o] of Object.entries(s.operations)) {
      const l = { ...base, operation };
      sent.push({ value: o.sent, labels: l });
      o.outcomes.forEach((n, i) => {
        if (n > 0) requests.push({ value: n, labels: { ...l, outcome: OUTCOMES[i] } });
      });
      latency.push(...histogramValues('pouchproof_request_duration_seconds', l, o));
    }
    const phases = s.phases.flatMap((b, i) => histogramValues('pouchproof_request_phase_seconds', { ...base, phase: PHASES[i] }, b));
    const gauge = (value: number, extra: Record<string, string | number> = {}): Value[] => (current ? [{ value, labels: { ...base, ...extra } }] : []);
    return [
      metric('pouchproof_requests_total', 'counter', 'Requests settled, by operation and outcome (status class, transport_error, timeout, abandoned).', requests),
      metric('pouchproof_requests_sent_total', 'counter', 'Requests sent, by operation.', sent),
      metric('pouchproof_request_duration_seconds', 'histogram', 'Latency of settled requests from their intended send time (coordinated omission corrected, as in load.json).', latency),
      metric('pouchproof_request_phase_seconds', 'histogram', 'Phases of the answered requests: blocked, connect, tls (those two only when the request opened a connection), send, wait (time to first byte), receive.', phases),
      metric('pouchproof_requests_in_flight', 'gauge', 'Requests sent and not yet settled.', gauge(s.inFlight)),
      metric('pouchproof_achieved_rate', 'gauge', 'Responses per second over the last quarter second.', gauge(s.achievedRate)),
      metric('pouchproof_sent_rate', 'gauge', 'Requests sent per second over the last quarter second.', gauge(s.sentRate)),
      metric('pouchproof_generator_busy_ratio', 'gauge', 'Event-loop busy share of each generator thread (near 1: the generator, not the target, is the limit).', gauge(s.busy, { worker: job.worker })),
    ];
  }

  /** The registry of the moment, for `metrics()` and its content type. */
  registry(): Registry {
    this.scrapedAt = performance.now();
    const all = [...this.jobs.values()].map((j) => this.json(j));
    const offered = this.offered ?? 0;
    // The offered rate is the run's, not a job's: the open model's rate, or in the closed model what was sent.
    const sentNow = [...this.jobs.values()].filter((j) => j.generation === this.generation).reduce((a, j) => a + j.snapshot.sentRate, 0);
    all.push([metric('pouchproof_offered_rate', 'gauge', 'Requests per second offered: the open model\'s rate, or in the closed model the rate the connections sent.', [{ value: this.offered === undefined ? sentNow : offered, labels: { scenario: this.labels.scenario, shard: this.labels.shard } }])]);
    return AggregatorRegistry.aggregate(all);
  }
}

/**
 * `--metrics-listen` scraped by a real Prometheus (Debian's package; .ci/run installs it): a short
 * open-model run against the embedded reference, then PromQL through Prometheus' HTTP API gives the
 * request count load.json reports, within one scrape interval's worth of requests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tool } from '../tools.ts';
import { loadEmbedded } from './embedded.ts';

const PROMETHEUS = tool({
  names: ['prometheus'],
  override: 'PROMETHEUS',
  file: 'test/load/prometheus.test.ts',
  tests: 'the live-metrics scrape test is',
  install: 'apt-get install prometheus',
});

const SCRAPE_S = 1;
const dir = mkdtempSync(join(tmpdir(), 'pouchproof-prometheus-'));
let prometheus: ChildProcess | undefined;
afterAll(() => {
  if (prometheus?.pid !== undefined && prometheus.exitCode === null) prometheus.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

/** A port nothing listens on now (the OS's pick). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function until<T>(what: string, ms: number, f: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function query(api: string, promql: string): Promise<number | undefined> {
  const res = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as { status: string; data?: { result: Array<{ value: [number, string] }> } };
  const v = body.data?.result[0]?.value[1];
  return v === undefined ? undefined : Number(v);
}

describe.skipIf(PROMETHEUS.skip)('live metrics scraped by Prometheus', () => {
  it('PromQL gives the request count load.json reports, within one scrape interval', async () => {
    const bin = PROMETHEUS.need();
    const [metricsPort, promPort] = [await freePort(), await freePort()];
    writeFileSync(join(dir, 'prometheus.yml'), [
      'global:',
      `  scrape_interval: ${SCRAPE_S}s`,
      `  scrape_timeout: ${SCRAPE_S}s`,
      'scrape_configs:',
      '  - job_name: pouchproof',
      '    static_configs:',
      `      - targets: ['127.0.0.1:${metricsPort}']`,
      '',
    ].join('\n'));
    const api = `http://127.0.0.1:${promPort}`;
    const log: string[] = [];
    prometheus = spawn(bin, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${promPort}`, '--log.level=warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
    prometheus.stderr!.on('data', (d: Buffer) => log.push(d.toString()));
    await until(`prometheus ready (${log.join('').slice(-300)})`, 20_000, async () => ((await fetch(`${api}/-/ready`)).ok ? true : undefined));
    // Ready is not scraping yet: its discovery hands the static target to the scrape loop up to 5 s
    // later, which could miss a short run whole. Down (nothing listens yet) is enough: it is scraped.
    await until('prometheus to take the scrape target', 20_000, async () => {
      const body = (await (await fetch(`${api}/api/v1/targets`)).json()) as { data?: { activeTargets?: Array<{ lastScrape?: string }> } };
      return body.data?.activeTargets?.some((t) => t.lastScrape !== undefined && !t.lastScrape.startsWith('0001')) ? true : undefined;
    });

    const { result } = await loadEmbedded({ scenario: 'commit-throughput', rate: 200, durationMs: 4000, warmupMs: 300, workers: 1, metricsListen: `127.0.0.1:${metricsPort}` });
    expect(result.totals.completed).toBeGreaterThan(100);
    // The endpoint is gone now; max_over_time reads past the staleness marker its absence left.
    const scraped = await until('a scrape of the run', 5000, () => query(api, 'sum(max_over_time(pouchproof_requests_total{job="pouchproof",shard="0",scenario="commit-throughput"}[1m]))')).catch(async (e: Error) => {
      // Why Prometheus has nothing: its view of the target (last error, last scrape).
      const targets = await fetch(`${api}/api/v1/targets`).then((r) => r.text()).catch(() => '');
      throw new Error(`${e.message}; targets: ${targets.slice(0, 600)}; prometheus: ${log.join('').slice(-300)}`);
    });
    const perScrape = result.rates.rps * SCRAPE_S;
    expect(Math.abs(scraped - result.totals.completed), `Prometheus ${scraped}, load.json ${result.totals.completed}, one scrape ${perScrape.toFixed(0)} requests`).toBeLessThanOrEqual(perScrape);
    // The latency histogram counts the same requests; the offered rate is the run's.
    const histogram = await query(api, 'sum(max_over_time(pouchproof_request_duration_seconds_count{job="pouchproof"}[1m]))');
    expect(Math.abs(histogram! - result.totals.completed)).toBeLessThanOrEqual(perScrape);
    expect(await query(api, 'max(max_over_time(pouchproof_offered_rate{job="pouchproof"}[1m]))')).toBe(200);
    expect(await query(api, 'max(max_over_time(pouchproof_generator_busy_ratio{job="pouchproof"}[1m]))')).toBeGreaterThan(0);
    // Every answered request's phases: here every request was answered (none failed).
    expect(result.totals.errors).toBe(0);
    const waits = await query(api, 'sum(max_over_time(pouchproof_request_phase_seconds_count{job="pouchproof",phase="wait"}[1m]))');
    expect(Math.abs(waits! - result.totals.completed)).toBeLessThanOrEqual(perScrape);
  }, 45_000);
});

/**
 * `findings.har`: every finding's HTTP exchanges as an HTTP Archive (HAR 1.2), so they open in a
 * browser's network panel or a replay tool. One page per finding (its kind, property and evidence as
 * the title); entries in the order they were sent. Secrets were masked when the exchanges were
 * recorded; what pouchproof adds of its own goes in `_pouchproof` fields and comments, as HAR allows.
 */
import type { ExchangeReport, FindingReport, Report } from './report-json.ts';
import { nemesisWords } from './nemesis.ts';

interface HarHeader {
  readonly name: string;
  readonly value: string;
}

const headers = (h: Readonly<Record<string, string>>): HarHeader[] => Object.entries(h).map(([name, value]) => ({ name, value }));

function queryString(url: string): HarHeader[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function bodyComment(b: ExchangeReport['request']['body']): string | undefined {
  const notes = [b.encoding === 'base64' ? 'the body is not UTF-8: text holds its bytes in base64' : '', b.clipped ? `only the first part of the ${b.size}-byte body is kept` : ''].filter(Boolean);
  return notes.length ? notes.join('; ') : undefined;
}

function entry(ex: ExchangeReport, pageref: string, f: FindingReport): Record<string, unknown> {
  const res = ex.response;
  const headersMs = ex.timings.headersMs ?? ex.timings.totalMs;
  const reqComment = bodyComment(ex.request.body);
  const resComment = res ? bodyComment(res.body) : undefined;
  return {
    pageref,
    startedDateTime: ex.startedAt,
    time: ex.timings.totalMs,
    request: {
      method: ex.request.method,
      url: ex.request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headers(ex.request.headers),
      queryString: queryString(ex.request.url),
      ...(ex.request.body.size > 0
        ? { postData: { mimeType: ex.request.headers['content-type'] ?? 'application/octet-stream', text: ex.request.body.text, ...(reqComment ? { comment: reqComment } : {}) } }
        : {}),
      headersSize: -1,
      bodySize: ex.request.body.size,
    },
    response: {
      // HAR's convention for a request that got no response: status 0, and the reason beside it.
      status: res?.status ?? 0,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: res ? headers(res.headers) : [],
      content: {
        size: res?.body.size ?? 0,
        mimeType: res?.headers['content-type'] ?? '',
        ...(res ? { text: res.body.text } : {}),
        ...(res?.body.encoding ? { encoding: res.body.encoding } : {}),
        ...(resComment ? { comment: resComment } : {}),
      },
      redirectURL: res?.headers.location ?? '',
      headersSize: -1,
      bodySize: res ? res.body.size : -1,
      ...(res?.truncated ? { comment: 'the response was cut off (by its size cap or a transport failure)' } : {}),
      ...(res ? {} : { _error: ex.reason }),
    },
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: headersMs, receive: Math.max(0, ex.timings.totalMs - headersMs) },
    comment: `${f.kind} finding of ${f.property} (§${f.section}): exchange #${ex.id}, ${ex.verdict}: ${ex.reason}${ex.nemesis ? `; nemesis: ${nemesisWords(ex.nemesis)}` : ''}`,
    _pouchproof: { exchange: ex.id, endpoint: ex.endpoint, verdict: ex.verdict, reason: ex.reason, ...(ex.failure ? { failure: ex.failure } : {}) },
    ...(ex.nemesis ? { _pouchproof_nemesis: ex.nemesis } : {}),
  };
}

export function toHar(report: Report): string {
  const findings = report.properties.flatMap((p) => p.findings).flatMap((f) => (f.exchanges?.length ? [{ f, exchanges: f.exchanges }] : []));
  const pages = findings.map(({ f, exchanges }, i) => ({
    startedDateTime: exchanges[0].startedAt,
    id: `finding-${i + 1}`,
    title: `${f.kind}: ${f.property} (§${f.section}): ${f.message.split('\n')[0]}`,
    pageTimings: {},
    ...(f.replay ? { comment: `pouchproof replay ${f.replay}` } : {}),
  }));
  const entries = findings
    .flatMap(({ f, exchanges }, i) => exchanges.map((ex) => entry(ex, `finding-${i + 1}`, f)))
    .sort((a, b) => String(a.startedDateTime).localeCompare(String(b.startedDateTime)));
  const har = {
    log: {
      version: '1.2',
      creator: { name: 'pouchproof', version: report.tool.version },
      pages,
      entries,
      comment: `the findings of pouchproof run ${report.runId} against ${report.target.name} (${report.target.baseUrl}); values shown as *** are secrets from the profile`,
    },
  };
  return `${JSON.stringify(har, null, 2)}\n`;
}

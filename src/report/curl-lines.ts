/**
 * A finding's requests as curl lines, rendered when a report is written from the exchanges the
 * finding recorded (the runner keeps the exchanges as data, never the lines). The record masked the
 * profile's secrets already; a line says so when its request had any.
 */
import { clip, type RecordedExchange } from '../check/run/index.ts';
import { curlOf, type CurlRequest } from '../target/curl.ts';

/** Characters of one curl line, and bytes of a body written into one (a larger body is read from a file the line names). */
const MAX_CURL_CHARS = 8_000;

/** A recorded request as curl needs it: the body's bytes as kept, and whether it was cut. */
function requestOf(ex: RecordedExchange): CurlRequest {
  const b = ex.request.body;
  return {
    id: ex.id,
    endpoint: ex.endpoint,
    method: ex.request.method,
    url: ex.request.url,
    headers: ex.request.headers,
    body: Buffer.from(b.text, b.encoding === 'base64' ? 'base64' : 'utf8'),
    size: b.size,
    ...(b.clipped ? { bodyCut: true } : {}),
    ...(ex.route ? { route: ex.route } : {}),
    ...(ex.masked ? { masked: true } : {}),
  };
}

/** One recorded request as a curl line (a comment naming the request when it cannot be written as one). */
export function curlLine(ex: RecordedExchange): string {
  let line: string;
  try {
    line = curlOf(requestOf(ex), [], { maxBodyBytes: MAX_CURL_CHARS });
  } catch {
    line = `# ${ex.request.method} ${ex.request.url}`;
  }
  return clip(line, MAX_CURL_CHARS);
}

/** A finding's requests as curl lines, in the order sent; a leading `#` line counts the earlier requests of its case it did not keep. */
export function curlLines(f: { readonly exchanges?: readonly RecordedExchange[]; readonly omittedExchanges?: number }): string[] {
  const out = f.omittedExchanges ? [`# ${f.omittedExchanges} earlier request(s) of this case omitted`] : [];
  for (const ex of f.exchanges ?? []) out.push(curlLine(ex));
  return out;
}

/** A human-readable account of one exchange, for logs and reports; secrets masked. */
import type { Exchange } from './client.ts';
import { redact } from './redact.ts';

const BODY_PREVIEW_CHARS = 2000;

function preview(text: string): string {
  return text.length > BODY_PREVIEW_CHARS ? `${text.slice(0, BODY_PREVIEW_CHARS)}… (${text.length} chars)` : text;
}

export function formatExchange(ex: Exchange, secrets: readonly string[]): string {
  const r = ex.request;
  const lines: string[] = [];
  const status = ex.response ? String(ex.response.status) : 'no response';
  lines.push(`#${ex.id} ${ex.endpoint}: ${r.method} ${r.url} → ${status}: ${ex.verdict} (${ex.reason}) in ${Math.round(ex.timings.totalMs)} ms`);
  for (const [k, v] of Object.entries(r.headers)) lines.push(`> ${k}: ${v}`);
  if (r.body.byteLength > 0) lines.push(`> ${preview(Buffer.from(r.body).toString('utf8'))}`);
  if (ex.response) {
    for (const [k, v] of Object.entries(ex.response.headers)) lines.push(`< ${k}: ${v}`);
    if (ex.response.body !== '') lines.push(`< ${preview(ex.response.body)}${ex.response.truncated ? ' [incomplete]' : ''}`);
  }
  return redact(lines.join('\n'), secrets);
}

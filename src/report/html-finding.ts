/**
 * One finding as an HTML fragment for report.html: kind, ground, evidence, counterexample (a
 * sequence's numbered steps, each with its request), replay token, curl lines, the exchanges, and a
 * history's timeline. Everything from the report is escaped; secrets were masked when it was built.
 */
import { nemesisWords } from './nemesis.ts';
import type { ExchangeReport, FindingReport } from './report-json.ts';
import { esc } from './html-text.ts';
import { timelineSvg } from './timeline-svg.ts';
import { counterexampleText, curlLine, curlLines, mismatchLine, restsOnLine } from './finding-text.ts';

const pre = (s: string): string => `<pre>${esc(s)}</pre>`;

/** A case the property describes as numbered steps (`1. …`), one request each: the steps, else undefined. */
export function stepsOf(description: string | undefined): string[] | undefined {
  if (!description) return undefined;
  const steps = description.split('\n').map((l) => /^(\d+)\. (.*)$/.exec(l)).filter((m): m is RegExpExecArray => m !== null);
  return steps.length > 0 && steps.every((m, i) => Number(m[1]) === i + 1) ? steps.map((m) => m[2]) : undefined;
}

function statusText(ex: ExchangeReport): string {
  if (ex.response) return `${ex.response.status}${ex.response.truncated ? ' (cut off)' : ''}`;
  return ex.failure ?? 'no answer';
}

function bodyBlock(b: ExchangeReport['request']['body'], what: string): string {
  if (b.size === 0) return `<p class="muted">${what}: empty</p>`;
  const note = `${b.size} bytes${b.encoding === 'base64' ? ', not UTF-8: shown as base64' : ''}${b.clipped ? ', shown in part' : ''}`;
  return `<p class="muted">${what} (${esc(note)}):</p>${pre(b.text)}`;
}

const headerLines = (h: Readonly<Record<string, string>>): string => Object.entries(h).map(([k, v]) => `${k}: ${v}`).join('\n');

function exchangeHtml(ex: ExchangeReport): string {
  const path = ex.request.url.replace(/^[a-z]+:\/\/[^/]+/i, '');
  return `<details class="exchange"><summary><code>#${ex.id} ${esc(ex.request.method)} ${esc(path)}</code> → <b>${esc(statusText(ex))}</b> <span class="muted">${esc(ex.verdict)}, ${ex.timings.totalMs.toFixed(1)} ms, ${esc(ex.reason)}${ex.nemesis ? `; nemesis: ${esc(nemesisWords(ex.nemesis))}` : ''}</span></summary>
<p class="muted">sent ${esc(ex.startedAt)} to ${esc(ex.request.url)}</p>
${pre(headerLines(ex.request.headers))}${bodyBlock(ex.request.body, 'request body')}
${ex.response ? `<p class="muted">response ${ex.response.status}:</p>${pre(headerLines(ex.response.headers))}${bodyBlock(ex.response.body, 'response body')}` : `<p class="bad">no response: ${esc(ex.reason)}</p>`}
</details>`;
}

/** Numbered steps, each with its request (the last exchanges, one per step, and each one's curl line). */
function stepsHtml(steps: readonly string[], exchanges: readonly ExchangeReport[]): string {
  const items = steps.map((s, i) => {
    const ex = exchanges.length >= steps.length ? exchanges[exchanges.length - steps.length + i] : undefined;
    const c = ex ? curlLine(ex) : undefined;
    return `<li><span>${esc(s)}</span>${ex ? ` → <b>${esc(statusText(ex))}</b>` : ''}${c ? `<details><summary>curl</summary>${pre(c)}</details>` : ''}</li>`;
  });
  return `<ol class="steps">${items.join('')}</ol>`;
}

export function findingHtml(f: FindingReport, n: number): string {
  const [first = '', ...rest] = f.message.split('\n');
  const steps = stepsOf(f.description);
  const counterexample = counterexampleText(f);
  const curls = curlLines(f);
  const restsOn = restsOnLine(f);
  const facts: string[] = [];
  if (f.judgement) facts.push(`<dt>judgement</dt><dd><code>${esc(f.judgement)}</code></dd>`);
  if (f.assumption) facts.push(`<dt>reading</dt><dd><code>${esc(f.assumption)}</code></dd>`);
  if (f.ground) facts.push(`<dt>ground</dt><dd class="ground">${esc(f.ground)}</dd>`);
  if (f.mismatch) facts.push(`<dt>compared</dt><dd>${esc(mismatchLine(f.mismatch))}</dd>`);
  if (restsOn) facts.push(`<dt>evidence</dt><dd>${esc(restsOn)}</dd>`);
  if (f.occurrences !== undefined && f.occurrences > 1) facts.push(`<dt>cases</dt><dd>${f.occurrences}</dd>`);
  if (f.detectedAfterRequests !== undefined) facts.push(`<dt>found after</dt><dd>${f.detectedAfterRequests} requests of the run</dd>`);
  if (f.replay) facts.push(`<dt>replay</dt><dd><code class="replay">pouchproof replay ${esc(f.replay)}</code></dd>`);
  const parts = [
    `<article class="finding" id="finding-${n}" data-kind="${esc(f.kind)}">`,
    `<h3><span class="badge k-${esc(f.kind)}">${esc(f.kind)}</span> <code>${esc(f.property)}</code> <span class="muted">§${esc(f.section)}</span></h3>`,
    `<p class="evidence">${esc(first)}</p>`,
    rest.length ? pre(rest.join('\n')) : '',
    facts.length ? `<dl>${facts.join('')}</dl>` : '',
    f.timeline ? `<div class="svgwrap">${timelineSvg(f.timeline)}</div><p class="muted">Solid bars: answered (from send to answer). Dashed, open bars: no answer known (a timeout or a 5xx): it may have taken effect at any moment after it was sent, or not at all.</p>` : '',
    counterexample
      ? `<h4>Counterexample${f.shrinks !== undefined ? ` <span class="muted">(after ${f.shrinks} shrinks)</span>` : ''}</h4>` + (steps ? stepsHtml(steps, f.exchanges ?? []) : pre(counterexample))
      : '',
    curls.length ? `<details><summary>curl (${f.exchanges?.length ?? 0})</summary>${pre(curls.join('\n'))}</details>` : '',
    f.exchanges?.length ? `<details><summary>exchanges (${f.exchanges.length}; also in findings.har)</summary>${f.exchanges.map(exchangeHtml).join('\n')}</details>` : '',
    '</article>',
  ];
  return parts.filter(Boolean).join('\n');
}

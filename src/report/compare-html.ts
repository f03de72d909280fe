/**
 * `compare.html`: a comparison on one self-contained page: the targets, the divergences with each
 * side's verdict and repro lines, properties × targets and readings × targets (cells coloured by
 * what each side did), and the load figures when a load ran. Cells are shown as given, so a kind
 * this file does not know still shows.
 */
import type { Comparison } from '../compare/index.ts';
import { comparisonExitCode, sideExitCode } from '../check/run/index.ts';
import { reproLines, type LoadComparison } from './compare-reports.ts';
import { htmlPage } from './html-page.ts';
import { esc } from './html-text.ts';

const fmt = (n: number, d = 1): string => (Number.isFinite(n) ? n.toFixed(d) : '—');

/** A status cell's colour class: passed green, failing red, anything else amber. */
function cellClass(v: string): string {
  if (v === 'passed') return 's-passed';
  if (/^(failed|violation|server-error|crash)/.test(v)) return 's-failed';
  if (v === '' || v === 'skipped') return 's-skipped';
  return 's-inconclusive';
}

const table = (head: readonly string[], rows: readonly string[]): string =>
  `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('\n')}</tbody></table>`;

export function compareHtml(c: Comparison, load?: LoadComparison): string {
  const names = c.sides.map((s) => s.name);
  const sides = c.sides.map(
    (s) => `<tr><td><b>${esc(s.name)}</b></td><td>${esc(s.target)}${s.embedded ? ' <span class="muted">(embedded reference)</span>' : ''}</td><td>${esc(Object.entries(s.readings).map(([k, v]) => `${k}=${v}`).join(', ') || 'defaults')}</td><td class="n">${s.requests}</td><td>${sideExitCode(s)}${s.unreachable ? ` <span class="bad">${esc(s.unreachable)}</span>` : ''}</td></tr>`,
  );
  const divergences = c.divergences.map((d) => {
    const bySide = d.sides.map((s) => {
      const repro = reproLines(s.repro);
      return `<li><b>${esc(s.name)}</b>: <span class="badge ${cellClass(s.verdict)}">${esc(s.verdict)}</span>${s.detail ? ` ${esc(s.detail)}` : ''}${repro.length ? `<details><summary>repro (${repro.length})</summary><pre>${esc(repro.join('\n'))}</pre></details>` : ''}</li>`;
    });
    return `<article class="divergence" data-kind="${esc(d.kind)}"><h3><span class="badge ${d.kind === 'readings' ? 's-inconclusive' : 's-failed'}">${esc(d.kind)}</span> ${esc(d.title)}</h3>
${d.wrong?.length ? `<p>at fault by the spec's words: <b>${esc(d.wrong.join(', '))}</b></p>` : ''}${d.fields.length ? `<ul class="muted">${d.fields.map((f) => `<li><code>${esc(f)}</code></li>`).join('')}</ul>` : ''}<ul>${bySide.join('')}</ul></article>`;
  });
  const cells = (row: Readonly<Record<string, string>>): string => names.map((n) => `<td><span class="badge ${cellClass(row[n] ?? '')}">${esc(row[n] ?? '—')}</span></td>`).join('');
  const body = `<h1>pouchproof compare: ${esc(names.join(' vs '))}</h1>
<p>Seed ${c.seed}, ${c.runs} runs per property${c.only ? `, only ${esc(c.only.join(','))}` : ''}; ${c.casesCompared} cases compared; exit ${comparisonExitCode(c)}${c.interrupted ? ' (interrupted: partial)' : ''}; started ${esc(c.startedAt)}, ${(c.durationMs / 1000).toFixed(1)} s.</p>
${table(['target', 'url', 'readings (non-default)', 'requests', 'exit'], sides)}
<section id="divergences"><h2>Divergences (${c.divergences.length})</h2>
${divergences.length ? divergences.join('\n') : '<p>None: every target answered alike.</p>'}
${c.noiseCases ? `<p class="muted">${c.noiseCases} case(s) differed only in fields a target answers differently by itself (noise, not reported): ${esc(c.noise.map((n) => `${n.side} ${n.property} ${n.fields.join(', ')}`).join('; '))}</p>` : ''}
</section>
<section id="properties"><h2>Properties × targets</h2>
${table(['property', '§', ...names], c.properties.map((p) => `<tr><td><code>${esc(p.id)}</code></td><td>${esc(p.section)}</td>${cells(p.cells)}</tr>`))}
</section>
<section id="readings"><h2>Readings × targets</h2>
${table(['assumption', ...names, 'differ'], c.readings.map((r) => `<tr${r.differ ? ' class="differ"' : ''}><td><code>${esc(r.assumption)}</code></td>${names.map((n) => `<td title="${esc(r.details[n] ?? '')}">${esc(r.cells[n] ?? '')}</td>`).join('')}<td>${r.differ ? '<b>yes</b>' : ''}</td></tr>`))}
</section>
${load ? `<section id="load"><h2>Load: ${esc(load.scenario)} <span class="muted">(${esc(load.settings)}), one target after another</span></h2>
${table(['target', 'requests', 'req/s', 'ok/s', 'p50 ms', 'p99 ms', 'errors', 'checks'], load.rows.map((r) => `<tr><td>${esc(r.side)}</td><td class="n">${r.requests}</td><td class="n">${fmt(r.rps)}</td><td class="n">${fmt(r.okPerSecond)}</td><td class="n">${fmt(r.p50Ms, 2)}</td><td class="n">${fmt(r.p99Ms, 2)}</td><td class="n">${fmt(r.errorRate * 100, 3)}%</td><td>${esc(r.checks)}</td></tr>`))}
</section>` : ''}`;
  return htmlPage({
    title: `pouchproof compare: ${names.join(' vs ')}`,
    css: `.divergence{border:1px solid #ddd;border-left:4px solid #c62828;border-radius:4px;padding:4px 12px 8px;margin:12px 0}.divergence[data-kind=readings]{border-left-color:#b26a00}tr.differ{background:#fff8e1}`,
    body,
  });
}

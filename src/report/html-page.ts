/** The shell of the self-contained HTML reports (report.html, compare.html): one page, inline CSS, no network. */
import { esc } from './html-text.ts';

/** Styles every report page shares: text, tables, code, status colours. */
export const BASE_CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;color:#222;max-width:1000px;padding:0 16px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}h4{font-size:14px;margin:10px 0 4px}
table{border-collapse:collapse;width:100%}th,td{padding:3px 8px;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}td.n{text-align:right;white-space:nowrap}
pre{background:#f6f8fa;padding:8px;overflow-x:auto;white-space:pre-wrap;word-break:break-all;font-size:12px;margin:4px 0}
code{font-size:12.5px}.muted{color:#666;font-size:12.5px}details{margin:4px 0}summary{cursor:pointer}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;background:#888}
.ok{color:#1a7f37}.bad{color:#c62828;font-weight:600}.hidden{display:none}
.s-passed{background:#1a7f37}.s-failed{background:#c62828}.s-inconclusive{background:#b26a00}.s-error{background:#8e24aa}.s-skipped{background:#9e9e9e}.s-interrupted{background:#546e7a}`;

export function htmlPage(o: { readonly title: string; readonly css: string; readonly body: string; readonly script?: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(o.title)}</title>
<style>
${BASE_CSS}
${o.css}
</style></head><body>
${o.body}
${o.script ? `<script>${o.script}</script>\n` : ''}</body></html>
`;
}

/** The load reports (load.json, load.md, load.html, a shard's files, the console lines): renderings of a `LoadRunResult`, above src/load. */
export { writeLoadReport, loadReportFiles } from './files.ts';
export { toLoadJson, publicUrl, LOAD_JSON_VERSION } from './json.ts';
export { toLoadMarkdown, latencyScope, modelText, shardLines, thresholdName, ms, n0, pct, PHASES_NOTE } from './md.ts';
export { toLoadHtml } from './html.ts';
export { loadSection, spectraChart, spectrumChart, phasesSection, throughputChart, achievedChart, curveCharts, type LoadFigures } from './charts.ts';
export { baselineConsole, baselineMarkdown, baselineHtml } from './baseline.ts';
export { capacityConsole, capacityMarkdown, capacityCharts, capacityHtml } from './capacity.ts';
export { shardReportFiles } from './shard.ts';

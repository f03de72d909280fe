/** Reading discovery: which reading of each "not shown" a target takes (`pouchproof probe`, `--assume auto`). */
export { discoverReadings, nonDefault, type DiscoverOptions, type Discovery, type Mismatch } from './discover.ts';
export { DISCOVERABLE, type ProbeResult, type ProbeResultOf } from './result.ts';
export { probeClient } from './probe-client.ts';

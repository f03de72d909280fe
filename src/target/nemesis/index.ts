/** The nemesis: faults on pouchproof's own side of the wire (docs/nemesis.md). */
export { DEFAULT_RETRY, NEMESIS_FAULTS, NemesisSpecError, parseNemesis, partitionEnd, type NemesisFault, type NemesisPlan, type NemesisSummary, type PartitionWindow, type RetryPolicy } from './grammar.ts';
export { Nemesis, NEMESIS_RETRY_LINE, NEMESIS_RETRY_TAG, NEMESIS_TAG_HEADER, type NemesisCounts, type NemesisEvent, type Upstream } from './proxy.ts';
export { upstreamOf } from './upstream.ts';

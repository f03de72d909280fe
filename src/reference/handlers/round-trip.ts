/**
 * A store round trip, as a durable store's await would be. Only faults put one between a check and
 * its write (check-then-act races, a batch written in two parts); the correct reference never awaits
 * it, so no mutant of it can be seen.
 */
// Stryker disable next-line all: awaited only under faults
export const storeRoundTrip = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Milliseconds on a monotonic clock, for the indexer's timings and time
 * limits. Not `performance.now()`: in Node the first read of the global
 * `performance` loads perf_hooks and the modules behind it (~1-4 ms of CPU),
 * which a re-index would spend on nothing else (unless a docpilot.config.ts
 * goes through jiti, which loads them itself).
 */
export const now = (): number => Number(process.hrtime.bigint()) / 1e6

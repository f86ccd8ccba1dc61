/**
 * @loop/core/stats: statistics (sample summaries, Welch's t-test, bootstrap, Wilcoxon),
 * distributions (Student's t, normal, incomplete beta) and the seeded random source. For policy and
 * proposer authors who need them; the noise-aware keep policy and the TPE proposer use them.
 *
 * @packageDocumentation
 * @module @loop/core/stats
 */
export type { RandomSource } from './contracts/types.js';
export {
  median,
  summarizeSamples,
  welchTest,
  bootstrapMeanDifference,
  wilcoxonSignedRank,
} from './stats/statistics.js';
export type { SampleSummary, ComparisonResult, WilcoxonResult } from './stats/statistics.js';
export { studentTCdf, studentTQuantile, regularizedIncompleteBeta, normalCdf } from './stats/distributions.js';
export { createSeededRandom } from './stats/random.js';

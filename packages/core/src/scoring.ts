/**
 * @loop/core/scoring: the JSON scorer, metric extraction and metric-pattern checks, scorer option
 * schemas, and score comparison (`isBetter`, `improvement`). For hosts that read scores from files or
 * logs; `createRegexScorer` and `createValueScorer` are in `@loop/core`.
 *
 * @packageDocumentation
 * @module @loop/core/scoring
 */
export { isBetter, improvement } from './contracts/scorer.js';
export type { ScoreOk, ScoreCrash } from './contracts/scorer.js';
export { extractMetric, runFailure, regexScorerOptionsSchema, metricPatternSchema } from './scoring/regex-scorer.js';
export type { MetricMatch } from './scoring/regex-scorer.js';
export { checkMetricPattern, captureGroups, nestedQuantifier } from './scoring/metric-pattern.js';
export type { MetricPatternCheck } from './scoring/metric-pattern.js';
export { createJsonScorer, jsonScorerOptionsSchema, valueAtPath, lastJsonLine } from './scoring/json-scorer.js';
export type { JsonScorerOptions } from './scoring/json-scorer.js';

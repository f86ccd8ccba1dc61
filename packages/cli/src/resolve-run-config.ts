import { basename, dirname, join, normalize } from 'node:path';
import { evaluatorInvocation, type EvaluatorTarget } from '@loop/evaluators';
import { TARGET_TYPES, type TargetType } from './cli-constants.js';
import type { LoopConfig } from './config.js';

// The target types of seed 001's `/auto-iterate <target-type> <target-path>`.
export { TARGET_TYPES, type TargetType };

/** A config with everything a target implies filled in: what `createAutoIterate` is given. */
export interface ResolvedRunConfig {
  readonly targetFiles: string[];
  readonly readOnlyFiles: string[];
  readonly runCommand: string;
  readonly metricName: string;
  readonly direction: 'lower' | 'higher';
  /** results.tsv, relative to dir (seed 001: in the target's folder). */
  readonly resultsFile: string;
  /** dimensions.tsv beside it, for the built-in evaluators. */
  readonly dimensionsFile?: string;
  /** The evaluator's own files (absolute), fingerprinted. */
  readonly harnessFiles: string[];
  /** The branch suffix naming the target (seed 001: auto-iterate/<date>-<target>). */
  readonly targetSlug?: string;
}

const slug = (s: string) =>
  s
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'target';

/** The folder a target's results.tsv goes in, relative to dir (`''` for the root). */
export function targetFolder(type: TargetType, path: string): string {
  const p = normalize(path).replace(/\/+$/, '');
  const folder = type === 'skill' || type === 'code' ? dirname(p) : p;
  return folder === '.' ? '' : folder;
}

/**
 * Fills in what a config's `target` implies (seed 001's target types). `skill`, `skill-full` and
 * `memory` run the built-in evaluator from `@loop/evaluators` (metric `score`, higher is better,
 * its files fingerprinted, dimensions.tsv beside results.tsv); the target is the only mutable
 * path; a memory question set is read-only. `code` takes `targetFiles` (default: the file) and
 * your `runCommand`. results.tsv goes in the target's folder. Without a target the config is used
 * as written (results.tsv at the root).
 */
export function resolveRunConfig(config: LoopConfig): ResolvedRunConfig {
  const t = config.target;
  if (!t) {
    return {
      targetFiles: config.targetFiles ?? [],
      readOnlyFiles: config.readOnlyFiles,
      runCommand: config.runCommand ?? '',
      metricName: config.metricName ?? 'score',
      direction: config.direction,
      resultsFile: 'results.tsv',
      harnessFiles: [],
    };
  }
  const path = normalize(t.path).replace(/\/+$/, '');
  const scope = t.type === 'memory' && t.agent ? join(path, t.agent) : path;
  const folder = targetFolder(t.type, scope);
  const resultsFile = join(folder, 'results.tsv');
  const targetSlug = slug(
    t.type === 'skill' && basename(path).toLowerCase() === 'skill.md'
      ? basename(dirname(path)) === '.'
        ? 'skill'
        : basename(dirname(path))
      : basename(scope),
  );
  if (t.type === 'code') {
    return {
      targetFiles: config.targetFiles ?? [path],
      readOnlyFiles: config.readOnlyFiles,
      runCommand: config.runCommand ?? '',
      metricName: config.metricName ?? 'score',
      direction: config.direction,
      resultsFile,
      harnessFiles: [],
      targetSlug,
    };
  }
  const questions = t.type === 'memory' ? (t.questions ?? `${scope}.questions.json`) : undefined;
  const invocation = evaluatorInvocation(t.type as EvaluatorTarget, path, {
    ...(t.agent ? { agent: t.agent } : {}),
    ...(questions ? { questions } : {}),
  });
  return {
    targetFiles: [scope],
    readOnlyFiles: [
      ...config.readOnlyFiles,
      ...(questions && !config.readOnlyFiles.includes(questions) ? [questions] : []),
    ],
    runCommand: invocation.command,
    metricName: 'score',
    direction: 'higher',
    resultsFile,
    dimensionsFile: join(folder, 'dimensions.tsv'),
    harnessFiles: invocation.harnessFiles,
    targetSlug,
  };
}

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describeEarlierRuns, formatAutoIterateHistory } from '@loop/auto-iterate';
import { type IterationRecord, type Proposer } from '@loop/core';
import {
  createAgentCommandProposer,
  createConfigFileAdapter,
  createHyperparameterMutator,
  createTpeProposer,
  jsonCodec,
  type ConfigCodec,
} from '@loop/core/proposers';
import { createSeededRandom } from '@loop/core/stats';
import { readDiscardedDiffs } from '@loop/rollback-git';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { LoopConfig } from './config.js';
import { proposerConstraints } from './proposer-constraints.js';

/** The agent proposer's pid file, relative to the workspace. */
export const AGENT_PID_FILE = '.loop/agent.pgid';

/** A config's `writable` entry as an absolute path: `~/x` from the home folder, a relative one from `dir`. */
export function writablePath(dir: string, p: string): string {
  return p === '~' || p.startsWith('~/') ? join(homedir(), p.slice(1)) : resolve(dir, p);
}

/** How the TPE proposer reads and writes its config file: YAML for `.yaml`/`.yml`, else JSON. */
export function configCodecFor(file: string): ConfigCodec {
  return /\.ya?ml$/i.test(file)
    ? { parse: (text) => parseYaml(text) as unknown, stringify: (v) => stringifyYaml(v) }
    : jsonCodec;
}

/**
 * The proposer a config's `proposer` block names: `tpe` and `mutator` edit their config file
 * through an adapter on `dir` (a parallel candidate's working copy), `agent` runs the agent CLI
 * (sandboxed, its pid file at {@link AGENT_PID_FILE}, notes, discarded diffs and earlier runs in
 * its prompt); every one sees the constraints' violations (issue 28). `hidden` paths are masked in
 * the agent's sandbox (a sealed holdout).
 */
export function createProposer(
  config: LoopConfig,
  dir: string,
  resultsFile: string,
  onWarning: (m: string) => void,
  onNotice: (m: string) => void,
  hidden: string[] = [],
): Proposer {
  const p = config.proposer;
  const seen = proposerConstraints(config.constraints); // issue 28: the proposers see the constraints' violations
  if (p.type === 'tpe')
    return createTpeProposer({
      config: createConfigFileAdapter({ dir, file: p.file, codec: configCodecFor(p.file) }),
      space: p.space,
      seed: p.seed,
      ...seen.model,
      ...(p.costMetric === undefined ? {} : { cost: metricOf(p.costMetric) }),
    });
  // Through a config adapter on dir, so a parallel candidate's edit goes into its working copy (workingCopy.dir).
  if (p.type === 'mutator')
    return createHyperparameterMutator({
      config: createConfigFileAdapter({ dir, file: p.file }),
      space: p.space,
      random: createSeededRandom(p.seed),
      ...seen.model,
    });
  return createAgentCommandProposer({
    command: p.command,
    cwd: dir,
    goal: p.goal,
    timeoutMs: Math.round(p.timeoutS * 1000),
    formatHistory: formatAutoIterateHistory,
    pidFile: join(dir, AGENT_PID_FILE), // a SIGKILLed loop's agent (setsid daemons too) is ended before the next call
    sandbox: p.sandbox,
    writable: p.writable.map((w) => writablePath(dir, w)),
    network: p.network,
    onSandboxWarning: onWarning,
    onNoChange: onNotice,
    ...seen.prompt,
    // A sealed holdout's files and its scores' folder are masked in the agent's sandbox (issue 33).
    hidden,
    // Memory over a night (issue 29): notes in .loop/memory, the last discarded diffs, earlier runs' rows.
    notesLimits: { maxLines: p.notesMaxLines, maxBytes: p.notesMaxBytes },
    ...(p.discardedDiffs > 0
      ? { discardedDiffs: { read: (iterations) => readDiscardedDiffs(dir, iterations), count: p.discardedDiffs } }
      : {}),
    earlierRuns: () => describeEarlierRuns(dir, resultsFile),
  });
}

/** A row's metric `name` (`data.metrics`), the cost of a finished run (a pruned or crashed run has none). */
function metricOf(name: string): (record: IterationRecord) => number | undefined {
  return (record) => record.data?.metrics?.[name];
}

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AutoIterateHoldout } from '@loop/auto-iterate';
import { holdoutStateDir } from '@loop/core/policies';
import { bwrapStatus, type BwrapStatus } from '@loop/core/process';
import { z } from 'zod';
import { metricPatternSchema } from './metrics-config.js';

/** zod schema of the `holdout:` block (issue 33, docs/holdout.md): a sealed second evaluation. */
export const holdoutConfigSchema = z
  .object({
    command: z
      .string()
      .trim()
      .min(1, 'holdout.command must not be empty')
      .describe(
        "The holdout's shell command, run in dir on the state to score " +
          '(read-only there under bwrap), e.g. "node ' +
          '~/holdouts/names/eval-test.mjs". It prints "<metricName>: <value>".',
      ),
    metricName: z
      .string()
      .trim()
      .min(1, 'holdout.metricName must not be empty')
      .describe('The holdout\'s metric, printed by its command as "<name>: <value>".'),
    pattern: metricPatternSchema
      .optional()
      .describe("The holdout metric's extraction regex. Default ^<metricName>:\\s*(\\S+)."),
    direction: z
      .enum(['lower', 'higher'])
      .optional()
      .describe("Whether a lower or higher holdout score is better. Default the run's direction."),
    files: z
      .array(z.string().min(1))
      .min(1, "name the holdout's files (data, expected outputs, scripts)")
      .describe(
        "The holdout's files and folders: absolute, ~/..., or relative to dir " +
          '(then outside it, e.g. "../holdout"). They must lie outside the ' +
          'workspace and never have been in its git objects; they are hidden from ' +
          "the agent's sandbox and fingerprinted.",
      ),
    stateDir: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Where holdout scores and logs go: absolute or ~/... and outside the ' +
          'workspace. Default $XDG_STATE_HOME/loop/holdout/<workspace>-<hash> ' +
          '(~/.local/state/...).',
      ),
    gate: z
      .object({
        budget: z
          .number()
          .int()
          .positive()
          .describe(
            "Holdout evaluations the gate may make in a run (the incumbent's first " +
              'measurement included); then it says so and stops gating.',
          ),
        margin: z
          .number()
          .nonnegative()
          .default(0)
          .describe(
            "A keep is blocked when its holdout score is worse than the incumbent's by more than this. Default 0.",
          ),
      })
      .strict()
      .optional()
      .describe(
        'Gate each keep on the holdout, with a counted budget of uses. Default ' +
          'none: only the final sealed score when the run stops (and loop ' +
          'holdout).',
      ),
    sealed: z
      .boolean()
      .default(true)
      .describe(
        'Refuse to start unless the proposer is sealed from the holdout (an ' +
          'agent in bwrap). false runs anyway and the banner says NOT sealed. ' +
          'Default true.',
      ),
    timeBudgetS: z
      .number()
      .positive()
      .optional()
      .describe('Time budget of one holdout run in seconds. Default timeBudgetS.'),
    sandbox: z
      .enum(['auto', 'bwrap', 'none'])
      .default('auto')
      .describe(
        'Where the holdout command runs: auto (bwrap where it works: the ' +
          'workspace read-only, no network), bwrap or none. Default auto.',
      ),
  })
  .strict();

/** The parsed `holdout:` block. */
export type HoldoutConfig = z.infer<typeof holdoutConfigSchema>;

/** A holdout path: `~/x` from the home folder, a relative one from `dir`. */
export function holdoutPath(dir: string, p: string): string {
  return p === '~' || p.startsWith('~/') ? join(homedir(), p.slice(1)) : resolve(dir, p);
}

/** How the run's proposer stands towards a sealed holdout. */
export interface HoldoutSeal {
  /**
   * True when the proposer cannot read the holdout: an agent in a working bwrap (its files masked), or a built-in
   * proposer (TPE, mutator: in-process code that reads only its config file).
   */
  readonly sandboxed: boolean;
  /** One line for the banner. */
  readonly banner: string;
}

/**
 * Whether the proposer of `proposer` is sealed from the holdout here: an agent under `sandbox:
 * auto | bwrap` where bwrap works (its files and state folder are masked), or a built-in TPE or
 * mutator proposer (in-process, it reads only its config file and the visible rows).
 */
export function holdoutSeal(
  h: HoldoutConfig,
  proposer: { type: string; sandbox?: string },
  status: BwrapStatus = bwrapStatus(),
): HoldoutSeal {
  const gate = h.gate ? `; gate on keeps, ${h.gate.budget} uses, margin ${h.gate.margin}` : '; final score on stop';
  if (proposer.type !== 'agent')
    return {
      sandboxed: true,
      banner:
        `holdout   sealed: the built-in ${proposer.type} proposer reads only its ` +
        `config file and the visible rows${gate}`,
    };
  const sandboxed = proposer.sandbox !== 'none' && status.available;
  if (sandboxed)
    return {
      sandboxed,
      banner: `holdout   sealed: its files and scores are masked in the agent's bwrap sandbox${gate}`,
    };
  return {
    sandboxed,
    banner:
      `holdout   NOT sealed: the agent runs without a working sandbox and can ` +
      `read the holdout (holdout.sealed: false)${gate}`,
  };
}

/** The config's `holdout:` block as `createAutoIterate`'s `holdout`, with the state folder resolved. */
export function holdoutOptions(
  h: HoldoutConfig,
  dir: string,
  seal: HoldoutSeal,
  onNotice: (m: string) => void,
): AutoIterateHoldout & { stateDir: string } {
  return {
    command: h.command,
    metricName: h.metricName,
    ...(h.pattern !== undefined ? { pattern: h.pattern } : {}),
    ...(h.direction !== undefined ? { direction: h.direction } : {}),
    files: h.files.map((f) => holdoutPath(dir, f)),
    stateDir: h.stateDir !== undefined ? holdoutPath(dir, h.stateDir) : holdoutStateDir(dir),
    ...(h.gate ? { gate: h.gate } : {}),
    sealed: h.sealed,
    sandboxed: seal.sandboxed,
    ...(h.timeBudgetS !== undefined ? { timeBudgetS: h.timeBudgetS } : {}),
    sandbox: h.sandbox,
    onNotice,
  };
}

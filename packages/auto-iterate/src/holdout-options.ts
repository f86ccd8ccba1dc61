import { isAbsolute } from 'node:path';
import { z } from 'zod';

/**
 * `holdout` of {@link AutoIterateOptions}: a second evaluation the proposer cannot read (issue 33,
 * docs/holdout.md). Its command runs in `dir` on the state to score, under bwrap where it works
 * with the workspace read-only (the candidate's code cannot copy the holdout into the workspace),
 * its log and scores in `stateDir`; it is scored on the best state when the run stops and, with
 * `gate`, on each keep (a counted budget). Its files must lie outside `dir` and their bytes must not
 * be among the repository's objects: `run()` refuses to start with `HOLDOUT_NOT_SEALED` otherwise.
 */
export interface AutoIterateHoldout {
  /** The holdout's shell command, e.g. `node /data/holdout/eval.mjs`. */
  command: string;
  /** Its metric's name (`<name>: <value>` in its log). */
  metricName: string;
  /** Its extraction pattern. @default `^<metricName>:\s*(\S+)` */
  pattern?: string;
  /**
   * Which way its score improves: `minimize` / `maximize` (or the seed's `lower` / `higher`).
   * @default the run's `score.direction`
   */
  direction?: 'minimize' | 'maximize' | 'lower' | 'higher';
  /**
   * Absolute paths of its files and folders (data, expected outputs, scripts): outside `dir`, fingerprinted, masked
   * from the proposer.
   */
  files: string[];
  /**
   * Absolute folder of its scores and logs. @default core `holdoutStateDir(dir)` (under
   * `$XDG_STATE_HOME/loop/holdout/`)
   */
  stateDir?: string;
  /**
   * The keep gate: a keep whose holdout score is worse than the incumbent's by more than `margin` is not kept, `budget`
   * uses at most. @default none
   */
  gate?: { budget: number; margin?: number };
  /**
   * `false` runs without the seal's sandbox requirement (the run's banner must say NOT sealed).
   * The other checks (outside `dir`, not in git, one hard link) always apply. @default true
   */
  sealed?: boolean;
  /**
   * Whether the proposer runs in a working sandbox that masks `files` and `stateDir` (the CLI's
   * agent proposer under bwrap with `hidden`). An in-process proposer cannot be sealed: with
   * `sealed` true and this false the run refuses to start. @default false
   */
  sandboxed?: boolean;
  /** Time budget of one holdout run in seconds. @default the run's `run.timeBudgetS` */
  timeBudgetS?: number;
  /**
   * Where the holdout command runs: `auto` (bwrap where it works, the workspace read-only, no network), `bwrap` or
   * `none`. @default 'auto'
   */
  sandbox?: 'auto' | 'bwrap' | 'none';
  /** Hears one line per holdout use, without its score (e.g. stderr). @default nothing */
  onNotice?: (message: string) => void;
}

/** A direction: `minimize` / `maximize`, or seed 003's `lower` / `higher` (read as `minimize` / `maximize`). */
export const directionSchema = z
  .enum(['minimize', 'maximize', 'lower', 'higher'])
  .transform((d): 'minimize' | 'maximize' => (d === 'lower' ? 'minimize' : d === 'higher' ? 'maximize' : d));

/** zod schema of {@link AutoIterateHoldout}. */
export const autoIterateHoldoutSchema = z
  .object({
    command: z.string().trim().min(1, 'holdout.command must not be empty'),
    metricName: z.string().trim().min(1),
    pattern: z.string().min(1).optional(),
    direction: directionSchema.optional(),
    files: z
      .array(z.string().refine((p) => isAbsolute(p), 'holdout files must be absolute paths (outside dir)'))
      .min(1, "name the holdout's files"),
    stateDir: z
      .string()
      .refine((p) => isAbsolute(p), 'holdout.stateDir must be absolute')
      .optional(),
    gate: z
      .object({ budget: z.number().int().positive(), margin: z.number().nonnegative().default(0) })
      .strict()
      .optional(),
    sealed: z.boolean().default(true),
    sandboxed: z.boolean().default(false),
    timeBudgetS: z.number().positive().optional(),
    sandbox: z.enum(['auto', 'bwrap', 'none']).default('auto'),
    onNotice: z
      .custom<(m: string) => void>((f) => f === undefined || typeof f === 'function', 'onNotice must be a function')
      .optional(),
  })
  .strict();

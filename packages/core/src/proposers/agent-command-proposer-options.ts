import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { agentMemoryOptionsFields } from './agent-call-files.js';
import type { DiscardedDiff, NotesLimits } from './agent-memory.js';
import type { ConstraintsFunction } from '../policies/pareto-math.js';
import type { ProposalContext } from '../contracts/proposer.js';
import { sandboxOptionsFields, type SandboxOptions } from '../process/sandbox.js';
import type { HistoryFormatter } from './agent-prompt.js';

/**
 * Options of {@link createAgentCommandProposer}. Sandbox (see `sandbox.ts`): `sandbox` defaults to
 * `auto`, so where bwrap works the agent can write only its targets (the artifact's `mutable`
 * paths; the whole working directory when the loop has no artifact), a private `/tmp` and the
 * `writable` paths; everything else, the rest of the workspace (`.git`, `node_modules`, read-only
 * files) included, is read-only. A target file is writable through its folder (its other entries
 * bound read-only; see `planSandboxBinds`), so `sed -i`, temp-file-and-rename and editor backups
 * work; what the agent leaves beside a target is removed after the call (listed in the log).
 * `network` defaults to true (an agent CLI talks to its model's API). An agent CLI that keeps
 * state in your home (`~/.claude`, `~/.codex`) needs that folder in `writable`.
 */
export interface AgentCommandProposerOptions extends SandboxOptions {
  /**
   * The agent CLI, run with `/bin/sh -c` in `cwd`; it gets the prompt on stdin. For example `claude -p` or `codex exec
   * -`.
   */
  command: string;
  /**
   * Absolute working directory (the workspace); in a parallel batch the candidate's `workingCopy.dir` is used instead.
   */
  cwd: string;
  /** Hard timeout of one agent call in ms; the whole process tree is killed past it. @default 600000 */
  timeoutMs?: number;
  /** The agent's output log, relative to `cwd` (overwritten each call). @default '.loop/agent.log' */
  logFile?: string;
  /** What the loop optimises, in one paragraph (goes at the top of the prompt). */
  goal: string;
  /** Replaces the default prompt builder. */
  buildPrompt?: (context: ProposalContext) => string;
  /** Renders the history in the default prompt. @default {@link formatHistoryTable} */
  formatHistory?: HistoryFormatter;
  /**
   * Constraints, Optuna-style (one value per constraint, `<= 0` feasible; read `record.data.metrics`):
   * the default prompt then lists, after the history, one line per violated constraint of each
   * row (see `formatViolations`), so the agent sees which edits broke which bound. @default none
   */
  constraints?: ConstraintsFunction;
  /** Names of the constraints, in the order `constraints` returns them. @default `constraint 1`, ... */
  constraintNames?: readonly string[];
  /** Extra environment variables. */
  env?: Record<string, string>;
  /**
   * Absolute path of a pid file recording the running agent (see core `runInGroup`); a call that
   * finds it from a SIGKILLed controller first ends that agent's processes, `setsid` daemons
   * included. Overlapping calls (parallel candidates) each take their own slot file (`pidFile`,
   * `pidFile.1`, ...) and never end a live sibling's agent. @default none
   */
  pidFile?: string;
  /**
   * Receives a few lines when a call exited 0 but changed no target file: the iteration, the
   * log's path and its last 10 lines, and whether the sandbox refused a write (the CLI prints
   * them). The row's description carries the exit code and the log's last 3 lines either way.
   * @default none
   */
  onNoChange?: (message: string) => void;
  /**
   * The agent's own folder, relative to `cwd` (the main workspace, also in a parallel batch):
   * writable inside the sandbox, kept by `loop run --new`. It holds `notes.md`, the notes the agent
   * may append to (path in `LOOP_NOTES_FILE`; carried into every next prompt, newest first, bounded
   * by `notesLimits`), and `usage.json`, where an agent CLI (or its wrapper) may write what the call
   * cost (path in `LOOP_USAGE_FILE`; removed before each call; see `parseUsageFile`). `false`: no
   * folder, no notes, no usage file. @default '.loop/memory'
   */
  memoryDir?: string | false;
  /** How much of the notes goes into a prompt. @default {@link NOTES_LIMITS} (40 lines, 4096 bytes) */
  notesLimits?: NotesLimits;
  /**
   * The last discarded candidates' diffs for the prompt: `read` gets the iterations (the last
   * `count` reverted or crashed rows that were committed) and returns their diffs (rollback-git's
   * `readDiscardedDiffs`); each diff is cut to `maxBytes`. A read that throws leaves the section
   * out. @default none (count 3, maxBytes 4000)
   */
  discardedDiffs?: {
    read: (iterations: readonly number[]) => Promise<readonly DiscardedDiff[]>;
    count?: number;
    maxBytes?: number;
  };
  /** Lines about earlier runs in the workspace for the prompt (where their rows and notes are). @default none */
  earlierRuns?: () => Promise<readonly string[]> | readonly string[];
}

/** zod schema of {@link AgentCommandProposerOptions}. */
export const agentCommandProposerOptionsSchema = z.object({
  command: z.string().trim().min(1, 'command must not be empty'),
  cwd: z.string().refine((p) => isAbsolute(p), 'cwd must be an absolute path'),
  timeoutMs: z.number().int().positive().default(600_000),
  logFile: z.string().min(1).default('.loop/agent.log'),
  goal: z.string().min(1, 'goal must not be empty'),
  buildPrompt: z.custom<(c: ProposalContext) => string>((f) => f === undefined || typeof f === 'function').optional(),
  formatHistory: z
    .custom<HistoryFormatter>((f) => f === undefined || typeof f === 'function', 'formatHistory must be a function')
    .optional(),
  constraints: z
    .custom<ConstraintsFunction>((f) => f === undefined || typeof f === 'function', 'constraints must be a function')
    .optional(),
  constraintNames: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).default({}),
  pidFile: z
    .string()
    .refine((p) => isAbsolute(p), 'pidFile must be an absolute path')
    .optional(),
  onNoChange: z
    .custom<(message: string) => void>(
      (f) => f === undefined || typeof f === 'function',
      'onNoChange must be a function',
    )
    .optional(),
  ...agentMemoryOptionsFields,
  ...sandboxOptionsFields,
});

// The stop conditions of a run in a loop config file (maxIterations, plateau, stopAfterNoChange,
// targetScore, wallClockS, costBudget, tokenBudget): fields of loopConfigSchema (config.ts).
import { z } from 'zod';

/**
 * The zod fields of a config file that stop a run: an iteration cap, a plateau, a streak of no-change
 * iterations, a target score, a wall-clock limit (seconds) and agent spend budgets (US dollars, tokens).
 * Spread into loopConfigSchema's object (config.ts) in this order (the JSON Schema keeps the key order).
 */
export const stopConditionFields = {
  maxIterations: z
    .number()
    .int()
    .nonnegative()
    .default(0)
    .describe('Iterations after the baseline; 0 runs until interrupted. Default 0.'),
  plateau: z.number().int().positive().optional().describe('Stop after this many iterations in a row without a keep.'),
  stopAfterNoChange: z
    .number()
    .int()
    .nonnegative()
    .default(5)
    .describe(
      'Stop after this many iterations in a row that changed no target file ' +
        '(no change: not evaluated): the proposer has nothing left to try or ' +
        'cannot write its targets. 0 never stops for this. Default 5.',
    ),
  targetScore: z.number().optional().describe('Stop once the best score reaches this value.'),
  wallClockS: z.number().positive().optional().describe('Stop after this many seconds in total.'),
  costBudget: z
    .number()
    .positive()
    .finite()
    .optional()
    .describe(
      "Stop before a proposal that would take the agent's spend over this many " +
        "US dollars: the rows' cost (what the agent CLI reported) plus the mean " +
        'cost of one proposal so far. See docs/agents-overnight.md.',
    ),
  tokenBudget: z.number().int().positive().optional().describe('The same for tokens.'),
};

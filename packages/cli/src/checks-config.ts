import { z } from 'zod';

/**
 * zod schema of the `checks: { command, timeoutS, onFail }` block: the correctness command a
 * candidate must pass before it is kept (core's command guard).
 */
export const checksSchema = z
  .object({
    command: z
      .string()
      .trim()
      .min(1, 'checks.command must not be empty')
      .describe(
        'The correctness command (e.g. "npm test"), run in dir for every ' +
          'candidate that would be kept; a non-zero exit or a timeout blocks the ' +
          'keep.',
      ),
    timeoutS: z
      .number()
      .positive()
      .default(300)
      .describe('Hard timeout of the checks command in seconds. Default 300.'),
    onFail: z
      .enum(['reject', 'halt'])
      .default('reject')
      .describe(
        'reject: the candidate is discarded with the reason in its description; halt: the run stops. Default reject.',
      ),
  })
  .strict();

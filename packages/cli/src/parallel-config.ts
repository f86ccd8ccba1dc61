import { z } from 'zod';

const relativePath = z.string().min(1);

/**
 * zod schema of the `parallel: { candidates, workers? }` block (issue 15): core's parallel candidates through
 * `createAutoIterate`'s `parallel`.
 */
export const parallelSchema = z
  .object({
    candidates: z
      .number()
      .int()
      .min(1)
      .max(256)
      .describe(
        'K: candidates proposed and evaluated per batch, each in its own working ' +
          'copy; the best one that passes is kept, the others are discards ' +
          '(refs/loop/discarded/<n>).',
      ),
    concurrency: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Candidates evaluated at once, at most candidates. Default candidates.'),
    remeasureIncumbent: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'Re-run the incumbent this many times per batch alongside the candidates ' +
          'and decide against those samples (timing metrics). Default 0.',
      ),
    schedule: z
      .enum(['batch', 'async'])
      .optional()
      .describe(
        'batch: K candidates, then wait for the slowest (rows do not depend on ' +
          'timing); async: a freed slot starts the next candidate at once, ' +
          'decisions still in iteration order (no idle core while a slow or pruned ' +
          'run ends). Default batch.',
      ),
    link: z
      .array(relativePath)
      .default([])
      .describe(
        'Paths (relative to dir) symlinked into each working copy instead of ' +
          'copied, e.g. node_modules or a data set; on workers, the same names must ' +
          'be given with loop worker --link.',
      ),
    workers: z
      .object({
        redis: z
          .string()
          .regex(/^rediss?:\/\//, 'redis must be a redis:// or rediss:// URL')
          .describe('The Redis the workers (loop worker --redis URL) listen on, e.g. redis://10.0.0.5:6379.'),
        queue: z
          .string()
          .min(1)
          .optional()
          .describe('The queue name; must match loop worker --queue. Default loop-candidates.'),
        remote: z
          .string()
          .min(1)
          .optional()
          .describe(
            'The git remote the workers fetch the base commit from (a path on a ' +
              'shared file system or ssh://host/path). Default: dir itself.',
          ),
      })
      .strict()
      .optional()
      .describe(
        'Evaluate candidates on a worker pool over BullMQ and Redis ' +
          '(docs/many-machines.md) instead of in local copies; the baseline and ' +
          're-measures run on the pool too.',
      ),
  })
  .strict()
  .refine((p) => p.concurrency === undefined || p.concurrency <= p.candidates, {
    message: 'concurrency must be at most candidates',
    path: ['concurrency'],
  })
  .refine((p) => !(p.schedule === 'async' && (p.remeasureIncumbent ?? 0) > 0), {
    message: 'remeasureIncumbent needs schedule batch',
    path: ['remeasureIncumbent'],
  });

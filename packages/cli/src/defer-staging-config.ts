import { z } from 'zod';

const RULE = 'must be a whole number of bytes (0 or more) or .inf';

/**
 * zod schema of the config field `deferStagingAt` (issue 31, `@loop/rollback-git`'s option of that
 * name): bytes of `.git/index` from which a candidate's staging waits for its keep. YAML's `.inf`
 * means never and is read as `Number.MAX_SAFE_INTEGER` (no index is that large), because the JSON
 * Schema shipped for editors cannot say Infinity. Absent: the rollback's default (1 MiB).
 */
export const deferStagingAtSchema = z
  .preprocess(
    (value) => (value === Infinity ? Number.MAX_SAFE_INTEGER : value),
    z.number({ error: RULE }).int({ error: RULE }).nonnegative({ error: RULE }),
  )
  .optional()
  .describe(
    'Index size in bytes from which a discarded candidate writes no index (its staging waits ' +
      'for the keep). Default 1048576; .inf for a harness that reads the index.',
  );

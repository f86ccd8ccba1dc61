import { LoopError } from '@loop/core';
import type { z } from 'zod';

/**
 * Calls one round worker step and validates its result. A throw becomes `code` (a `LoopError`
 * passes through); an invalid result is `code` naming each invalid field.
 *
 * @throws {LoopError} `PROPOSER_FAILED` (improve) or `HARNESS_FAILED` (evaluate).
 */
export async function callWorker<S extends z.ZodType>(
  fn: () => unknown,
  schema: S,
  worker: string,
  step: string,
  code: 'PROPOSER_FAILED' | 'HARNESS_FAILED',
): Promise<z.output<S>> {
  let value: unknown;
  try {
    value = await fn();
  } catch (error) {
    if (error instanceof LoopError) throw error;
    throw new LoopError(
      code,
      `[loop] [autotune] round worker "${worker}" failed ` +
        `in ${step}: ${(error as Error).message}; loop_state.json is unchanged, ` +
        `so the next iteration runs this round again`,
      { cause: error, details: { worker, step } },
    );
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const list = result.error.issues
    .map((i) => `field ${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
    .join('; ');
  throw new LoopError(code, `[loop] [autotune] round worker "${worker}" returned an invalid ${step} result: ${list}`, {
    cause: result.error,
    details: { worker, step },
  });
}

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { LoopError } from '@loop/core';

/**
 * The rubric fingerprint (seed 002 setup step 7): SHA-256 (hex) over the exact bytes of the
 * harness-defining files concatenated in the given, fixed order (the active mode's criteria YAML,
 * then `{{WORKSPACE}}/.claude/agents/reflection-agent.md`). The same files in another order give
 * another hash, so callers must pass them in one fixed order.
 *
 * @throws {LoopError} `HARNESS_TAMPERED` naming the file when one is missing or unreadable.
 */
export async function computeRubricFingerprint(files: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of files) {
    try {
      hash.update(await readFile(file));
    } catch (error) {
      throw new LoopError(
        'HARNESS_TAMPERED',
        `[loop] [autoresearch] rubric file ${file} is missing or unreadable; the ` +
          `harness must stay fixed for the whole pass`,
        { cause: error, details: { file } },
      );
    }
  }
  return hash.digest('hex');
}

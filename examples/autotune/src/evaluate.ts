import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { TaskResult } from '@loop/autotune';

/**
 * The evaluation set: each task is a small JS function in `tasks/<id>.mjs` checked against the vectors in
 * `eval/vectors.json`.
 */
export const TASK_IDS = ['clamp', 'slugify', 'median', 'left-pad', 'roman', 'parse-duration'] as const;

type Vectors = Record<string, Array<[unknown[], unknown]>>;

/**
 * Runs every task of `tasksDir` against `vectorsPath`: a task passes when every vector's output
 * deep-equals the expected value. Modules are imported by content hash, so a changed file is
 * re-imported in the same process.
 */
export async function evaluateTasks(tasksDir: string, vectorsPath: string): Promise<TaskResult[]> {
  const vectors = JSON.parse(readFileSync(vectorsPath, 'utf8')) as Vectors;
  const results: TaskResult[] = [];
  for (const id of TASK_IDS) {
    const file = join(tasksDir, `${id}.mjs`);
    const hash = createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12);
    let detail: string | undefined;
    try {
      const fn = (
        (await import(`${pathToFileURL(file).href}?v=${hash}`)) as { default: (...args: unknown[]) => unknown }
      ).default;
      for (const [args, expected] of vectors[id] ?? []) {
        let actual: unknown;
        try {
          actual = fn(...args);
        } catch (error) {
          actual = `threw ${(error as Error).message}`;
        }
        if (!isDeepStrictEqual(actual, expected)) {
          detail =
            `${id}(${args.map((a) => JSON.stringify(a)).join(', ')}) ` +
            `returned ${JSON.stringify(actual)}, ` +
            `expected ${JSON.stringify(expected)}`;
          break;
        }
      }
    } catch (error) {
      detail = `could not load: ${(error as Error).message}`;
    }
    results.push(
      detail === undefined
        ? { id, passed: true }
        : { id, passed: false, detail, priority: id === 'left-pad' ? 'medium' : 'high' },
    );
  }
  return results;
}

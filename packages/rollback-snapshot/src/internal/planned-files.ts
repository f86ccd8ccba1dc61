import { normalize, sep } from 'node:path';
import { LoopError } from '@loop/core';

/**
 * The files an edit plans to touch, as unique `/`-separated workspace paths, checked against the mutable surface.
 *
 * @returns `undefined` when the plan names no files (the touched files are then found by their stat).
 * @throws {LoopError} `CONFIG_INVALID` when a planned file is outside the mutable surface (`files`).
 */
export function plannedFiles(
  where: string,
  planFiles: readonly string[] | undefined,
  surface: ReadonlySet<string>,
  files: readonly string[],
): string[] | undefined {
  const planned = planFiles ? [...new Set(planFiles.map((f) => normalize(f).split(sep).join('/')))] : undefined;
  const outside = (planned ?? []).filter((f) => !surface.has(f));
  if (outside.length > 0) {
    throw new LoopError(
      'CONFIG_INVALID',
      `${where} the edit plans to touch ${outside.join(', ')}, outside the ` +
        (`mutable surface; only ` +
          `${files.length > 20 ? `the ${files.length} mutable files` : files.join(', ')}` +
          ` may change`),
      { details: { outside } },
    );
  }
  return planned;
}

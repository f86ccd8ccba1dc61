import { normalize, relative, sep } from 'node:path';
import { ConfigError } from '@loop/core';
import { resolveMutableSurface } from '../mutable-surface.js';
import type { SnapshotFs } from '../snapshot-fs.js';
import type { SnapshotRollbackOptions } from '../snapshot-rollback-options.js';

/**
 * The mutable surface of a snapshot rollback at start: `files` as given, or the read-only git status
 * filtered by `isSource`; without the run directory's own files; each a regular file in the workspace.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for an empty surface, a run directory inside a mutable path,
 *   or a path that is missing or not a regular file (naming `files.<i>`).
 */
export async function resolveSurface(
  o: Pick<SnapshotRollbackOptions, 'workspace' | 'runDir' | 'files' | 'git' | 'isSource'>,
  fs: SnapshotFs,
  abs: (file: string) => string,
  each: <T, R>(items: Iterable<T>, f: (item: T) => Promise<R>) => Promise<R[]>,
): Promise<string[]> {
  const runRel = relative(o.workspace, o.runDir).split(sep).join('/');
  const inRun = (f: string) => runRel && !runRel.startsWith('..') && (f === runRel || f.startsWith(`${runRel}/`));
  const surface = o.files
    ? o.files.map((f) => normalize(f).split(sep).join('/'))
    : [
        ...(
          await resolveMutableSurface({
            workspace: o.workspace,
            git: o.git,
            ...(o.isSource ? { isSource: o.isSource } : {}),
          })
        ).files,
      ];
  const unique = [...new Set(surface)].filter((f) => !inRun(f)).sort();
  if (unique.length === 0) {
    throw new ConfigError('rollback-snapshot', [
      {
        path: 'files',
        message: 'the mutable surface is empty: git status shows no changed source files; pass files explicitly',
      },
    ]);
  }
  if (runRel && !runRel.startsWith('..') && unique.some((f) => runRel.startsWith(`${f}/`))) {
    throw new ConfigError('rollback-snapshot', [
      { path: 'runDir', message: 'the run directory lies inside a mutable path' },
    ]);
  }
  const issues = (
    await each(unique.entries(), async ([i, f]) => {
      try {
        return (await fs.stat(abs(f))).isFile()
          ? undefined
          : { path: `files.${i}`, message: `${f} is not a regular file` };
      } catch {
        return { path: `files.${i}`, message: `${f} does not exist in ${o.workspace}` };
      }
    })
  ).filter((x) => x !== undefined);
  if (issues.length > 0) throw new ConfigError('rollback-snapshot', issues);
  return unique;
}

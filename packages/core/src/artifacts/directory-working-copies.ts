import { cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { z } from 'zod';
import { compareSnapshots } from '../contracts/artifact.js';
import { LoopError, parseOptions } from '../contracts/errors.js';
import { createFileArtifact } from './file-artifact.js';
import { copyOwner, removeStaleCopies } from './stale-copies.js';
import type { Harness } from '../contracts/harness.js';
import type { WorkingCopy, WorkingCopyProvider } from '../contracts/working-copy.js';

/** Options of {@link createDirectoryWorkingCopies}, validated by {@link directoryWorkingCopiesOptionsSchema}. */
export interface DirectoryWorkingCopiesOptions {
  /** Absolute directory of the main workspace (the same root as the loop's file artifact). */
  root: string;
  /** Relative files or directories the proposer may change; only these are adopted back. */
  mutable: string[];
  /** Relative files or directories the proposer must not change (checked in each copy). @default [] */
  readOnly?: string[];
  /** Builds the harness that evaluates one copy, for example a command harness with `cwd: dir`. */
  harness: (dir: string, info: { readonly iteration: number; readonly k: number }) => Harness;
  /** Relative paths not copied at all (top-level names or deeper paths). @default ['.git', '.loop'] */
  exclude?: string[];
  /**
   * Relative paths symlinked into each copy instead of copied: large read-only inputs such as a
   * data set or `node_modules`. A candidate must not write through them. @default []
   */
  link?: string[];
  /** Absolute directory under which copies are made (`loop-copy-*`), outside `root`. @default os.tmpdir() */
  tempDir?: string;
}

const relativePath = z
  .string()
  .min(1)
  .refine((p) => !isAbsolute(p) && !normalize(p).startsWith('..'), 'must be a path relative to root, inside it');

/** zod schema of {@link DirectoryWorkingCopiesOptions}. */
export const directoryWorkingCopiesOptionsSchema = z
  .object({
    root: z.string().refine((p) => isAbsolute(p), 'root must be an absolute path'),
    mutable: z.array(relativePath).min(1, 'at least one mutable path is required'),
    readOnly: z.array(relativePath).default([]),
    harness: z.custom<DirectoryWorkingCopiesOptions['harness']>(
      (f) => typeof f === 'function',
      'harness must be a function (dir, info) => Harness',
    ),
    exclude: z.array(relativePath).default(['.git', '.loop']),
    link: z.array(relativePath).default([]),
    tempDir: z
      .string()
      .refine((p) => isAbsolute(p), 'tempDir must be an absolute path')
      .optional(),
  })
  .refine(
    (o) =>
      o.tempDir === undefined ||
      relative(o.root, o.tempDir).startsWith('..') ||
      isAbsolute(relative(o.root, o.tempDir)),
    {
      message: 'tempDir must be outside root (a copy must not contain the copies)',
      path: ['tempDir'],
    },
  );

/**
 * Working copies on disk: each candidate gets a temporary directory holding a copy of the
 * workspace (`fs.cp`, recursive, `verbatimSymlinks: true` so links inside stay links; `exclude`d
 * paths skipped, `link`ed paths symlinked), a file artifact over the same mutable and read-only
 * paths, and the harness `harness(dir)` builds. `adopt` copies the winner's changed mutable files
 * (mode bits included) into the main workspace and deletes the ones the candidate deleted;
 * `dispose` removes the directory. A copy's name carries a hash of `root` and the process id
 * (`loop-copy-<iteration>.<k>-<hash>.<pid>-XXXXXX`): before its first copy a provider removes the
 * copies of the same `root` whose process is gone (a run killed with -9 never disposed them).
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options (names the field).
 * @throws {LoopError} `RESTORE_FAILED` from `adopt` when a file cannot be written back.
 *
 * @example
 * const workingCopies = createDirectoryWorkingCopies({
 *   root, mutable: ['train.py'], readOnly: ['prepare.py'], link: ['data'],
 *   harness: (dir) => createCommandHarness({ command: 'python train.py', cwd: dir, timeBudgetMs: 300_000 }),
 * });
 * createLoop({ ..., parallel: { candidates: 4, workingCopies } });
 */
export function createDirectoryWorkingCopies(options: DirectoryWorkingCopiesOptions): WorkingCopyProvider {
  const o = parseOptions(directoryWorkingCopiesOptionsSchema, options, 'directory-copies');
  const root = normalize(o.root);
  const skip = new Set([...o.exclude, ...o.link].map((p) => normalize(p)));
  const main = createFileArtifact({ root, mutable: o.mutable, readOnly: o.readOnly });
  const copies = new Map<WorkingCopy, string>();
  let swept: Promise<unknown> | undefined;

  return {
    name: `directory-copies(${root})`,
    create: async (iteration, k) => {
      const parent = o.tempDir ?? tmpdir();
      await mkdir(parent, { recursive: true });
      // Once, before the first copy: what a killed run of this workspace left (its dispose never ran).
      await (swept ??= removeStaleCopies(parent, root));
      const dir = await mkdtemp(join(parent, `loop-copy-${iteration}.${k}-${copyOwner(root)}-`));
      try {
        await cp(root, dir, {
          recursive: true,
          verbatimSymlinks: true,
          filter: (source) => {
            const rel = relative(root, source);
            return rel === '' || !skip.has(rel.split(sep).join('/'));
          },
        });
        for (const p of o.link) await symlink(join(root, p), join(dir, p));
      } catch (error) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
      const copy: WorkingCopy = {
        name: `copy(${iteration}.${k})`,
        iteration,
        k,
        dir,
        artifact: createFileArtifact({ root: dir, mutable: o.mutable, readOnly: o.readOnly }),
        harness: o.harness(dir, { iteration, k }),
        dispose: async () => {
          copies.delete(copy);
          await rm(dir, { recursive: true, force: true });
        },
      };
      copies.set(copy, dir);
      return copy;
    },
    adopt: async (copy) => {
      const dir = copies.get(copy);
      if (dir === undefined) {
        throw new LoopError(
          'RESTORE_FAILED',
          `[loop] [directory-copies] ${copy.name} was not made by this provider or was disposed; cannot adopt it`,
          { details: { copy: copy.name } },
        );
      }
      const theirs = await copy.artifact.inspect();
      const { changed } = compareSnapshots(main, await main.inspect(), theirs);
      const adopted = changed.filter((path) =>
        o.mutable.some((m) => {
          const p = normalize(m);
          return path === p || path.startsWith(`${p}/`);
        }),
      );
      for (const path of adopted) {
        const target = join(root, path);
        try {
          if (theirs[path] === null || theirs[path] === undefined) {
            await rm(target, { recursive: true, force: true });
          } else {
            await mkdir(dirname(target), { recursive: true });
            await cp(join(dir, path), target, { force: true, verbatimSymlinks: true });
          }
        } catch (error) {
          throw new LoopError(
            'RESTORE_FAILED',
            `[loop] [directory-copies] could not write ${path} from ${copy.name} ` +
              `back to ${root}; check permissions and disk space, then restore the ` +
              `workspace to the last kept state`,
            { cause: error, details: { path, copy: copy.name } },
          );
        }
      }
      return adopted;
    },
  };
}

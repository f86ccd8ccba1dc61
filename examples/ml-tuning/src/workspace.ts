import { cp, mkdir, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import fs from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import git from 'isomorphic-git';

/** The example's own directory (examples/ml-tuning). */
export const EXAMPLE_DIR = resolve(fileURLToPath(new URL('..', import.meta.url)));
/** The training template copied into each workspace. */
export const TEMPLATE_DIR = join(EXAMPLE_DIR, 'template');
/** Files copied from the template, in commit order. */
export const TEMPLATE_FILES = ['README.md', 'config.json', 'prepare.mjs', 'search-space.json', 'train.mjs'] as const;

/**
 * Creates a fresh workspace: a git repository holding the training template as its first commit
 * on `main`, a `.gitignore` for `node_modules` and the run's `.loop/` folder, and a `node_modules` symlink to the
 * example's
 * installed dependencies (tfjs and the name data sets), so `node train.mjs` runs in it.
 *
 * @throws Error when `dir` exists and is not empty.
 */
export async function createWorkspace(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (info && !info.isDirectory())
    throw new Error(`[loop] [ml-tuning] --out ${dir} is a file, not a directory; choose another --out`);
  await mkdir(dir, { recursive: true });
  const existing = await readdir(dir);
  if (existing.length > 0)
    throw new Error(
      `[loop] [ml-tuning] ${dir} is not empty; pass --resume to continue a run there, or choose another --out`,
    );
  for (const f of TEMPLATE_FILES) await cp(join(TEMPLATE_DIR, f), join(dir, f));
  await writeFile(join(dir, '.gitignore'), 'node_modules\n.loop/\n');
  await symlink(join(EXAMPLE_DIR, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await git.init({ fs, dir, defaultBranch: 'main' });
  await git.add({ fs, dir, filepath: ['.gitignore', ...TEMPLATE_FILES] });
  await git.commit({
    fs,
    dir,
    message: 'ml-tuning: training template',
    author: { name: 'loop', email: 'loop@localhost' },
  });
}

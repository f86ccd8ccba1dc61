import { mkdir, readdir, rm, symlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import {
  addDetachedWorktree,
  fetchCommit,
  initBareRepository,
  removeDetachedWorktree,
  removeWorktree,
} from '@loop/rollback-git/git';

/** One fresh working copy of a base commit in a run's clone. */
export interface FreshCopy {
  readonly dir: string;
  /** Removes the worktree (forced) and prunes it. Idempotent. */
  readonly remove: () => Promise<void>;
}

/**
 * The clones one worker keeps under `workdir/runs/<runId>/repo.git` (bare, one per run) and the
 * fresh worktrees it makes from them under `workdir/runs/<runId>/copies/`. Git operations on one
 * clone are serialised (worktree add/remove share the clone's metadata).
 */
export function createRunClones(workdir: string) {
  const chains = new Map<string, Promise<unknown>>();
  const serial = <T>(key: string, f: () => Promise<T>): Promise<T> => {
    const next = (chains.get(key) ?? Promise.resolve()).then(f, f);
    chains.set(
      key,
      next.catch(() => undefined),
    );
    return next;
  };
  const repoOf = (runId: string) => join(workdir, 'runs', runId, 'repo.git');
  const present = new Set<string>(); // `<runId> <commit>` known to be in the clone: no cat-file per job

  return {
    /** Removes worktrees a previous (killed) worker process left behind. */
    sweep: async (): Promise<void> => {
      const runs = await readdir(join(workdir, 'runs')).catch(() => [] as string[]);
      for (const runId of runs) {
        await rm(join(workdir, 'runs', runId, 'copies'), { recursive: true, force: true });
        await removeWorktree({ cwd: repoOf(runId) }, join(workdir, 'runs', runId, 'copies', 'none')).catch(
          () => undefined,
        );
      }
    },
    /**
     * Fetches `commit` from `remote` into the run's clone if it is missing and makes a fresh
     * worktree at it, with `link`ed worker-local paths symlinked in.
     */
    checkout: (
      runId: string,
      remote: string,
      commit: string,
      label: string,
      link: Readonly<Record<string, string>>,
    ): Promise<FreshCopy> =>
      serial(runId, async () => {
        const repo = repoOf(runId);
        if (!present.has(`${runId} ${commit}`)) {
          await initBareRepository(repo);
          await fetchCommit({ cwd: repo }, remote, commit);
          present.add(`${runId} ${commit}`);
        }
        const dir = join(workdir, 'runs', runId, 'copies', `${label}-${randomBytes(4).toString('hex')}`);
        await mkdir(dirname(dir), { recursive: true });
        await addDetachedWorktree({ cwd: repo }, dir, commit);
        for (const [rel, target] of Object.entries(link)) {
          const at = join(dir, rel);
          await rm(at, { recursive: true, force: true });
          await mkdir(dirname(at), { recursive: true });
          await symlink(target, at);
        }
        let removed = false;
        return {
          dir,
          remove: () =>
            serial(runId, async () => {
              if (removed) return;
              removed = true;
              await removeDetachedWorktree(dir);
            }),
        };
      }),
  };
}

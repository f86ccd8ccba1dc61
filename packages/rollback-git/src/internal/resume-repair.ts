import git from 'isomorphic-git';
import { foreignCode } from './errors.js';
import { indexHealth, writeIndexFromCommit } from './index-write.js';
import { gitArgs, type Repo } from './repo.js';
import { removeStaleLocks } from './stale-locks.js';
import { shortId } from '../short-id.js';

/** What {@link repairOnResume} found and did. */
export interface ResumeRepair {
  /** One phrase per repair, in order (`stale .git/index.lock removed`, `index rebuilt from abc1234`). */
  readonly repairs: string[];
  /**
   * True when the run branch's ref is torn or missing while HEAD points at it: it was removed and
   * `recover(keptId)` restores it from the last keep.
   */
  readonly branchPending: boolean;
  /** True when the index was torn or missing and could not be rebuilt yet (the branch is pending too). */
  readonly indexPending: boolean;
}

const OID = /^[0-9a-f]{40}$/;

async function readText(repo: Repo, path: string): Promise<string | undefined> {
  try {
    const raw = await repo.fs.promises.readFile(path);
    return typeof raw === 'string' ? raw : new TextDecoder().decode(raw);
  } catch (error) {
    const code = foreignCode(error);
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

async function isCommit(repo: Repo, oid: string): Promise<boolean> {
  try {
    await git.readCommit({ ...gitArgs(repo), oid });
    return true;
  } catch {
    return false;
  }
}

/**
 * What a kill can still leave in `.git`, repaired before a resumed run touches anything:
 * - lock and temp files no live process holds, and packs without their index older than a
 *   minute (see `removeStaleLocks`), are removed;
 * - a torn or empty `HEAD` is pointed at the run branch again;
 * - a torn, empty or dangling run-branch ref (loose) is removed and reported pending, so that
 *   `recover(keptId)` rewrites it from the last keep of results.tsv;
 * - a torn, empty or missing `.git/index` is rebuilt from the run branch's commit (or, when that is
 *   pending too, by `recover` from the last keep); `recover` then rescues and resets the files that
 *   differ from the last keep, as after any kill.
 * Everything here is a no-op on an intact repository (a few reads).
 *
 * @param now - Milliseconds since the epoch (the age test for locks of unknown owner).
 */
export async function repairOnResume(repo: Repo, branchRef: string, now: number): Promise<ResumeRepair> {
  const repairs: string[] = [];
  for (const path of await removeStaleLocks(repo.rawFs, repo.gitdir, now, repo.realPath)) {
    repairs.push(
      path.endsWith('.pack')
        ? `pack without its index .git/${path} removed`
        : path.startsWith('objects/')
          ? `stale temp object .git/${path} removed`
          : `stale .git/${path} removed`,
    );
  }

  const head = (await readText(repo, `${repo.gitdir}/HEAD`))?.trim();
  if (head === undefined || !(head.startsWith('ref: refs/') || OID.test(head))) {
    await repo.fs.promises.writeFile(`${repo.gitdir}/HEAD`, new TextEncoder().encode(`ref: ${branchRef}\n`));
    repairs.push(
      `HEAD (${head === undefined ? 'missing' : head === '' ? 'empty' : 'torn'}) pointed at ${branchRef} again`,
    );
  }
  const headTarget = (await readText(repo, `${repo.gitdir}/HEAD`))?.trim();

  let branchPending = false;
  const loose = await readText(repo, `${repo.gitdir}/${branchRef}`);
  if (loose !== undefined) {
    const value = loose.trim();
    if (!OID.test(value) || !(await isCommit(repo, value))) {
      await repo.fs.promises.unlink(`${repo.gitdir}/${branchRef}`);
      branchPending = true;
      repairs.push(
        `run branch ref ${branchRef} ` +
          (`(${value === '' ? 'empty' : OID.test(value) ? `pointing at missing commit ${shortId(value)}` : 'torn'}` +
            `) removed`),
      );
    }
  } else if (headTarget === `ref: ${branchRef}`) {
    try {
      await git.resolveRef({ ...gitArgs(repo), ref: branchRef }); // packed?
    } catch {
      branchPending = true;
      repairs.push(`run branch ref ${branchRef} missing`);
    }
  }

  let indexPending = false;
  const health = await indexHealth(repo);
  if (health !== 'ok') {
    if (branchPending) {
      indexPending = true;
    } else {
      // A missing index on a run that committed is damage too (git would see every file as untracked).
      const ref = headTarget === `ref: ${branchRef}` ? branchRef : 'HEAD';
      const tip = await git.resolveRef({ ...gitArgs(repo), ref }).catch(() => undefined);
      if (tip !== undefined) {
        await writeIndexFromCommit(repo, tip);
        repairs.push(`index (${health}) rebuilt from ${shortId(tip)}`);
      }
    }
  }
  return { repairs, branchPending, indexPending };
}

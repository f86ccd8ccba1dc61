import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { rollbackError } from './internal/errors.js';
import { indexBytesHealth } from './internal/index-write.js';
import { gitLines, runGit, type GitCliContext } from './git-cli.js';
import { byPath } from './internal/paths.js';

/**
 * One path a commit, a commit range or the working tree changes (renames count as delete + add).
 * The listing functions run with `--relative`: paths are relative to `ctx.cwd` and only paths under
 * it are listed (the same as the working-tree root when `cwd` is the root).
 */
export interface GitChangedFile {
  /** Path relative to `ctx.cwd`, `/`-separated. */
  readonly path: string;
  /** `added` (A), `modified` (M, T: content, mode or type), `deleted` (D). */
  readonly status: 'added' | 'modified' | 'deleted';
}

const STATUS: Record<string, GitChangedFile['status']> = { A: 'added', D: 'deleted' };

/** Parses `--name-status -z` output (`S\0path\0...`), sorted by path. */
function parseNameStatus(out: string): GitChangedFile[] {
  const parts = out.split('\0');
  const files: GitChangedFile[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const code = parts[i]!.trim();
    if (code === '') break;
    files.push({ path: parts[i + 1]!, status: STATUS[code[0]!] ?? 'modified' });
  }
  return files.sort(byPath);
}

/**
 * The commit HEAD points at (40 hex).
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` when `cwd` is not a git working tree or has no commit.
 */
export async function headSha(ctx: GitCliContext): Promise<string> {
  return (await runGit(ctx, ['rev-parse', 'HEAD'])).trim();
}

/**
 * True when the working tree has staged, unstaged or untracked (not ignored) changes.
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` when `cwd` is not a git working tree.
 */
export async function isDirty(ctx: GitCliContext): Promise<boolean> {
  return (await runGit(ctx, ['status', '--porcelain', '--untracked-files=all'])).trim() !== '';
}

/**
 * Stages everything (`git add -A`: added, modified, deleted, mode changes; ignored files stay out)
 * and commits it with `message` (`git commit -q --no-verify -m`: hooks do not run).
 *
 * @returns the new commit's sha, or `null` when there was nothing to commit (no commit is made).
 * @throws {LoopError} `NOT_A_REPOSITORY` when a git command fails.
 */
export async function commitAll(ctx: GitCliContext, message: string): Promise<string | null> {
  await runGit(ctx, ['add', '-A']);
  if ((await runGit(ctx, ['diff', '--cached', '--name-only'])).trim() === '') return null;
  await runGit(ctx, ['commit', '-q', '--no-verify', '-m', message]);
  return headSha(ctx);
}

/**
 * True when commit `ancestor` is `descendant` or one of its ancestors (`git merge-base --is-ancestor`).
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` when either is not a commit.
 */
export async function isAncestor(ctx: GitCliContext, ancestor: string, descendant: string): Promise<boolean> {
  try {
    await runGit(ctx, ['merge-base', '--is-ancestor', ancestor, descendant]);
    return true;
  } catch (error) {
    const stderr = (error as { details?: { stderr?: string } }).details?.stderr ?? '';
    if (stderr === '') return false; // exit 1, no message: not an ancestor
    throw error;
  }
}

/**
 * Folds every commit made after `base` on the current branch, plus the uncommitted changes, into
 * ONE commit on top of `base` with `message` (`git reset --soft <base>`, then {@link commitAll}).
 * For a step that must be one commit whoever committed during it: an agent that commits by itself
 * (aider does by default) still yields one attributable commit. The folded commits stay in the
 * reflog.
 *
 * @returns the new commit's sha, or `null` when the net change since `base` is empty (HEAD is then
 *   `base`).
 * @throws {LoopError} `RESTORE_FAILED` when `base` is not HEAD or an ancestor of it (nothing is
 *   touched); `NOT_A_REPOSITORY` when a git command fails.
 */
export async function squashSince(ctx: GitCliContext, base: string, message: string): Promise<string | null> {
  const head = await headSha(ctx);
  if (head !== base) {
    if (!(await isAncestor(ctx, base, head))) {
      throw rollbackError(
        'RESTORE_FAILED',
        `squashSince: ${base} is not an ancestor of HEAD ${head} in ${ctx.cwd}; ` +
          `the branch was rewritten; inspect it with git log`,
        { details: { cwd: ctx.cwd, base, head } },
      );
    }
    await runGit(ctx, ['reset', '-q', '--soft', base]);
  }
  return commitAll(ctx, message);
}

/**
 * Discards uncommitted changes to tracked files (`git reset --hard HEAD`) and removes untracked,
 * not ignored files and directories (`git clean -fd`).
 *
 * @throws {LoopError} `RESTORE_FAILED` when git fails.
 */
export async function discardChanges(ctx: GitCliContext): Promise<void> {
  await resetHard(ctx, 'HEAD');
}

/**
 * Moves the current branch, index and working tree to `commit` (`git reset --hard`) and removes
 * untracked, not ignored files (`git clean -fd`): what a half-done step left (commits included) is
 * gone. Ignored files survive.
 *
 * @throws {LoopError} `RESTORE_FAILED` when git fails.
 */
export async function resetHard(ctx: GitCliContext, commit: string): Promise<void> {
  const advice = 'inspect the working tree with git status';
  await runGit(ctx, ['reset', '-q', '--hard', commit], { code: 'RESTORE_FAILED', advice });
  await runGit(ctx, ['clean', '-q', '-fd'], { code: 'RESTORE_FAILED', advice });
}

/** The values of the `<key>: <value>` lines of a commit message, in order. */
function trailerLines(message: string, key: string): string[] {
  const prefix = `${key}: `;
  return message
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length).trim());
}

/**
 * The value of trailer `key` in the message of commit `commit`: the first line `<key>: <value>`,
 * trimmed; `''` when absent. Lines are matched anywhere in the message, so a trailer stays
 * readable in a last paragraph git itself would not parse as trailers (one mixed with
 * `Reverts ...` lines).
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` when `commit` is not a commit.
 */
export async function trailerValue(ctx: GitCliContext, commit: string, key: string): Promise<string> {
  return trailerLines(await runGit(ctx, ['log', '-1', '--format=%B', commit]), key)[0] ?? '';
}

/**
 * The newest commit in `base..HEAD` whose message has the line `<key>: <value>` exactly (the
 * restart-safe lookup of a commit a step already made), or `null`.
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` when `base` is not a commit.
 */
export async function findCommitByTrailer(
  ctx: GitCliContext,
  base: string,
  key: string,
  value: string,
): Promise<string | null> {
  const out = await runGit(ctx, [
    'log',
    '--fixed-strings',
    `--grep=${key}: ${value}`,
    '--format=%H%x1f%B%x1e',
    `${base}..HEAD`,
  ]);
  for (const record of out.split('\x1e')) {
    const [sha, message = ''] = record.trim().split('\x1f');
    if (sha && trailerLines(message, key).includes(value)) return sha;
  }
  return null;
}

/**
 * The commits in `from..to` (reachable from `to`, not from `from`), oldest first (`git rev-list --reverse`).
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` when either is not a commit.
 */
export async function commitsBetween(ctx: GitCliContext, from: string, to = 'HEAD'): Promise<string[]> {
  return gitLines(await runGit(ctx, ['rev-list', '--reverse', `${from}..${to}`]));
}

/**
 * The files one commit changes against its first parent (all of them for a root commit), with their
 * status, sorted by path (`git diff-tree --root --no-renames -r --name-status -z`).
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` when `commit` is not a commit.
 */
export async function commitFiles(ctx: GitCliContext, commit: string): Promise<GitChangedFile[]> {
  return parseNameStatus(
    await runGit(ctx, [
      'diff-tree',
      '--root',
      '--relative',
      '--no-commit-id',
      '--no-renames',
      '-r',
      '--name-status',
      '-z',
      commit,
    ]),
  );
}

/**
 * The files whose content differs between commits `from` and `to`: the net change of the range
 * `from..to` however many commits it holds and whoever made them (`git diff --no-renames
 * --name-status -z <from> <to>`), sorted by path. A file changed and changed back is not listed.
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` when either is not a commit.
 */
export async function changedFilesBetween(ctx: GitCliContext, from: string, to = 'HEAD'): Promise<GitChangedFile[]> {
  return parseNameStatus(await runGit(ctx, ['diff', '--relative', '--no-renames', '--name-status', '-z', from, to]));
}

/**
 * The files whose content in the working tree differs from commit `from`: committed and
 * uncommitted changes since `from` plus untracked, not ignored files (`added`), sorted by path.
 * Read-only: nothing in the repository is written. A missing, empty or torn index (a kill or a
 * power loss, issue 32) would make git fail (`index file smaller than expected`) or list every
 * file as changed; the comparison then goes through a temporary index read from `from` instead
 * (every file hashed once), so the answer is the same as with a sound index.
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` when `from` is not a commit.
 */
export async function changedFilesSince(ctx: GitCliContext, from: string): Promise<GitChangedFile[]> {
  if (await indexUsable(ctx)) return listChangedSince(ctx, from, undefined);
  const tmp = await mkdtemp(join(tmpdir(), 'loop-index-'));
  try {
    const env = { GIT_INDEX_FILE: join(tmp, 'index') };
    await runGit(ctx, ['read-tree', from], { env });
    await runGit(ctx, ['update-index', '-q', '--refresh'], { env }).catch(() => undefined); // exits 1 when files differ
    return await listChangedSince(ctx, from, env);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** True when the working tree's index file exists and passes git's checks (signature, version, SHA-1). */
async function indexUsable(ctx: GitCliContext): Promise<boolean> {
  const path = resolve(ctx.cwd, (await runGit(ctx, ['rev-parse', '--git-path', 'index'])).trim());
  try {
    return indexBytesHealth(await readFile(path)) === 'ok';
  } catch {
    return false;
  }
}

async function listChangedSince(
  ctx: GitCliContext,
  from: string,
  env: Record<string, string> | undefined,
): Promise<GitChangedFile[]> {
  const options = env ? { env } : {};
  // With a temporary index read from `from`, index and commit are equal: diff the index against the tree.
  const diff = ['diff', '--relative', '--no-renames', '--name-status', '-z', ...(env ? [] : [from])];
  const tracked = parseNameStatus(await runGit(ctx, diff, options));
  const others = await runGit(ctx, ['ls-files', '--others', '--exclude-standard', '-z'], options);
  const untracked = others.split('\0').filter(Boolean);
  const merged = new Map(tracked.map((f) => [f.path, f]));
  for (const path of untracked)
    merged.set(path, { path, status: merged.get(path)?.status === 'deleted' ? 'modified' : 'added' });
  return [...merged.values()].sort(byPath);
}

/**
 * Reverts `commits` as `git revert` does and records them in ONE new commit with `message`: first
 * `git reset --merge` drops what an interrupted earlier attempt left staged (unstaged files are
 * kept), then `git revert --no-commit` of the commits newest first (pass them in the order they
 * were made), then `git commit -q --no-verify -m`. Seed 000 Stage 6 per-FIX revert.
 *
 * @returns the revert commit's sha.
 * @throws {LoopError} `RESTORE_FAILED` when a commit does not revert cleanly (a conflict: resolve it
 *   or `git revert --abort`) or the commit fails; `CONFIG_INVALID` when `commits` is empty.
 */
export async function revertCommits(ctx: GitCliContext, commits: readonly string[], message: string): Promise<string> {
  if (commits.length === 0) throw rollbackError('CONFIG_INVALID', 'revertCommits: no commit to revert');
  const advice = 'inspect the worktree with git status (git revert --abort drops a half-done revert)';
  await runGit(ctx, ['reset', '-q', '--merge'], { code: 'RESTORE_FAILED', advice });
  await runGit(ctx, ['revert', '--no-commit', ...[...commits].reverse()], { code: 'RESTORE_FAILED', advice });
  await runGit(ctx, ['commit', '-q', '--no-verify', '--allow-empty', '-m', message], {
    code: 'RESTORE_FAILED',
    advice,
  });
  return headSha(ctx);
}

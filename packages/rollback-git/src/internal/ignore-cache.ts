import nodeFs from 'node:fs';
import { onNodeFs } from './fs-ops.js';
import type { Repo } from './repo.js';

/** A rule file whose times are this close (ms) to the check makes the answer uncacheable (git's racy rule). */
const RACY_MS = 50;
/** At most this many answers are kept (cleared when full). */
const LIMIT = 20_000;

/**
 * The ignore answers of a working tree, kept while the rule files they came from are unchanged
 * (issue 13: each whole-tree walk asks about the same untracked paths, such as `results.tsv` and
 * `.loop`, and every ask read `.git/info/exclude` and each `.gitignore` on the way to the path).
 * An answer is keyed by the `lstat` data (inode, size, mtime, ctime) of exactly the files
 * isomorphic-git's `isIgnored` reads for that path: `.git/info/exclude` and the `.gitignore` of the
 * root and of every folder above the path. An edit to any of them changes its ctime; an answer
 * whose rule files were changed within 50 ms of the check is not kept. Only on `node:fs` (on any
 * other fs every check is asked afresh).
 */
export class IgnoreCache {
  private readonly answers = new Map<string, { readonly signature: string; readonly ignored: boolean }>();
  /** Answers computed and reused since the cache was made (for tests). */
  readonly counts = { computed: 0, reused: 0 };

  /** @param now The clock of the racy rule, ms since the epoch (the file system's clock). @default Date.now */
  constructor(private readonly now: () => number = Date.now) {}

  /** Whether `path` is ignored: the kept answer while its rule files are unchanged, else `compute()`. */
  async isIgnored(repo: Repo, path: string, compute: () => Promise<boolean>): Promise<boolean> {
    const signature = onNodeFs(repo) ? this.signature(repo, path) : undefined;
    if (signature !== undefined) {
      const kept = this.answers.get(path);
      if (kept !== undefined && kept.signature === signature) {
        this.counts.reused += 1;
        return kept.ignored;
      }
    }
    const ignored = await compute();
    this.counts.computed += 1;
    if (signature !== undefined) {
      if (this.answers.size >= LIMIT) this.answers.clear();
      this.answers.set(path, { signature, ignored });
    }
    return ignored;
  }

  /** The stat data of the rule files of `path`, or `undefined` when one of them is racy. */
  private signature(repo: Repo, path: string): string | undefined {
    const files = [`${repo.gitdir}/info/exclude`, `${repo.dir}/.gitignore`];
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i += 1) files.push(`${repo.dir}/${parts.slice(0, i).join('/')}/.gitignore`);
    const limit = this.now() - RACY_MS;
    let signature = '';
    for (const file of files) {
      let stats: nodeFs.Stats | undefined;
      try {
        stats = nodeFs.lstatSync(file, { throwIfNoEntry: false });
      } catch {
        return undefined; // ENOTDIR and the like: let isomorphic-git decide, uncached
      }
      if (stats === undefined) {
        signature += '-|';
        continue;
      }
      if (stats.mtimeMs >= limit || stats.ctimeMs >= limit) return undefined;
      signature += `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}|`;
    }
    return signature;
  }
}

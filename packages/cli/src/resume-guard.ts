import { readFile } from 'node:fs/promises';
import { isAbsolute, join, normalize, relative, sep } from 'node:path';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { LoopError } from '@loop/core';
import { changedFilesSince } from '@loop/rollback-git/git';

/**
 * What {@link assertResumeKeepsFiles} checks: the workspace, the config file and the files the config names as the
 * harness.
 */
export interface ResumeGuardOptions {
  /** The workspace (the git repository's root), absolute. */
  readonly dir: string;
  /** The config file, absolute; checked when it lies inside `dir`. */
  readonly file: string;
  /** results.tsv, relative to `dir`: its last kept (or baseline) row is the commit the resume resets to. */
  readonly resultsFile: string;
  /** The read-only (harness) files, relative to `dir` or absolute; those inside `dir` are checked. */
  readonly readOnlyFiles: readonly string[];
  /** The evaluator's own files (absolute); those inside `dir` are checked. @default [] */
  readonly harnessFiles?: readonly string[];
}

/** `p` relative to `dir` with `/` separators, or undefined when it lies outside. */
function inside(dir: string, p: string): string | undefined {
  const rel = relative(dir, isAbsolute(p) ? p : join(dir, p));
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return normalize(rel).split(sep).join('/');
}

/** The commit a resume resets the workspace to: the last kept or baseline row's, or undefined (no rows, unreadable). */
async function lastKeptCommit(path: string): Promise<string | undefined> {
  try {
    const rows = parseAutoIterateTsv(await readFile(path, 'utf8'));
    return rows.filter((r) => r.status === 'kept' || r.status === 'baseline').at(-1)?.candidateId;
  } catch {
    return undefined; // no run yet, or a torn log: the engine says so
  }
}

/**
 * Refuses `loop resume` before anything is touched when its repair would reset the config file
 * itself, or a read-only (harness) file, that differs from the commit the resume goes back to
 * (the last kept row of results.tsv): edited and not committed, or committed on the run branch
 * after it (the repair treats that commit as an orphan candidate and resets it too). Without this
 * the edit was reset (recoverable only from `refs/loop/discarded/recovered`) while the run went on
 * with the edited values. A config outside the workspace, or a git-ignored one, is never reset.
 * Does nothing when there is no row yet, or when git cannot answer (the run reports that).
 *
 * @throws {LoopError} `CONFIG_INVALID` (exit 2) naming the files and what to do; nothing changed.
 */
export async function assertResumeKeepsFiles(o: ResumeGuardOptions): Promise<void> {
  const kept = await lastKeptCommit(join(o.dir, o.resultsFile));
  if (kept === undefined) return;
  const config = inside(o.dir, o.file);
  const harness = new Set(
    [...o.readOnlyFiles, ...(o.harnessFiles ?? [])]
      .map((f) => inside(o.dir, f))
      .filter((f): f is string => f !== undefined),
  );
  if (config === undefined && harness.size === 0) return;
  let changed: Set<string>;
  try {
    changed = new Set((await changedFilesSince({ cwd: o.dir }, kept)).map((f) => f.path));
  } catch {
    return;
  }
  const why = (verb: string) =>
    `${verb} from the last kept commit ${kept} (edited after it, committed ` +
    `or not), and resuming puts back that commit's files`;
  const lines: string[] = [];
  if (config !== undefined && changed.has(config)) {
    lines.push(
      `[loop] [cli] loop resume would reset the config ` +
        `file ${config}: ${why('it differs')}, so the run would go on with your ` +
        `edit gone from the file. Nothing was changed. ` +
        (`Either keep the config outside the workspace (copy it out, set its dir: ` +
          `to ${o.dir}, then loop resume <the copy>), `) +
        (`or put the edit aside (git stash push -- ${config}) and pass what it ` +
          `changed as flags (loop resume --max-iterations N); committing it on the ` +
          `run branch is not enough, the resume resets that commit too.`),
    );
  }
  const tampered = [...harness].filter((f) => changed.has(f));
  if (tampered.length > 0) {
    const list = tampered.join(' ');
    lines.push(
      `[loop] [cli] loop resume would reset the harness (read-only) ` +
        `file(s) ${list}: ${why(tampered.length > 1 ? 'they differ' : 'it differs')} ` +
        `(your change lost), and scores from two harnesses cannot be compared. ` +
        `Nothing was changed. ` +
        (`To resume this run with its harness, put the change aside: git stash ` +
          `push -- ${list}; then loop resume. To judge with the changed harness, ` +
          `start a new run with a new baseline: commit it, then loop run --new (it ` +
          `moves ${o.resultsFile} and .loop/ files to .loop/runs/<its tag>/).`),
    );
  }
  if (lines.length > 0)
    throw new LoopError('CONFIG_INVALID', lines.join('\n'), {
      details: { files: [...(config !== undefined && changed.has(config) ? [config] : []), ...tampered], keptId: kept },
    });
}

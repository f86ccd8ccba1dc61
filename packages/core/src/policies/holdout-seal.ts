import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { LoopError } from '../contracts/errors.js';
import { holdoutFileList } from './holdout-store.js';

/** What {@link checkHoldoutSeal} checks. */
export interface HoldoutSealInput {
  /** The workspace (the proposer's folder). */
  readonly workspace: string;
  /** The holdout's files and folders (absolute). */
  readonly files: readonly string[];
  /** The holdout's state folder (absolute). */
  readonly stateDir: string;
  /** Whether the proposer runs in a working sandbox that masks `files` and `stateDir` (bwrap). */
  readonly sandboxed: boolean;
  /** The user opted out of the seal (`holdout.sealed: false`): only the sandbox requirement is waived. @default true */
  readonly sealed?: boolean;
}

const inside = (path: string, dir: string): boolean => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * Refuses a holdout that cannot be sealed from the proposer (issue 33), before anything runs:
 * a holdout file or the state folder inside the workspace (the proposer reads the workspace and
 * git may take the file into its objects), a holdout file that does not exist, a file with more
 * than one hard link (another name of it may be readable), and, unless `sealed` is false, a
 * proposer without a working sandbox. Git objects are checked by the caller (rollback-git's
 * `findBlobs`; git is spawned only there). Returns what it checked, for the banner.
 *
 * @throws {LoopError} `HOLDOUT_NOT_SEALED` naming the file and what to do.
 */
export function checkHoldoutSeal(input: HoldoutSealInput): { files: string[] } {
  const ws = existsSync(input.workspace) ? realpathSync(input.workspace) : input.workspace;
  const fail = (what: string) => {
    throw new LoopError('HOLDOUT_NOT_SEALED', `[loop] [holdout] ${what}`, { details: { workspace: ws } });
  };
  for (const f of input.files) {
    if (!isAbsolute(f)) fail(`holdout file ${f} must be an absolute path`);
    if (!existsSync(f)) fail(`holdout file ${f} does not exist`);
    const real = realpathSync(f);
    if (inside(real, ws) || inside(ws, real))
      fail(
        `holdout file ${f} is inside the workspace ${ws}, which the proposer ` +
          `reads (and git may store); move it outside the workspace`,
      );
  }
  const state = existsSync(input.stateDir) ? realpathSync(input.stateDir) : input.stateDir;
  if (inside(state, ws))
    fail(`the holdout's state folder ${input.stateDir} is inside the workspace ${ws}; choose one outside it`);
  const files = holdoutFileList(input.files);
  for (const f of files) {
    const links = lstatSync(f).nlink;
    if (links > 1)
      fail(
        `holdout file ${f} has ${links} hard links: another name of it may be ` +
          `readable by the proposer; copy it (cp, not ln) so it has one`,
      );
  }
  if (input.sealed !== false && !input.sandboxed) {
    fail(
      'the proposer has no working sandbox to seal the holdout from ' +
        '(bubblewrap, sandbox: auto | bwrap); install bubblewrap, or set ' +
        'holdout.sealed: false to run with a holdout that is NOT sealed',
    );
  }
  return { files };
}

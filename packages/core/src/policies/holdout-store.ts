import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { appendDurable } from '../files/state-file.js';

/** Why the holdout was evaluated. */
export type HoldoutUseKind = 'gate-incumbent' | 'gate' | 'final' | 'on-demand';

/**
 * One evaluation of a sealed holdout, one line of `<stateDir>/holdout.jsonl` (issue 33). Written
 * only outside the workspace, never into a row, an event or a prompt.
 */
export interface HoldoutUse {
  /** The run it belongs to (auto-iterate: the run branch). */
  readonly run: string;
  /** 1, 2, ...: this use's count among the run's uses (every kind). */
  readonly use: number;
  /** Why it ran. */
  readonly kind: HoldoutUseKind;
  /** The iteration whose state was evaluated (the best one's for `final`). */
  readonly iteration: number;
  /** The state's id (a commit), when known. */
  readonly id?: string;
  /** The visible harness's score of that state, when known (for the overfitting gap). */
  readonly visible?: number;
  /** The holdout's score; absent when its run crashed. */
  readonly score?: number;
  /** Why there is no score (the scorer's crash reason). */
  readonly error?: string;
  /** For a gate use: 1..budget. */
  readonly gateUse?: number;
  /** For a gate use: the budget. */
  readonly gateBudget?: number;
  /** For a gate use: true when the keep was blocked. */
  readonly blocked?: boolean;
  /** For a gate use: the incumbent's holdout score it was compared with. */
  readonly incumbent?: number;
  /** ISO time of the use (the injected clock). */
  readonly at: string;
}

/** The uses file inside a holdout state folder. */
export const HOLDOUT_USES_FILE = 'holdout.jsonl';

/**
 * The default folder of a workspace's holdout results: `$XDG_STATE_HOME/loop/holdout/<name>-<hash>`
 * (`~/.local/state/...` without `XDG_STATE_HOME`), where `<hash>` is 12 hex digits of the
 * workspace's real path. Outside the workspace, so the proposer's sandbox masks it whole.
 *
 * @param env where `XDG_STATE_HOME` and `HOME` are read. @default process.env
 */
export function holdoutStateDir(workspace: string, env: NodeJS.ProcessEnv = process.env): string {
  const real = existsSync(workspace) ? realpathSync(workspace) : resolve(workspace);
  const base =
    env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME)
      ? env.XDG_STATE_HOME
      : join(env.HOME ?? homedir(), '.local', 'state');
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 12);
  return join(base, 'loop', 'holdout', `${basename(real).replace(/[^A-Za-z0-9._-]/g, '_')}-${hash}`);
}

/** Creates the state folder (mode 0700: the holdout's scores are for the user only). */
export async function ensureHoldoutStateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

/** Appends one use durably (fsync) to `<dir>/holdout.jsonl`. */
export async function appendHoldoutUse(dir: string, use: HoldoutUse): Promise<void> {
  await appendDurable(join(dir, HOLDOUT_USES_FILE), `${JSON.stringify(use)}\n`);
}

/**
 * Every use recorded in `<dir>/holdout.jsonl` (optionally one run's), oldest first; [] when none. A torn last line is
 * skipped.
 */
export async function readHoldoutUses(dir: string, run?: string): Promise<HoldoutUse[]> {
  let text: string;
  try {
    text = await readFile(join(dir, HOLDOUT_USES_FILE), 'utf8');
  } catch {
    return [];
  }
  const uses: HoldoutUse[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const u = JSON.parse(line) as HoldoutUse;
      if (run === undefined || u.run === run) uses.push(u);
    } catch {
      // a line torn by a kill
    }
  }
  return uses;
}

/**
 * Every regular file under `paths` (a file itself, a folder walked, symlinks followed once at the top), absolute and
 * sorted.
 */
export function holdoutFileList(paths: readonly string[]): string[] {
  const out = new Set<string>();
  const walk = (p: string): void => {
    let info;
    try {
      info = lstatSync(p);
    } catch {
      return;
    }
    if (info.isDirectory()) for (const name of readdirSync(p).sort()) walk(join(p, name));
    else if (info.isFile()) out.add(p);
  };
  for (const p of paths) walk(existsSync(p) ? realpathSync(p) : p);
  return [...out].sort();
}

/**
 * The holdout's fingerprint: sha256 of its command and every file's path and bytes (folders
 * walked), checked before each use like the harness's (a change is `HARNESS_TAMPERED`).
 */
export async function holdoutFingerprint(command: string, files: readonly string[]): Promise<string> {
  const hash = createHash('sha256').update(command).update('\0');
  for (const f of holdoutFileList(files)) {
    hash.update(f).update('\0');
    try {
      hash.update(await readFile(f));
    } catch {
      hash.update('<missing>');
    }
    hash.update('\0');
  }
  for (const f of files) if (!existsSync(f)) hash.update(`${f}\0<missing>\0`);
  return hash.digest('hex');
}

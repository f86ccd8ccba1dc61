import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dateTag } from '@loop/auto-iterate';
import { gitDirOf } from '@loop/rollback-git/git';
import { ConfigFileError } from './load-config.js';

/** Where the CLI records the run's tag, so `loop resume` finds the branch (inside the excluded `.loop/`). */
export const CLI_STATE_FILE = '.loop/cli.json';

/** The default tag: the date (seed 003) plus the UTC time, so several runs a day get their own branch. */
export function defaultTag(now: number): string {
  return `${dateTag(now)}-${new Date(now).toISOString().slice(11, 19).replaceAll(':', '')}`;
}

/** What `.loop/cli.json` says of the run in `dir` (its string fields); `{}` when it is missing or unreadable. */
export function readCliState(dir: string): { tag?: string; config?: string; results?: string } {
  try {
    const saved = JSON.parse(readFileSync(join(dir, CLI_STATE_FILE), 'utf8')) as Record<string, unknown>;
    const text = (key: string) => (typeof saved[key] === 'string' ? { [key]: saved[key] } : {});
    return { ...text('tag'), ...text('config'), ...text('results') };
  } catch {
    return {};
  }
}

export function readResumeTag(dir: string, file: string): string {
  const { tag } = readCliState(dir);
  if (tag !== undefined) return tag;
  try {
    const head = readFileSync(join(gitDirOf(dir), 'HEAD'), 'utf8').trim();
    const m = /^ref: refs\/heads\/auto-iterate\/(.+)$/.exec(head);
    if (m?.[1]) return m[1];
  } catch {
    // no repository: createAutoIterate reports it
  }
  throw new ConfigFileError(file, [
    {
      path: 'tag',
      message:
        `no run to resume in ${dir} (no ${CLI_STATE_FILE} and not on an ` +
        `auto-iterate/<tag> branch); set tag to the run's tag`,
    },
  ]);
}

/**
 * The earlier run's tag for its archive folder: `.loop/cli.json`'s, else the checked-out
 * `auto-iterate/<tag>` branch's, else `earlier-<now's default tag>`.
 */
export function earlierTag(dir: string, now: number): string {
  try {
    return readResumeTag(dir, '');
  } catch {
    return `earlier-${defaultTag(now)}`;
  }
}

// Shared set-up of the controller tests (controller*.test.ts): a workspace per test and a stateless worker over files.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  failedAttempts,
  initAutotune,
  type AutotuneControllerOptions,
  type AutotunePaths,
  type RoundWorker,
} from './index.js';

export let dir: string;
export let paths: AutotunePaths;
export const clock = { now: () => Date.UTC(2025, 0, 1) };

/** Makes a fresh workspace with code/a..d (`beforeEach(setUpWorkspace)`). */
export async function setUpWorkspace(): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), 'loop-autotune-'));
  paths = (await initAutotune({ dir })).paths;
  mkdirSync(join(dir, 'code'));
  for (const id of ['a', 'b', 'c', 'd']) writeFileSync(join(dir, 'code', id), id === 'a' ? 'ok' : 'bug');
}

/** Removes the workspace (`afterEach(removeWorkspace)`). */
export function removeWorkspace(): void {
  rmSync(dir, { recursive: true, force: true });
}

export const code = (id: string) => readFileSync(join(dir, 'code', id), 'utf8');

/**
 * A stateless worker over files: task `<id>` passes when `code/<id>` is `ok`; `fixAt[id]` is the
 * attempt (1-based, counted from the scoreboard) that fixes it. `calls` records every step.
 */
export function worker(
  fixAt: Record<string, number>,
  calls: string[] = [],
  hooks: Partial<Pick<RoundWorker, 'improve' | 'evaluate'>> = {},
): RoundWorker {
  const ids = ['a', 'b', 'c', 'd'];
  return {
    name: 'table',
    improve:
      hooks.improve ??
      (({ round, scoreboard, excluded }) => {
        calls.push(`improve ${round}`);
        const targets = ids.filter((id) => code(id) !== 'ok' && !excluded.includes(id));
        for (const id of targets)
          if ((fixAt[id] ?? Infinity) <= failedAttempts(scoreboard, id) + 1) writeFileSync(join(dir, 'code', id), 'ok');
        return { summary: `patch ${targets.join(' ') || 'nothing'}`, targets };
      }),
    evaluate:
      hooks.evaluate ??
      (({ round }) => {
        calls.push(`evaluate ${round}`);
        return {
          tasks: ids.map((id) => ({
            id,
            passed: code(id) === 'ok',
            detail: code(id) === 'ok' ? undefined : 'still bug',
          })),
        };
      }),
  };
}

export const options = (w: RoundWorker, over: Partial<AutotuneControllerOptions> = {}): AutotuneControllerOptions => ({
  dir,
  worker: w,
  clock,
  ...over,
});
export const snapshot = () =>
  Object.fromEntries(Object.values(paths).map((p) => [p, existsSync(p) ? readFileSync(p, 'utf8') : null]));

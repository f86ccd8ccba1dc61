import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HOLDOUT_LOG } from '@loop/auto-iterate';
import { readHoldoutUses, type HoldoutUse } from '@loop/core/policies';

/**
 * The demo's sealed holdout folder for a workspace: `<dir>.holdout`, a sibling outside the
 * workspace (docs/holdout.md: the agent's sandbox masks it, git never sees it).
 */
export function holdoutDirOf(dir: string): string {
  return `${dir}.holdout`;
}

/**
 * Writes the test split (prepare.mjs's `test`: a fixed slice of the names outside train and
 * validation) to `<dir>.holdout/test-names.txt`, one name a line; returns the folder.
 */
export async function writeTestSplit(dir: string): Promise<string> {
  const prepare = (await import(pathToFileURL(join(dir, 'prepare.mjs')).href)) as {
    loadSplits: () => { test: readonly string[] };
  };
  const folder = holdoutDirOf(dir);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'test-names.txt'), `${prepare.loadSplits().test.join('\n')}\n`);
  return folder;
}

/**
 * The summary line: validation vs test bits per character of the best state (the final sealed score), or why there is
 * none.
 */
export async function testLine(stateDir: string, run: string): Promise<string> {
  const final: HoldoutUse | undefined = (await readHoldoutUses(stateDir, run)).findLast((u) => u.kind === 'final');
  if (!final) return 'test      no sealed holdout score (the run stopped before the baseline)';
  if (final.score === undefined)
    return (
      `test      the holdout run failed: ${final.error ?? 'no score'} (its ` + `output: ${join(stateDir, HOLDOUT_LOG)})`
    );
  const gap =
    final.visible === undefined
      ? ''
      : `; gap ${final.score - final.visible >= 0 ? '+' : ''}${(final.score - final.visible).toFixed(6)}`;
  return (
    `test      best state: val_bpc ${final.visible?.toFixed(6) ?? '-'} ` +
    `(validation) vs test_bpc ${final.score.toFixed(6)} (sealed ` +
    `holdout, ${stateDir})${gap}`
  );
}

// loop resume repairs a damaged .git/index (issue 32 item 5; docs/safety.md "Resume repairs what a
// kill can still leave"): empty, truncated or missing, the index is rebuilt from the last kept
// commit, a file that differs is rescued, and the run continues with consistent rows. Before the
// fix an empty index gave NOT_A_REPOSITORY and a truncated or missing one a CONFIG_INVALID naming
// the harness file. In-process CLI on a real git repository.
import { readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMutatorWorkspace, gitIn } from './fixtures/mutator-workspace.js';
import { runCliCaptured } from './fixtures/run-cli.js';

let ws: string;
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(ws, { recursive: true, force: true });
});
const git = (...args: string[]) => gitIn(ws, ...args);
const rows = () => parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));

const damage: Record<string, (index: string) => void> = {
  empty: (index) => truncateSync(index, 0),
  truncated: (index) => truncateSync(index, 100),
  missing: (index) => unlinkSync(index),
};

describe('loop resume repairs a damaged .git/index', () => {
  it.each(Object.keys(damage))(
    'a %s index is rebuilt from the last kept commit, a file saved meanwhile ' +
      'is rescued, and the run continues with one row per iteration',
    async (kind) => {
      ws = await createMutatorWorkspace('loop-index-repair-', { maxIterations: 2 });
      expect((await runCliCaptured(ws, ['run'])).code).toBe(0);
      expect(rows()).toHaveLength(3);
      // A kill mid-iteration: the proposal's edit is on disk, the index damaged.
      writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: 9 }));
      damage[kind]!(join(ws, '.git', 'index'));
      const stderr: string[] = [];
      vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (stderr.push(String(s)), true));

      const resumed = await runCliCaptured(ws, ['resume', '--max-iterations', '4']);
      expect(resumed.err).toBe('');
      expect(resumed.code).toBe(0);
      expect(stderr.join('')).toMatch(/resume repaired: index \((torn|missing)\) rebuilt from [0-9a-f]{7}/);
      const all = rows();
      expect(all.map((r) => r.iteration)).toEqual([0, 1, 2, 3, 4]);
      const lastKeep = all.filter((r) => r.status === 'kept' || r.status === 'baseline').at(-1)!;
      expect(git('rev-parse', '--short=7', 'HEAD')).toBe(lastKeep.candidateId);
      expect(git('status', '--porcelain')).toBe('');
      expect(git('fsck', '--no-progress', '--no-dangling')).toBe('');
      // The edit the damaged run left is not lost: it is in the rescue under refs/loop/discarded/recovered.
      expect(git('show', 'refs/loop/discarded/recovered:config.json')).toBe(JSON.stringify({ x: 9 }));
    },
  );

  it(
    'a damaged index does not hide a changed harness file: the resume is ' +
      'still refused (exit 2) naming it, and nothing is changed',
    async () => {
      ws = await createMutatorWorkspace('loop-index-repair-', { maxIterations: 1 });
      expect((await runCliCaptured(ws, ['run'])).code).toBe(0);
      writeFileSync(join(ws, 'eval.mjs'), `${readFileSync(join(ws, 'eval.mjs'), 'utf8')}// a fix\n`);
      unlinkSync(join(ws, '.git', 'index'));
      const refused = await runCliCaptured(ws, ['resume']);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain('loop resume would reset the harness (read-only) file(s) eval.mjs');
      expect(refused.err).not.toContain('loop.config.yaml');
      expect(readFileSync(join(ws, 'eval.mjs'), 'utf8')).toContain('// a fix');
    },
  );
});

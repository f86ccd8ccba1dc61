import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runPass } from '../src/index.js';
import { makeWorkspace, passOptions, type Workspace } from './helpers.js';

let ws: Workspace;
afterEach(() => ws?.cleanup());

describe('never destructive git (seed 002 safety brakes)', () => {
  it(
    'a whole pass with the surface from git status leaves HEAD, refs and ' + 'the index unchanged and commits nothing',
    async () => {
      ws = makeWorkspace();
      const git = (...a: string[]) =>
        execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', '-c', 'commit.gpgsign=false', ...a], {
          cwd: ws.dir,
          encoding: 'utf8',
        }).trim();
      ws.write('.gitignore', '.aid/\n');
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-q', '-m', 'init');
      ws.write('src/score.ts', 'export const value = 5;\n'); // the task's change: the mutable surface
      ws.write('src/score.ts', 'export const value = 5.0;\n');
      const snap = () => ({
        head: git('rev-parse', 'HEAD'),
        refs: git('for-each-ref'),
        index: createHash('sha256')
          .update(readFileSync(join(ws.dir, '.git/index')))
          .digest('hex'),
        log: git('log', '--oneline'),
      });
      const before = snap();
      const { files: _f, ...o } = passOptions(ws, [{ to: 7 }, { to: 6 }, { to: 8 }]);
      const r = await runPass({ ...o, config: { ...o.config, maxIterations: 3 } });
      expect(r.bestComposite).toBe(8);
      expect(snap()).toEqual(before);
    },
  );
});

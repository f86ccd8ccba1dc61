import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFunctionProposer } from '@loop/core';
import { createAutoIterate, parseAutoIterateTsv, type AutoIterateOptions } from '../src/index.js';
import { withOptions, type OptionsOver } from './with-options.js';
import { watchSetting } from './watch-setting.js';

// The hostile proposer of issue 12 (fault 4) without a sandbox: what the surface check catches.
let base: string; // holds the workspace and an "outside" folder next to it
let dir: string;
let outside: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();

const EVAL = `import { readFileSync } from 'node:fs';
const { x } = JSON.parse(readFileSync('src/config.json', 'utf8'));
console.log('score: ' + ((x - 3) ** 2 + 1));
`;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'loop-surface-'));
  dir = join(base, 'work');
  outside = join(base, 'outside');
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'original\n');
  writeFileSync(join(dir, 'src', 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(join(dir, 'eval.mjs'), EVAL);
  writeFileSync(join(dir, 'README.md'), 'keep me\n');
  mkdirSync(join(dir, 'docs'));
  writeFileSync(join(dir, 'docs', 'guide.md'), 'a guide\n');
  // a tracked link in the target folder, pointing out
  symlinkSync(join(outside, 'secret.txt'), join(dir, 'src', 'secret-link'));
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** Each iteration sets a better x and then does one hostile thing. */
function hostile(acts: Array<() => void>) {
  return createFunctionProposer('hostile', ({ iteration }) => {
    writeFileSync(join(dir, 'src', 'config.json'), JSON.stringify({ x: iteration }));
    acts[iteration - 1]!();
    return { description: `act ${iteration}` };
  });
}

function options(acts: Array<() => void>, over: OptionsOver = {}): AutoIterateOptions {
  return withOptions(
    {
      dir,
      tag: 't',
      proposer: hostile(acts),
      files: { targetFiles: ['src'], readOnlyFiles: ['eval.mjs'], watch: watchSetting.watch },
      run: { command: 'node eval.mjs', timeBudgetS: 5, killTimeoutS: 10 },
      score: { metricName: 'score' },
      stop: { maxIterations: acts.length },
    },
    over,
  );
}
const rows = () => parseAutoIterateTsv(readFileSync(join(dir, 'results.tsv'), 'utf8'));

describe('writes outside the allowed surface are detected and undone (no sandbox)', () => {
  it(
    'a deleted tracked non-target, a symlink to a folder, a dangling one, an ' +
      'outward one in the target folder: each rejected with why, each undone',
    async () => {
      const acts = [
        () => unlinkSync(join(dir, 'README.md')),
        () => symlinkSync(join(dir, 'docs'), join(dir, 'docs-link')),
        () => symlinkSync('does/not/exist', join(dir, 'dangling')),
        () => symlinkSync('/etc', join(dir, 'src', 'etc')),
        () => rmSync(join(dir, 'docs'), { recursive: true }),
      ];
      await createAutoIterate(options(acts)).run();
      const r = rows();
      expect(r.map((x) => x.status)).toEqual(['baseline', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
      expect(r[1]!.description).toContain('README.md (deleted)');
      expect(r[2]!.description).toContain(`docs-link (new symlink to ${join(dir, 'docs')})`);
      expect(r[3]!.description).toContain('dangling (new symlink to does/not/exist)');
      expect(r[4]!.description).toContain('src/etc (symlink to /etc, outside the workspace)');
      expect(r[5]!.description).toContain('docs/guide.md (deleted)');
      expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('keep me\n');
      expect(readFileSync(join(dir, 'docs', 'guide.md'), 'utf8')).toBe('a guide\n');
      for (const p of ['docs-link', 'dangling', 'src/etc'])
        expect(existsSync(join(dir, p)) || lstatOrNull(join(dir, p)) !== null).toBe(false);
      expect(git('status', '--porcelain')).toBe('');
      expect(git('log', '--format=%s', 'auto-iterate/t')).toBe('init'); // nothing kept
    },
  );

  it(
    'a write through a symlink pointing outside the workspace (inside a ' +
      'target folder) is rejected and reported as not undone',
    async () => {
      await createAutoIterate(options([() => writeFileSync(join(dir, 'src', 'secret-link'), 'forged\n')])).run();
      const [, row] = rows();
      expect(row).toMatchObject({ status: 'rejected' });
      expect(row!.description).toContain(
        `src/secret-link (written through its symlink ` +
          `to ${join(outside, 'secret.txt')}, outside the workspace: not undone)`,
      );
      // the link itself is intact
      expect(readlinkSync(join(dir, 'src', 'secret-link'))).toBe(join(outside, 'secret.txt'));
      // documented: an outside write is detected, not restored
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('forged\n');
    },
  );

  it(
    'with allowDirty an untracked notes.txt of the user survives every ' + 'revert and is in no candidate commit',
    async () => {
      writeFileSync(join(dir, 'notes.txt'), 'my notes\n');
      const acts = [() => {}, () => unlinkSync(join(dir, 'README.md')), () => {}];
      await createAutoIterate(options(acts, { files: { allowDirty: true } })).run();
      expect(rows().map((r) => r.status)).toEqual(['baseline', 'kept', 'rejected', 'kept']);
      expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('my notes\n');
      expect(git('log', '--all', '--format=', '--name-only').split('\n')).not.toContain('notes.txt');
    },
  );

  it(
    'a write through a tracked outward symlink outside the targets is ' + 'rejected too (found by the first walk)',
    async () => {
      writeFileSync(join(outside, 'data.csv'), '1,2\n');
      symlinkSync(join(outside, 'data.csv'), join(dir, 'data.csv'));
      git('add', 'data.csv');
      git('commit', '-q', '-m', 'link data');
      await createAutoIterate(options([() => writeFileSync(join(dir, 'data.csv'), '9,9,9\n')])).run();
      const [, row] = rows();
      expect(row).toMatchObject({ status: 'rejected' });
      expect(row!.description).toContain('data.csv (written through its symlink to');
    },
  );

  it('a write by path to ../outside.txt is not seen without a sandbox (documented in docs/safety.md)', async () => {
    await createAutoIterate(options([() => writeFileSync(join(dir, '..', 'outside.txt'), 'escaped\n')])).run();
    expect(rows()[1]!.status).toBe('kept');
    expect(readFileSync(join(base, 'outside.txt'), 'utf8')).toBe('escaped\n');
  });
});

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

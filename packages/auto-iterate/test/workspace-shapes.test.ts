import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFunctionProposer } from '@loop/core';
import { createAutoIterate, parseAutoIterateTsv } from '../src/index.js';
import { dir, git, options, rows, useRepository } from './auto-iterate-fixture.js';

// Workspaces of other shapes (a linked worktree, a submodule), what a proposal leaves behind, and
// targets that must never reach git's or the loop's own files.
useRepository();

describe('auto-iterate: what a proposal created is gone after its row (issue 32 item 8)', () => {
  it(
    'a proposal that only creates an empty directory: the row says no ' +
      'change: not evaluated, and the directory is removed; one that existed ' +
      'before stays',
    async () => {
      mkdirSync(join(dir, 'data'));
      const proposer = createFunctionProposer('mkdir-only', ({ iteration }) => {
        if (iteration === 1) mkdirSync(join(dir, 'scratch', 'deeper'), { recursive: true });
        else writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 2 }));
        return { description: iteration === 1 ? 'make a folder' : 'x -> 2' };
      });
      await createAutoIterate(options([0, 2], { proposer })).run();
      const r = rows();
      expect(r[1]!.description).toBe('make a folder (no change: not evaluated)');
      expect(r[2]!.status).toBe('kept');
      expect(existsSync(join(dir, 'scratch'))).toBe(false);
      expect(existsSync(join(dir, 'data'))).toBe(true);
      expect(git('status', '--porcelain')).toBe('');
    },
  );
});

describe('auto-iterate in a workspace whose .git is a file (issue 32 item 7)', () => {
  const setUps: Record<string, () => { ws: string; extra: string }> = {
    'a linked worktree (git worktree add)': () => {
      const extra = mkdtempSync(join(tmpdir(), 'loop-auto-iterate-linked-'));
      git('worktree', 'add', '-q', '-b', 'experiments', join(extra, 'wt'));
      return { ws: join(extra, 'wt'), extra };
    },
    'a submodule': () => {
      const extra = mkdtempSync(join(tmpdir(), 'loop-auto-iterate-super-'));
      const inSuper = (...args: string[]) =>
        execFileSync(
          'git',
          ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'protocol.file.allow=always', ...args],
          { cwd: extra, encoding: 'utf8' },
        );
      inSuper('init', '-q', '-b', 'main');
      inSuper('submodule', 'add', '-q', dir, 'sub');
      inSuper('commit', '-qm', 'sub');
      return { ws: join(extra, 'sub'), extra };
    },
  };
  it.each(Object.keys(setUps))(
    '%s: runs, keeps and reverts like a plain repository, the workspace lock ' +
      'in the directory its .git names, and resumes',
    async (kind) => {
      const { ws, extra } = setUps[kind]!();
      const inWs = (...args: string[]) =>
        execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
          cwd: ws,
          encoding: 'utf8',
        }).trim();
      try {
        const ownGitDir = inWs('rev-parse', '--absolute-git-dir'); // where git keeps this worktree's HEAD and index
        const lockSeen: boolean[] = [];
        const propose = (xs: number[]) =>
          createFunctionProposer('scripted', ({ iteration }) => {
            lockSeen.push(existsSync(join(ownGitDir, 'loop-workspace.lock')));
            writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: xs[iteration - 1] }));
            return { description: `x -> ${xs[iteration - 1]}` };
          });
        const summary = await createAutoIterate(options([2, 6], { dir: ws, proposer: propose([2, 6]) })).run();
        expect(summary.iterations).toBe(2);
        const r = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
        expect(r.map((row) => row.status)).toEqual(['baseline', 'kept', 'reverted']);
        expect(inWs('rev-parse', '--short=7', 'HEAD')).toBe(r[1]!.candidateId);
        expect(inWs('status', '--porcelain')).toBe('');
        expect(lockSeen).toEqual([true, true]); // the workspace lock is held where git keeps this worktree's own files
        const resumed = await createAutoIterate(
          options([2, 6, 3], { dir: ws, recovery: { resume: true }, proposer: propose([2, 6, 3]) }),
        ).run();
        expect(resumed.iterations).toBe(3);
        expect(inWs('status', '--porcelain')).toBe('');
      } finally {
        rmSync(extra, { recursive: true, force: true });
      }
    },
  );
});

describe("targets never reach git's or the loop's own files", () => {
  it(
    'a target inside .git or .loop is CONFIG_INVALID naming targetFiles, ' +
      'before anything is touched (an agent writing .git/config could run ' +
      'commands outside its sandbox)',
    () => {
      for (const bad of ['.git/config', 'sub/.git/config', '.loop/state.json', './.git/hooks/pre-commit']) {
        expect(() => createAutoIterate(options([1], { files: { targetFiles: ['config.json', bad] } }))).toThrow(
          expect.objectContaining({
            code: 'CONFIG_INVALID',
            message: expect.stringMatching(/targetFiles\.1: must not be inside \.git or \.loop/),
          }),
        );
      }
      expect(() =>
        createAutoIterate(options([1], { files: { targetFiles: ['config.json', 'docs/.github/x.md'] } })),
      ).not.toThrow();
    },
  );
});

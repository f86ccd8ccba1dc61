import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createAutoiter, createGitWorktree, createScriptedAgent } from '../src/index.js';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

it(
  '§3.5 Branch B: each run works in .worktrees/autoiter-<runId> on branch ' +
    'autoiter/<runId>; the user checkout is untouched and the worktree is ' +
    'preserved at the end',
  async () => {
    const root = mkdtempSync(join(tmpdir(), 'collie-git-'));
    roots.push(root);
    const repo = join(root, 'repo');
    mkdirSync(repo);
    writeFileSync(join(repo, '.gitignore'), '.worktrees/\n');
    writeFileSync(join(repo, 'score.txt'), '7\n');
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    const head = git(repo, 'rev-parse', 'HEAD');
    const a = createAutoiter({
      stateRoot: join(root, 'collie'),
      projectId: 'p',
      sessionId: 's',
      projectDir: repo,
      task: 't',
      maxIterations: 1,
      agent: createScriptedAgent({ discovery: ['cat score.txt'], observe: ['NO ISSUES'] }),
      asker: {
        name: 'fixed',
        ask: () => ({
          Q1: 'echo "score: $(cat score.txt)" && echo x > made-by-trigger.txt',
          Q2: 'all_green',
          Q3: 'correctness',
          Q4: 'kind_aware',
          Q5: 'yes',
        }),
      },
      workspace: createGitWorktree({ repoDir: repo }),
      clock: { now: () => Date.UTC(2026, 0, 1) },
      randomHex: () => '123456',
      env: {},
      output: () => {},
    });
    const outcomes = await a.run();
    expect(outcomes.at(-1)).toMatchObject({ kind: 'done', status: 'converged' });
    const wt = join(repo, '.worktrees', 'autoiter-20260101-000000-123456');
    expect(readFileSync(a.paths.run('20260101-000000-123456').worktreePath, 'utf8').trim()).toBe(wt);
    expect(git(wt, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('autoiter/20260101-000000-123456');
    expect(existsSync(join(wt, 'made-by-trigger.txt'))).toBe(true);
    expect(existsSync(join(repo, 'made-by-trigger.txt'))).toBe(false);
    expect(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(a.paths.run('20260101-000000-123456').iter(1).kickoff), 'utf8')).toContain(
      `git_head: ${head}`,
    );
  },
);

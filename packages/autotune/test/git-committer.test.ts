import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createGitCommitter } from '../src/index.js';

let root: string;
let app: string;
let art: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();
const author = { name: 'tester', email: 'tester@example.com' };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loop-autotune-git-'));
  app = join(root, 'app');
  art = join(root, 'art');
  for (const d of [app, art]) {
    mkdirSync(d);
    git(d, 'init', '-q', '-b', 'main');
    git(d, 'commit', '-q', '--allow-empty', '-m', 'init');
  }
  writeFileSync(join(app, '.gitignore'), 'projects/\n');
  git(app, 'add', '.');
  git(app, 'commit', '-q', '-m', 'ignore projects');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

it(
  'seed 004 commit policy (git): code changes are committed in the app ' +
    'repository with the round message; nothing to commit is not an error',
  async () => {
    const committer = createGitCommitter({ dir: app, artifactDir: art, author });
    writeFileSync(join(app, 'agent.js'), 'export const x = 1;\n');
    await committer.commit({ kind: 'code', round: 1, message: 'feat(agent): autotune round 1 — add x', files: [] });
    expect(git(app, 'log', '-1', '--format=%s|%an')).toBe('feat(agent): autotune round 1 — add x|tester');
    await committer.commit({ kind: 'code', round: 2, message: 'feat(agent): autotune round 2 — nothing', files: [] });
    expect(git(app, 'log', '-1', '--format=%s')).toBe('feat(agent): autotune round 1 — add x');
  },
);

it(
  'seed 004 commit policy (git): artifacts under projects/autotune go only ' +
    'to the artifact workspace; cannot_handle_group.txt to the app ' +
    'repository',
  async () => {
    const committer = createGitCommitter({ dir: app, artifactDir: art, author });
    const state = join(art, 'projects/autotune/meta/loop_state.json');
    const excl = join(app, 'eval/config/cannot_handle_group.txt');
    mkdirSync(join(art, 'projects/autotune/meta'), { recursive: true });
    mkdirSync(join(app, 'eval/config'), { recursive: true });
    writeFileSync(state, '{}\n');
    writeFileSync(excl, 'd\n');
    writeFileSync(join(app, 'unrelated.txt'), 'not mine\n');
    await committer.commit({
      kind: 'artifacts',
      round: 1,
      message: 'chore(autotune): round 1 artifacts — stop_exhausted',
      files: [state, excl],
    });
    expect(git(art, 'show', '--name-only', '--format=%s', 'HEAD')).toBe(
      'chore(autotune): round 1 artifacts — stop_exhausted\n\nprojects/autotune/meta/loop_state.json',
    );
    expect(git(app, 'show', '--name-only', '--format=%s', 'HEAD')).toBe(
      'chore(autotune): round 1 artifacts — stop_exhausted\n\neval/config/cannot_handle_group.txt',
    );
    expect(git(app, 'status', '--porcelain')).toBe('?? unrelated.txt');
  },
);

it(
  'seed 004 commit policy (git): without an artifact workspace, artifacts ' +
    'the app repository ignores are never committed there',
  async () => {
    const committer = createGitCommitter({ dir: app, author });
    const state = join(app, 'projects/autotune/meta/loop_state.json');
    mkdirSync(join(app, 'projects/autotune/meta'), { recursive: true });
    writeFileSync(state, '{}\n');
    await committer.commit({
      kind: 'artifacts',
      round: 1,
      message: 'chore(autotune): round 1 artifacts — continue',
      files: [state],
    });
    expect(git(app, 'log', '-1', '--format=%s')).toBe('ignore projects');
  },
);

it("a failing git command gives STATE_WRITE_FAILED with git's message", async () => {
  const committer = createGitCommitter({ dir: join(root, 'not-a-repo-dir'), author });
  mkdirSync(join(root, 'not-a-repo-dir'));
  await expect(committer.commit({ kind: 'code', round: 1, message: 'm', files: [] })).rejects.toMatchObject({
    code: 'STATE_WRITE_FAILED',
    message: expect.stringMatching(/git add -A failed.*not a git repository/i),
  });
});

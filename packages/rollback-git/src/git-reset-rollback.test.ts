import git from 'isomorphic-git';
import { memfs } from 'memfs';
import { describe, expect, it } from 'vitest';
import { createGitResetRollback, readDiscardedRefs, type GitFs } from './index.js';

let counter = 0;

/** A committed repository on a fresh memfs volume (each test its own path: isomorphic-git locks by path). */
async function memRepo(files: Record<string, string>) {
  const { fs } = memfs();
  const dir = `/work/repo-${(counter += 1)}`;
  await git.init({ fs, dir, defaultBranch: 'main' });
  for (const [path, content] of Object.entries(files)) {
    const parent = `${dir}/${path}`.slice(0, `${dir}/${path}`.lastIndexOf('/'));
    fs.mkdirSync(parent, { recursive: true });
    fs.writeFileSync(`${dir}/${path}`, content);
  }
  await git.add({ fs, dir, filepath: Object.keys(files) });
  const base = await git.commit({
    fs,
    dir,
    message: 'initial',
    author: { name: 't', email: 't@example.com', timestamp: 0 },
  });
  const read = (path: string) => String(fs.readFileSync(`${dir}/${path}`, 'utf8'));
  const exists = (path: string) => fs.existsSync(`${dir}/${path}`);
  const write = (path: string, content: string) => {
    fs.mkdirSync(`${dir}/${path}`.slice(0, `${dir}/${path}`.lastIndexOf('/')), { recursive: true });
    fs.writeFileSync(`${dir}/${path}`, content);
  };
  return { fs: fs as unknown as GitFs & typeof fs, dir, base, read, exists, write };
}

describe('createGitResetRollback on memfs', () => {
  it('commit and revert work on an in-memory repository', async () => {
    const repo = await memRepo({ 'train.py': 'lr = 0.1\n', 'src/model.py': 'layers = 2\n' });
    const rollback = createGitResetRollback({ dir: repo.dir, fs: repo.fs, branch: 'auto-iterate/mem' });
    await rollback.start();
    const cp = await rollback.checkpoint(1);
    expect(cp).toEqual({ iteration: 1, id: repo.base });
    repo.write('train.py', 'lr = 0.2\n');
    repo.write('src/extra/new.py', 'x\n');
    repo.fs.unlinkSync(`${repo.dir}/src/model.py`);
    repo.write('run.log', 'loss 1.0\n');
    const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'try' });
    const { commit } = await git.readCommit({ fs: repo.fs, dir: repo.dir, oid: id });
    expect(commit.parent).toEqual([repo.base]);
    expect(commit.message).toBe('auto-iterate: try\n');
    const files = await git.listFiles({ fs: repo.fs, dir: repo.dir, ref: id });
    expect(files.sort()).toEqual(['src/extra/new.py', 'train.py']);

    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(repo.read('train.py')).toBe('lr = 0.1\n');
    expect(repo.read('src/model.py')).toBe('layers = 2\n');
    expect(repo.exists('src/extra')).toBe(false);
    expect(repo.read('run.log')).toBe('loss 1.0\n');
    expect(rollback.lastRestore()?.fallback).toBe(false);
    expect(await rollback.currentId()).toBe(repo.base);
    const matrix = await git.statusMatrix({ fs: repo.fs, dir: repo.dir });
    expect(matrix.filter(([, h, w, s]) => h !== 1 || w !== 1 || s !== 1)).toEqual([]);
    expect(await readDiscardedRefs(repo.dir, repo.fs)).toEqual([
      { ref: 'refs/loop/discarded/1', name: '1', oid: id, iteration: 1, attempt: 0 },
    ]);
  });

  it('the executable bit round-trips on memfs', async () => {
    const repo = await memRepo({ 'run.sh': 'echo\n' });
    const rollback = createGitResetRollback({ dir: repo.dir, fs: repo.fs, branch: 'b', paths: ['run.sh'] });
    const cp = await rollback.checkpoint(1);
    repo.fs.chmodSync(`${repo.dir}/run.sh`, 0o755);
    const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'chmod' });
    const { tree } = await git.readTree({ fs: repo.fs, dir: repo.dir, oid: id });
    expect(tree.find((e) => e.path === 'run.sh')?.mode).toBe('100755');
    await rollback.revert(cp, { iteration: 1, candidateId: id });
    expect(Number(repo.fs.statSync(`${repo.dir}/run.sh`).mode) & 0o111).toBe(0);
  });

  it('start writes .git/info/exclude on memfs and checks out the run branch', async () => {
    const repo = await memRepo({ 'a.txt': 'a' });
    const rollback = createGitResetRollback({ dir: repo.dir, fs: repo.fs, branch: 'run/1', excludes: ['out/'] });
    const report = await rollback.start();
    expect(report).toEqual({
      branch: 'run/1',
      created: true,
      previousBranch: 'refs/heads/main',
      headId: repo.base,
      excludesAdded: ['out/'],
      repairs: [],
    });
    expect(repo.read('.git/info/exclude')).toContain('\nout/\n');
    expect(await git.currentBranch({ fs: repo.fs, dir: repo.dir, fullname: true })).toBe('refs/heads/run/1');
    expect(await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref: 'refs/heads/main' })).toBe(repo.base);
  });
});

import { execFileSync } from 'node:child_process';
import nodeFs from 'node:fs';
import { deflateSync } from 'node:zlib';
import git from 'isomorphic-git';
import { memfs } from 'memfs';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, type TempRepo } from '../../test/helpers.js';
import type { GitFs } from '../git-fs.js';
import { hashObject, type SignatureFields } from './object-format.js';
import {
  loosePath,
  readBlobBytes,
  readCommitObject,
  readObject,
  readTreeObject,
  writeBlobObject,
  writeCommitObject,
  writeObject,
  writeTreeObject,
} from './object-store.js';
import { openRepo } from './repo.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});
const tempRepo = (files: Record<string, string> = { 'a.txt': 'a\n' }): TempRepo => {
  const repo = makeRepo(files, 'loop-object-store-');
  repos.push(repo);
  return repo;
};
const bytes = (text: string) => new TextEncoder().encode(text);
const sig = (timezoneOffset: number): SignatureFields => ({
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  timestamp: 1_764_550_000,
  timezoneOffset,
});

describe('object store: loose objects written and read without isomorphic-git', () => {
  it(
    'blobs, trees and commits we write are read back by the git CLI ' + '(cat-file -p) and git fsck --strict is clean',
    async () => {
      const repo = tempRepo();
      const r = openRepo(nodeFs, repo.dir);
      const file = await writeBlobObject(r, bytes('hello\n'));
      const link = await writeBlobObject(r, bytes('a.txt'));
      expect(file).toBe(
        execFileSync('git', ['hash-object', '--stdin'], { cwd: repo.dir, input: 'hello\n', encoding: 'utf8' }).trim(),
      );
      expect(hashObject('blob', bytes('hello\n'))).toBe(file);
      const sub = await writeTreeObject(r, [{ path: 'inner.txt', mode: '100644', oid: file }]);
      const tree = await writeTreeObject(r, [
        { path: 'run.sh', mode: 0o100755, oid: file },
        { path: 'link', mode: '120000', oid: link },
        { path: 'dir', mode: '040000', oid: sub },
        { path: 'a.txt', mode: '100644', oid: file },
      ]);
      const head = repo.git('rev-parse', 'HEAD');
      const commit = await writeCommitObject(r, {
        tree,
        parent: [head],
        author: sig(0),
        committer: sig(-120),
        message: 'subject\n\nbody\n',
      });
      expect(repo.git('cat-file', '-p', file)).toBe('hello');
      expect(repo.git('cat-file', '-t', tree)).toBe('tree');
      expect(repo.git('ls-tree', '-r', tree).split('\n')).toEqual([
        `100644 blob ${file}\ta.txt`,
        `100644 blob ${file}\tdir/inner.txt`,
        `120000 blob ${link}\tlink`,
        `100755 blob ${file}\trun.sh`,
      ]);
      expect(repo.git('cat-file', '-p', commit)).toBe(
        `tree ${tree}\nparent ${head}\nauthor Ada Lovelace <ada@example.com> ` +
          `1764550000 +0000\ncommitter Ada Lovelace <ada@example.com> 1764550000 ` +
          `+0200\n\nsubject\n\nbody`,
      );
      repo.git('update-ref', 'refs/heads/ours', commit);
      const fsck = execFileSync('git', ['fsck', '--strict', '--no-dangling', '--no-progress'], {
        cwd: repo.dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      expect(fsck).toBe('');
    },
  );

  it(
    "tree entries are in git's order: names compared as bytes with '/' " +
      "appended to a tree's name (a-b, a.b, a/, a0), the same tree git mktree " +
      'writes',
    async () => {
      const repo = tempRepo();
      const r = openRepo(nodeFs, repo.dir);
      const blob = await writeBlobObject(r, bytes('x\n'));
      const sub = await writeTreeObject(r, [{ path: 'f', mode: '100644', oid: blob }]);
      const entries = [
        { path: 'a0', mode: '100644', oid: blob },
        { path: 'a', mode: '040000', oid: sub },
        { path: 'a.b', mode: '100644', oid: blob },
        { path: 'a-b', mode: '100644', oid: blob },
        { path: 'é', mode: '100644', oid: blob },
        { path: 'b', mode: '100644', oid: blob },
      ];
      const ours = await writeTreeObject(r, entries);
      const listing = entries
        .map((e) => `${e.mode} ${e.mode === '040000' ? 'tree' : 'blob'} ${e.oid}\t${e.path}`)
        .join('\n');
      const theirs = execFileSync('git', ['mktree'], { cwd: repo.dir, input: `${listing}\n`, encoding: 'utf8' }).trim();
      expect(ours).toBe(theirs);
      expect(repo.git('ls-tree', '--name-only', ours).split('\n')).toEqual([
        'a-b',
        'a.b',
        'a',
        'a0',
        'b',
        '"\\303\\251"',
      ]);
      // Read back in isomorphic-git's order (plain name order), the shape readTree returns.
      expect(await readTreeObject(r, ours)).toEqual(
        (await git.readTree({ fs: nodeFs, dir: repo.dir, oid: ours })).tree,
      );
    },
  );

  it(
    'a commit we write has the oid isomorphic-git writeCommit gives the same ' +
      'fields (CRs, leading and extra final newlines, offsets 0, -0, 60, -330), ' +
      'and the git CLI commit-tree agrees at +0000',
    async () => {
      const repo = tempRepo();
      const r = openRepo(nodeFs, repo.dir);
      const head = repo.git('rev-parse', 'HEAD');
      const tree = repo.git('rev-parse', 'HEAD^{tree}');
      for (const [offset, message] of [
        [0, 'x'],
        [-0, '\n\nlead\r\n'],
        [60, 'a\n\n\n'],
        [-330, 'multi\nline\n'],
      ] as const) {
        const fields = { tree, parent: [head], author: sig(offset), committer: sig(offset), message };
        const theirs = await git.writeCommit({ fs: nodeFs, dir: repo.dir, commit: { ...fields, parent: [head] } });
        expect(await writeCommitObject(r, fields)).toBe(theirs);
      }
      const ours = await writeCommitObject(r, {
        tree,
        parent: [head],
        author: sig(0),
        committer: sig(0),
        message: 'loop: try\n',
      });
      const cli = execFileSync('git', ['commit-tree', tree, '-p', head, '-m', 'loop: try'], {
        cwd: repo.dir,
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'Ada Lovelace',
          GIT_AUTHOR_EMAIL: 'ada@example.com',
          GIT_AUTHOR_DATE: '@1764550000 +0000',
          GIT_COMMITTER_NAME: 'Ada Lovelace',
          GIT_COMMITTER_EMAIL: 'ada@example.com',
          GIT_COMMITTER_DATE: '@1764550000 +0000',
        },
      }).trim();
      expect(ours).toBe(cli);
      const parsed = await readCommitObject(r, ours);
      expect(parsed).toEqual({ tree, parent: [head], message: 'loop: try\n' });
    },
  );

  it(
    'tree entry names follow isomorphic-git: editor backups (notes~), colons ' +
      'and .gitignore are written and read back; .git in any alias (.GIT., ' +
      'git~1, .git:x) a backslash and an empty name are refused',
    async () => {
      const repo = tempRepo();
      const r = openRepo(nodeFs, repo.dir);
      const blob = await writeBlobObject(r, bytes('x\n'));
      const names = ['notes~', 'a:b', '.gitignore', 'github.md', 'git~10', 'trailing.', '~'];
      const tree = await writeTreeObject(
        r,
        names.map((path) => ({ path, mode: '100644', oid: blob })),
      );
      expect((await readTreeObject(r, tree)).map((e) => e.path)).toEqual(
        (await git.readTree({ fs: nodeFs, dir: repo.dir, oid: tree })).tree.map((e) => e.path),
      );
      expect((await readTreeObject(r, tree)).map((e) => e.path).sort()).toEqual([...names].sort());
      for (const bad of ['.git', '.GIT.', 'git~1', '.git:x', 'a\\b', '..', ' . ']) {
        await expect(writeTreeObject(r, [{ path: bad, mode: '100644', oid: blob }]), bad).rejects.toThrow();
        await expect(
          git.writeTree({ fs: nodeFs, dir: repo.dir, tree: [{ path: bad, mode: '100644', oid: blob, type: 'blob' }] }),
          bad,
        ).rejects.toThrow();
      }
      // An empty name (which isomorphic-git would write and git fsck reports) is refused too.
      await expect(writeTreeObject(r, [{ path: '', mode: '100644', oid: blob }])).rejects.toThrow();
    },
  );

  it(
    'writing an object that exists writes nothing (content-addressed); a new ' +
      'one is a temp file renamed into place, its missing fan-out directory ' +
      'made on the way',
    async () => {
      const repo = tempRepo();
      const calls: string[] = [];
      const promises = new Proxy(nodeFs.promises, {
        get(target, prop) {
          const value = Reflect.get(target, prop) as unknown;
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (prop === 'writeFile' || prop === 'rename' || prop === 'mkdir')
              calls.push(`${String(prop)} ${String(args[0]).replace(repo.dir, '')}`);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const r = openRepo({ promises } as unknown as GitFs, repo.dir);
      const content = bytes('fresh content\n');
      const oid = hashObject('blob', content);
      const fanOut = `${repo.dir}/.git/objects/${oid.slice(0, 2)}`;
      nodeFs.rmSync(fanOut, { recursive: true, force: true });
      expect(await writeObject(r, 'blob', content)).toBe(oid);
      const temp = `/.git/objects/${oid.slice(0, 2)}/tmp_obj_`;
      expect(calls.map((c) => c.replace(/tmp_obj_\S+/, 'tmp_obj_'))).toEqual([
        `writeFile ${temp}`,
        `mkdir /.git/objects/${oid.slice(0, 2)}`,
        `writeFile ${temp}`,
        `rename ${temp}`,
      ]);
      expect(repo.git('cat-file', '-p', oid)).toBe('fresh content');
      calls.length = 0;
      expect(await writeObject(r, 'blob', content)).toBe(oid);
      expect(calls).toEqual([]);
      expect(nodeFs.readdirSync(fanOut).filter((name) => name.startsWith('tmp_obj_'))).toEqual([]);
    },
  );

  it('packed objects still read after git gc (no loose file: isomorphic-git reads the pack)', async () => {
    const repo = tempRepo({ 'a.txt': 'alpha\n', 'dir/b.txt': 'beta\n' });
    repo.git('gc', '-q');
    const r = openRepo(nodeFs, repo.dir);
    const head = repo.git('rev-parse', 'HEAD');
    expect(nodeFs.existsSync(loosePath(r, head))).toBe(false);
    const commit = await readCommitObject(r, head);
    expect(commit.tree).toBe(repo.git('rev-parse', 'HEAD^{tree}'));
    expect(commit.message).toBe('initial\n');
    const tree = await readTreeObject(r, commit.tree);
    expect(tree.map((e) => `${e.mode} ${e.type} ${e.path}`)).toEqual(['100644 blob a.txt', '040000 tree dir']);
    expect(new TextDecoder().decode(await readBlobBytes(r, repo.git('rev-parse', 'HEAD:dir/b.txt')))).toBe('beta\n');
  });

  it(
    'a corrupt loose object (bytes that hash to another oid) is refused ' + 'with RESTORE_FAILED, not returned',
    async () => {
      const repo = tempRepo();
      const r = openRepo(nodeFs, repo.dir);
      const oid = await writeBlobObject(r, bytes('good\n'));
      const path = loosePath(r, oid);
      nodeFs.chmodSync(path, 0o644);
      nodeFs.writeFileSync(path, deflateSync(Buffer.from('blob 4\0bad\n')));
      await expect(readObject(r, oid)).rejects.toMatchObject({ code: 'RESTORE_FAILED' });
    },
  );

  it(
    'on memfs: objects we write are read by isomorphic-git, and objects ' + 'isomorphic-git writes are read by us',
    async () => {
      const { fs } = memfs();
      const dir = '/work/object-store-memfs';
      await git.init({ fs, dir, defaultBranch: 'main' });
      const r = openRepo(fs as unknown as GitFs, dir);
      const blob = await writeBlobObject(r, bytes('in memory\n'));
      const tree = await writeTreeObject(r, [{ path: 'm.txt', mode: '100644', oid: blob }]);
      const commit = await writeCommitObject(r, {
        tree,
        parent: [],
        author: sig(0),
        committer: sig(0),
        message: 'mem',
      });
      const read = await git.readCommit({ fs, dir, oid: commit });
      expect(read.commit.tree).toBe(tree);
      expect(read.commit.message).toBe('mem\n');
      expect(new TextDecoder().decode((await git.readBlob({ fs, dir, oid: tree, filepath: 'm.txt' })).blob)).toBe(
        'in memory\n',
      );
      const theirs = await git.writeBlob({ fs, dir, blob: bytes('from isomorphic-git\n') });
      expect(new TextDecoder().decode(await readBlobBytes(r, theirs))).toBe('from isomorphic-git\n');
      expect((await readTreeObject(r, tree)).map((e) => e.path)).toEqual(['m.txt']);
    },
  );
});

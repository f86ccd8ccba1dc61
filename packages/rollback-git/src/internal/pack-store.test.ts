import { execFileSync } from 'node:child_process';
import nodeFs, { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo, steppingClock, type TempRepo } from '../../test/helpers.js';
import { createGitResetRollback } from '../git-reset-rollback.js';
import { hashObject } from './object-format.js';
import { batchObjects, readObject, writeBlobObject } from './object-store.js';
import { encodePack, parseIndex } from './pack-format.js';
import { MERGE_FANIN } from './pack-merge.js';
import { locate, readPacked, registerPack } from './pack-store.js';
import { openRepo } from './repo.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});
const tempRepo = (files: Record<string, string>): TempRepo => {
  const repo = makeRepo(files, 'loop-pack-store-');
  repos.push(repo);
  return repo;
};
const bytes = (text: string) => new TextEncoder().encode(text);
const packsIn = (repo: TempRepo) =>
  readdirSync(join(repo.dir, '.git', 'objects', 'pack')).filter((name) => name.endsWith('.pack'));
const looseCount = (repo: TempRepo) => {
  const out = repo.git('count-objects', '-v');
  return Number(/^count: (\d+)$/m.exec(out)?.[1]);
};
const fsck = (repo: TempRepo) =>
  execFileSync('git', ['fsck', '--strict', '--no-dangling', '--no-progress'], {
    cwd: repo.dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

describe('pack store: a commit writes its objects as one pack, and packs stay few', () => {
  it('the pack and index we encode pass git verify-pack and index-pack computes the same index', () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    const inputs = ['one\n', 'two\n', 'x'.repeat(5000)].map((text) => ({
      oid: hashObject('blob', bytes(text)),
      type: 'blob' as const,
      bytes: bytes(text),
    }));
    const encoded = encodePack(inputs);
    const base = join(repo.dir, 'p');
    writeFileSync(`${base}.pack`, encoded.pack);
    writeFileSync(`${base}.idx`, encoded.idx);
    const verified = repo.git('verify-pack', '-v', `${base}.idx`);
    for (const input of inputs) expect(verified).toContain(input.oid);
    expect(verified).toContain('non delta: 3 objects');
    execFileSync('git', ['index-pack', '-o', `${base}.git.idx`, `${base}.pack`], { cwd: repo.dir });
    expect(Buffer.compare(nodeFs.readFileSync(`${base}.git.idx`), encoded.idx)).toBe(0);
    expect(parseIndex(encoded.idx)?.packSha).toBe(encoded.name);
  });

  it(
    'a candidate commit of three files adds one pack and no loose object; ' +
      'git reads every object and fsck --strict is clean; a fresh process reads ' +
      'them from the pack',
    async () => {
      const repo = tempRepo({ 'a.txt': 'a\n', 'src/b.txt': 'b\n', 'src/c.txt': 'c\n' });
      const before = looseCount(repo);
      const rollback = createGitResetRollback({ dir: repo.dir, branch: 'run/pack', clock: steppingClock() });
      await rollback.start();
      const cp = await rollback.checkpoint(1);
      repo.write('a.txt', 'A\n');
      repo.write('src/b.txt', 'B\n');
      repo.write('src/new.txt', 'new\n');
      const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'three files' });
      expect(packsIn(repo)).toHaveLength(1);
      expect(looseCount(repo)).toBe(before);
      expect(repo.git('show', '--stat', '--format=%s', id ?? '')).toContain('three files');
      expect(repo.git('cat-file', '-p', `${id}:src/new.txt`)).toBe('new');
      expect(fsck(repo)).toBe('');
      // Another process's view: a new Repo lists objects/pack and reads the commit's blob itself.
      const fresh = openRepo(nodeFs, repo.dir);
      const blob = repo.git('rev-parse', `${id}:src/b.txt`);
      const packed = await readPacked(fresh, blob);
      expect(packed !== undefined && packed !== 'corrupt' && Buffer.from(packed.bytes).toString()).toBe('B\n');
      await rollback.revert(cp, { iteration: 1, candidateId: id });
      expect(repo.read('src/b.txt')).toBe('b\n');
      expect(repo.git('status', '--porcelain')).toBe('');
    },
  );

  it(
    `${MERGE_FANIN * 3} commit/revert cycles leave fewer than ${MERGE_FANIN} ` +
      `packs (merged by size class), every discarded candidate still readable ` +
      `by git, fsck --strict clean`,
    async () => {
      const repo = tempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
      const rollback = createGitResetRollback({ dir: repo.dir, branch: 'run/merge', clock: steppingClock() });
      await rollback.start();
      const ids: string[] = [];
      for (let i = 1; i <= MERGE_FANIN * 3; i += 1) {
        const cp = await rollback.checkpoint(i);
        repo.write('a.txt', `a ${i}\n`);
        repo.write('b.txt', `b ${i}\n`);
        const id = await rollback.commit(cp, { iteration: i, attempt: 0, description: `edit ${i}` });
        ids.push(id ?? '');
        await rollback.revert(cp, { iteration: i, candidateId: id });
      }
      expect(packsIn(repo).length).toBeLessThan(MERGE_FANIN);
      for (const [i, id] of ids.entries()) expect(repo.git('cat-file', '-p', `${id}:b.txt`)).toBe(`b ${i + 1}`);
      expect(repo.git('status', '--porcelain')).toBe('');
      expect(fsck(repo)).toBe('');
    },
  );

  it(
    'after git gc repacks our packs (with deltas) away, reads fall back and ' +
      'the next revert still restores the tree',
    async () => {
      const repo = tempRepo({ 'a.txt': 'a\n'.repeat(200), 'b.txt': 'b\n' });
      const rollback = createGitResetRollback({ dir: repo.dir, branch: 'run/gc', clock: steppingClock() });
      await rollback.start();
      for (let i = 1; i <= 4; i += 1) {
        const cp = await rollback.checkpoint(i);
        repo.write('a.txt', `${'a\n'.repeat(200)}${i}\n`);
        repo.write('b.txt', `b ${i}\n`);
        const id = await rollback.commit(cp, { iteration: i, attempt: 0, description: `edit ${i}` });
        if (i === 3) {
          repo.git('gc', '--quiet', '--prune=now');
          expect(packsIn(repo)).toHaveLength(1);
        }
        await rollback.revert(cp, { iteration: i, candidateId: id });
        expect(repo.read('b.txt')).toBe('b\n');
      }
      expect(repo.git('status', '--porcelain')).toBe('');
      expect(fsck(repo)).toBe('');
    },
  );

  it(
    'objects of an open batch are readable before the pack exists, and a ' + 'batch that throws writes nothing',
    async () => {
      const repo = tempRepo({ 'a.txt': 'a\n' });
      const r = openRepo(nodeFs, repo.dir);
      const before = looseCount(repo);
      await expect(
        batchObjects(r, async () => {
          const oid = await writeBlobObject(r, bytes('pending\n'));
          expect(Buffer.from((await readObject(r, oid)).bytes).toString()).toBe('pending\n');
          throw new Error('stop');
        }),
      ).rejects.toThrow('stop');
      expect(looseCount(repo)).toBe(before);
      expect(readdirSync(join(repo.dir, '.git', 'objects', 'pack')).filter((name) => name.startsWith('pack-'))).toEqual(
        [],
      );
    },
  );

  it(
    'locate finds every object of a registered pack at every position of its ' +
      'sorted index (1 to 40 entries), and no absent one',
    () => {
      const repo = tempRepo({ 'a.txt': 'a\n' });
      for (let count = 1; count <= 40; count += 1) {
        const r = openRepo(nodeFs, repo.dir);
        const oids = Array.from({ length: count }, (_, i) => hashObject('blob', bytes(`object ${count} ${i}`)));
        const entries = oids.map((oid, i) => ({ oid, offset: 12 + i * 10, crc: i }));
        registerPack(r, `pack-${'0'.repeat(40)}`, 12 + count * 10 + 20, entries);
        for (const [i, oid] of oids.entries())
          expect(locate(r, oid)?.start, `${count} entries, object ${i}`).toBe(12 + i * 10);
        for (const absent of ['0'.repeat(40), 'f'.repeat(40), hashObject('blob', bytes(`absent ${count}`))])
          expect(locate(r, absent)).toBeUndefined();
      }
    },
  );
});

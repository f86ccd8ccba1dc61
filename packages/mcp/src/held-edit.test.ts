import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  agentChanges,
  clearEdit,
  dropHeldEdit,
  HELD_EDIT_REF,
  heldEdit,
  holdEdit,
  restoreEdit,
  treeHoldsEdit,
} from './held-edit.js';

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();
const BINARY = Buffer.from([0, 255, 10, 13, 0, 128, 7]);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-mcp-held-'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'a.txt'), 'a\n');
  writeFileSync(join(dir, 'src', 'gone.txt'), 'gone\n');
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("held edit (the agent's edit kept in git while a trial opens)", () => {
  it(
    'holds an edit (modified, added in a new folder, binary, executable, ' +
      'deleted), clears it to HEAD and writes it back byte for byte, leaving ' +
      "git's index untouched",
    async () => {
      writeFileSync(join(dir, 'src', 'a.txt'), 'a edited\n');
      mkdirSync(join(dir, 'src', 'new'));
      writeFileSync(join(dir, 'src', 'new', 'b.bin'), BINARY);
      writeFileSync(join(dir, 'src', 'run.sh'), '#!/bin/sh\n');
      chmodSync(join(dir, 'src', 'run.sh'), 0o755);
      rmSync(join(dir, 'src', 'gone.txt'));
      const changes = await agentChanges(dir);
      expect(changes.map((c) => `${c.status} ${c.path}`)).toEqual([
        'modified src/a.txt',
        'deleted src/gone.txt',
        'added src/new/b.bin',
        'added src/run.sh',
      ]);

      const oid = await holdEdit(dir, changes);
      expect(await heldEdit(dir)).toBe(oid);
      expect(git('rev-parse', `${oid}^`)).toBe(git('rev-parse', 'HEAD'));
      await clearEdit(dir, changes);
      expect(await agentChanges(dir)).toEqual([]);
      expect(readFileSync(join(dir, 'src', 'gone.txt'), 'utf8')).toBe('gone\n');

      await restoreEdit(dir, oid);
      expect(readFileSync(join(dir, 'src', 'a.txt'), 'utf8')).toBe('a edited\n');
      expect(readFileSync(join(dir, 'src', 'new', 'b.bin')).equals(BINARY)).toBe(true);
      expect(statSync(join(dir, 'src', 'run.sh')).mode & 0o111).not.toBe(0);
      expect(existsSync(join(dir, 'src', 'gone.txt'))).toBe(false);
      expect(await treeHoldsEdit(dir, oid)).toBe(true);
      expect(git('diff', '--cached', '--name-only')).toBe('');
      expect(git('rev-parse', 'HEAD')).toBe(git('rev-parse', `${oid}^`));

      await dropHeldEdit(dir);
      expect(await heldEdit(dir)).toBeUndefined();
      expect(git('for-each-ref', HELD_EDIT_REF)).toBe('');
    },
  );

  it('tells a tree that holds other changes from one that holds the edit', async () => {
    writeFileSync(join(dir, 'src', 'a.txt'), 'a edited\n');
    const oid = await holdEdit(dir, await agentChanges(dir));
    writeFileSync(join(dir, 'src', 'a.txt'), 'edited again\n');
    expect(await treeHoldsEdit(dir, oid)).toBe(false);
  });
});

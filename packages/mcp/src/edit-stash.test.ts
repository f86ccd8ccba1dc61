import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isUnderTargets, restoreUnappliedEdit, stashAgentEdit, stashPath } from './edit-stash.js';

let ws: string;
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, encoding: 'utf8' }).trim();
const BINARY = Buffer.from([0, 255, 10, 13, 10, 128, 0]);

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'loop-mcp-stash-'));
  mkdirSync(join(ws, 'src'));
  writeFileSync(join(ws, 'src', 'a.txt'), 'a\n');
  writeFileSync(join(ws, 'src', 'gone.txt'), 'gone\n');
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
});

afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('the agent-edit stash (loop_evaluate)', () => {
  it('moves an edit (modified, added, deleted files) out of the tree, leaving it at HEAD, and restores it byte for byte', async () => {
    writeFileSync(join(ws, 'src', 'a.txt'), BINARY);
    writeFileSync(join(ws, 'src', 'new.txt'), 'new\n');
    rmSync(join(ws, 'src', 'gone.txt'));
    const edit = await stashAgentEdit(ws, 'try it', ['src']);
    expect(edit?.files.map((f) => f.path)).toEqual(['src/a.txt', 'src/gone.txt', 'src/new.txt']);
    expect(git('status', '--porcelain')).toBe('');
    expect(readFileSync(join(ws, 'src', 'a.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(join(ws, 'src', 'new.txt'))).toBe(false);
    expect(existsSync(stashPath(ws))).toBe(true);

    expect(await restoreUnappliedEdit(ws)).toBe(true);
    expect(readFileSync(join(ws, 'src', 'a.txt')).equals(BINARY)).toBe(true);
    expect(readFileSync(join(ws, 'src', 'new.txt'), 'utf8')).toBe('new\n');
    expect(existsSync(join(ws, 'src', 'gone.txt'))).toBe(false);
    expect(existsSync(stashPath(ws))).toBe(false);
    expect(await restoreUnappliedEdit(ws)).toBe(false);
  });

  it('stashes nothing when nothing changed', async () => {
    expect(await stashAgentEdit(ws, 'nothing', ['src'])).toBeUndefined();
    expect(existsSync(stashPath(ws))).toBe(false);
  });

  it('refuses (OUTSIDE_TARGETS) a tree with an uncommitted change outside the targets, and leaves every file where it is (seed 001: nothing outside the target scope)', async () => {
    writeFileSync(join(ws, 'src', 'a.txt'), 'edited\n');
    writeFileSync(join(ws, 'loop.config.yaml'), 'dir: .\n');
    await expect(stashAgentEdit(ws, 'try it', ['src/a.txt'])).rejects.toMatchObject({ code: 'OUTSIDE_TARGETS', message: expect.stringContaining('loop.config.yaml') });
    expect(readFileSync(join(ws, 'src', 'a.txt'), 'utf8')).toBe('edited\n');
    expect(readFileSync(join(ws, 'loop.config.yaml'), 'utf8')).toBe('dir: .\n');
    expect(existsSync(stashPath(ws))).toBe(false);
  });

  it('counts a path as a target when it is one or lies inside a target folder', () => {
    expect(isUnderTargets('src/x/y.ts', ['src/'])).toBe(true);
    expect(isUnderTargets('config.json', ['./config.json'])).toBe(true);
    expect(isUnderTargets('srcx/y.ts', ['src'])).toBe(false);
  });
});

// Issue 26: a host process SIGKILLed between ask and tell (its edit made, not yet told) is an
// interrupted candidate. The next host (open() with resume) takes over the dead host's lock,
// rescues the edit under refs/loop/discarded/recovered (like any interrupted candidate), and runs
// the open iteration and the rest: the run ends as an uninterrupted one does, row n is iteration n.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAutoIterate } from '@loop/auto-iterate';
import { afterAll, describe, expect, it } from 'vitest';
import { edit, XS } from '../src/edits.js';
import { hostLoop, hostOptions } from '../src/host.js';
import { createWorkspace } from '../src/workspace.js';
import { git, leftLocks, rowsOf, runShape } from './git.js';

const exampleDir = fileURLToPath(new URL('..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'loop-agent-host-kill-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const workspace = (name: string) => {
  const dir = join(root, name);
  mkdirSync(dir);
  return createWorkspace(dir);
};

/** Starts the host child on `dir`; resolves once it printed READY (its trial `at` asked and edited). */
function startHost(dir: string, at: number) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=source', 'test/host-child.ts', dir, String(at)],
    {
      cwd: exampleDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on('close', (code, signal) => resolve(signal ?? code)),
  );
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.stderr.on('data', (d: Buffer) => (err += d));
    void exited.then((end) => reject(new Error(`host child ended (${end}) before READY: ${err}`)));
  });
  return { child, ready, exited };
}

describe('a host killed between ask and tell', () => {
  it(
    'kill -9 with an open trial, then open() with resume: the edit rescued, ' +
      'no stale lock, the run finishes as an uninterrupted one',
    async () => {
      const AT = 7;
      const dir = workspace('killed');
      const host = startHost(dir, AT);
      expect(await host.ready).toBe(`READY ${AT}`);
      // While the child holds its trial open, a second host (another process) is refused.
      await expect(
        createAutoIterate(hostOptions(dir, 20, { recovery: { resume: true } })).open(),
      ).rejects.toMatchObject({
        code: 'LOCK_HELD',
      });
      const tipAtKill = git(dir, 'rev-parse', 'HEAD');
      host.child.kill('SIGKILL');
      expect(await host.exited).toBe('SIGKILL');
      // What the kill left: AT - 1 rows after the baseline, the open trial's edit uncommitted, the dead host's lock.
      expect(rowsOf(dir)).toHaveLength(AT);
      expect(git(dir, 'status', '--porcelain')).toBe('M params.json');
      expect(leftLocks(dir)).toContain('loop-workspace.lock');

      const lines: string[] = [];
      const summary = await hostLoop(dir, 20, (iteration) => edit(dir, iteration), {
        resume: true,
        onRow: (l) => lines.push(l),
      });
      // The open trial's edit is kept reachable (a rescue commit on the tip it was made on), then the iteration runs
      // again.
      const rescued = 'refs/loop/discarded/recovered';
      expect(git(dir, 'rev-parse', `${rescued}^`)).toBe(tipAtKill);
      expect(JSON.parse(git(dir, 'show', `${rescued}:params.json`))).toEqual({ x: XS[AT - 1] });
      expect(lines[0]).toMatch(new RegExp(`^${AT} `));
      expect(summary).toMatchObject({ iterations: 20, best: 0, stop: { reason: 'max-iterations' } });
      // Row n is iteration n: the baseline, then each edit once, in order.
      expect(rowsOf(dir).map((r) => r[3]!.replace(/ \(.*\)$/, ''))).toEqual(['baseline', ...XS.map((x) => `x = ${x}`)]);
      expect(git(dir, 'status', '--porcelain')).toBe('');
      expect(leftLocks(dir)).toEqual([]);

      // The same as a host that was never killed, but for the rescue ref.
      const clean = workspace('uninterrupted');
      await hostLoop(clean, 20, (iteration) => edit(clean, iteration), { onRow: () => {} });
      const resumed = runShape(dir);
      const { [rescued]: rescuedTree, ...discarded } = resumed.discarded;
      expect(rescuedTree).toBeDefined();
      expect({ ...resumed, discarded }).toEqual(runShape(clean));
      expect(readFileSync(join(dir, 'params.json'), 'utf8')).toBe(readFileSync(join(clean, 'params.json'), 'utf8'));
    },
    300_000,
  ); // two 20-iteration runs and a child's start (tsx) on a loaded machine
});

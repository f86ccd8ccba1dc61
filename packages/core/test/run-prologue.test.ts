import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInGroupToLog } from '../src/process.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loop-prologue-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (command: string) =>
  runInGroupToLog({
    logPath: join(dir, 'run.log'),
    command,
    cwd: dir,
    env: process.env,
    killTimeoutMs: 10_000,
    graceMs: 100,
    pidFile: join(dir, '.loop', 'run.pgid'),
  });

describe('the run prologue (issue 31: a fixed cost near a bare spawn)', () => {
  it(
    'runs the command in the shell that wrote the pid file (and entered the ' +
      'cgroup), without exec-ing a second /bin/sh',
    async () => {
      // The command's own shell ($$) prints its argv: the prologue's, not `/bin/sh -c <command>`.
      const result = await run(`tr '\\0' '\\n' < /proc/$$/cmdline; cat .loop/run.pgid`);
      expect(result.exitCode).toBe(0);
      const lines = (await readFile(join(dir, 'run.log'), 'utf8')).split('\n');
      expect(lines[0]).toBe('/bin/sh');
      expect(lines[1]).toBe('-c');
      expect(lines[2]).toContain('__loop_command'); // the prologue script itself
      const pidFile = JSON.parse(lines.find((l) => l.startsWith('{'))!) as { pgid: number };
      expect(pidFile.pgid).toBeGreaterThan(1);
    },
  );

  it(
    'the command sees what `/bin/sh -c` gives it: no positional parameters, ' +
      "$0 /bin/sh, and its exit code is the run's",
    async () => {
      const result = await run('echo "[$#][$0][$1]"; exit 7');
      expect(result).toMatchObject({ exitCode: 7, signal: null });
      expect(await readFile(join(dir, 'run.log'), 'utf8')).toBe('[0][/bin/sh][]\n');
    },
  );

  it(
    'a command with a syntax error fails like under `/bin/sh -c` (exit code ' +
      '2) and the pid file is gone after the run',
    async () => {
      const result = await run('echo "unterminated');
      expect(result.exitCode).toBe(2);
      await expect(readFile(join(dir, '.loop', 'run.pgid'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );
});

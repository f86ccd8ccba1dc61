// Issue 32 item 1: a second `loop run` refused with LOCK_HELD killed the first run's in-flight
// harness (its leftover sweep ran in `finally` although it never took the lock). Two real `loop`
// processes on one workspace; the first one's harness waits on a file, not on time.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMutatorWorkspace, gitIn } from './fixtures/mutator-workspace.js';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

let ws: string;
let side: string;
const children: ChildProcess[] = [];

/** `loop <args>` as a real process in `ws`; resolves with its exit code and output. */
function loop(args: readonly string[]): {
  child: ChildProcess;
  done: Promise<{ code: number | null; out: string; err: string }>;
} {
  const child = spawn(process.execPath, ['--import', TSX, '--conditions=source', MAIN, ...args], {
    cwd: ws,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CI: '1' },
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += String(d)));
  child.stderr!.on('data', (d: Buffer) => (err += String(d)));
  return { child, done: new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err }))) };
}

/** Resolves once `file` exists (a directory watch plus a check after arming it). */
function whenExists(file: string, dir: string): Promise<void> {
  return new Promise((resolve) => {
    const w = watch(dir, () => existsSync(file) && (w.close(), resolve()));
    if (existsSync(file)) (w.close(), resolve());
  });
}

beforeEach(async () => {
  side = mkdtempSync(join(tmpdir(), 'loop-lock-side-'));
  // No crash repair: a killed harness shows as a crash row instead of a silent second attempt.
  ws = await createMutatorWorkspace('loop-lock-', { maxIterations: 1, maxRepairAttempts: 0 });
  // Call 1 is the baseline; call 2 (iteration 1) says "waiting" and waits until side/go exists.
  writeFileSync(
    join(ws, 'eval.mjs'),
    `import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
const side = ${JSON.stringify(side)};
appendFileSync(side + '/calls', 'x');
if (readFileSync(side + '/calls', 'utf8').length === 2) {
  writeFileSync(side + '/waiting.tmp', String(process.pid));
  renameSync(side + '/waiting.tmp', side + '/waiting'); // whole, never read half-written
  await new Promise((resolve) => { const t = setInterval(() => existsSync(side + '/go') && (clearInterval(t), ` +
      `resolve()), 20); });
}
const { x } = JSON.parse(readFileSync('config.json', 'utf8'));
console.log('score: ' + ((x - 3) ** 2 + 1));
`,
  );
  gitIn(ws, 'add', '-A');
  gitIn(ws, 'commit', '-q', '-m', 'slow eval');
});

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(ws, { recursive: true, force: true });
  rmSync(side, { recursive: true, force: true });
});

describe('a second loop run on a busy workspace (issue 32 item 1)', () => {
  it(
    "a run refused with LOCK_HELD (exit 3) touches nothing: the first run's " +
      'in-flight harness goes on and its row is not a crash',
    async () => {
      const first = loop(['run']);
      await whenExists(join(side, 'waiting'), side);
      const harnessPid = Number(readFileSync(join(side, 'waiting'), 'utf8'));

      const second = await loop(['run']).done;
      expect(second.code).toBe(3);
      expect(second.err).toContain('[LOCK_HELD]');
      // The first run's harness is still running (not ended, not a zombie) after the second exited.
      if (existsSync('/proc/self/stat'))
        expect(readFileSync(`/proc/${harnessPid}/stat`, 'utf8').split(') ')[1]?.[0]).not.toBe('Z');

      writeFileSync(join(side, 'go'), '');
      const done = await first.done;
      expect(done.err).toBe('');
      expect(done.code).toBe(0);
      const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      expect(rows.map((r) => r.status)).not.toContain('crash');
      expect(rows).toHaveLength(2);
      expect(readFileSync(join(side, 'calls'), 'utf8')).toBe('xx'); // no repeated attempt either
    },
    120_000,
  );
});

import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { bwrapStatus } from '@loop/core/process';
import { pidsWithEnv } from '@loop/internal-test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The real CLI (node --import tsx src/main.ts) with an agent proposer that escapes with setsid,
// and with a sandboxed run command. Real git, real processes.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

let root: string;
let ws: string;
let marker: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, encoding: 'utf8' }).trim();

function start(args: string[]) {
  const [key, value] = marker.split('=') as [string, string];
  const child = spawn(process.execPath, ['--import', TSX, '--conditions=source', MAIN, ...args], {
    cwd: root,
    env: { ...process.env, CI: '1', [key]: value },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
  child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
  const result = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>(
    (resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, result };
}

const config = (extra: string) => `dir: ws
targetFiles: [config.json]
readOnlyFiles: [eval.mjs]
runCommand: node eval.mjs
metricName: score
maxIterations: 1
${extra}`;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loop-cli-sandbox-'));
  ws = join(root, 'ws');
  marker = `LOOP_TEST_MARKER=${randomBytes(6).toString('hex')}`;
  mkdirSync(ws);
  writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(
    join(ws, 'eval.mjs'),
    "import { readFileSync } from 'node:fs';\nconst { x } = " +
      "JSON.parse(readFileSync('config.json', 'utf8'));\nconsole.log('score: ' " +
      '+ ((x - 3) ** 2 + 1));\n',
  );
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
});
afterEach(() => {
  for (const pid of pidsWithEnv(marker)) process.kill(Number(pid), 'SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

describe('loop run: no agent process outlives the CLI (real CLI, git, processes)', () => {
  it(
    "a SIGKILLed loop's agent left a setsid daemon; loop resume ends it " +
      'before the next agent call and finishes the run',
    async () => {
      // First call: start a setsid daemon, say so, hang. Later calls: make the edit.
      writeFileSync(
        join(root, 'agent.sh'),
        `cat > /dev/null\nif [ ! -e ${join(root, 'first')} ]; then\n  ` +
          `touch ${join(root, 'first')}\n  setsid sleep 600 >/dev/null 2>&1 &\n  ` +
          `echo up > ${join(root, 'daemon.up')}\n  sleep 600\nfi\necho '{"x":2}' > ` +
          `config.json\necho "DESCRIPTION: x 2"\n`,
      );
      writeFileSync(
        join(root, 'loop.config.yaml'),
        config(
          `proposer:\n  type: agent\n  command: sh ${join(root, 'agent.sh')}\n  goal: lower score\n  sandbox: none\n`,
        ),
      );
      const first = start(['run']);
      await vi.waitFor(() => expect(existsSync(join(root, 'daemon.up'))).toBe(true), { timeout: 30_000, interval: 25 });
      await vi.waitFor(() => expect(existsSync(join(ws, '.loop', 'agent.pgid'))).toBe(true), {
        timeout: 5000,
        interval: 10,
      });
      first.child.kill('SIGKILL');
      expect((await first.result).signal).toBe('SIGKILL');
      // the fault: the agent's shell, its sleep and the setsid daemon outlive the loop
      expect(pidsWithEnv(marker).length).toBeGreaterThanOrEqual(2);
      const resumed = await start(['resume']).result;
      expect(resumed.stderr).toBe('');
      expect(resumed.code).toBe(0);
      expect(pidsWithEnv(marker)).toEqual([]);
      const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      expect(rows.map((r) => r.status)).toEqual(['baseline', 'kept']);
    },
  );

  it.skipIf(!bwrapStatus().available)(
    `a run command in harness: { sandbox: bwrap } cannot write ` +
      `../outside.txt; the run goes ` +
      `on${bwrapStatus().available ? '' : ` — skipped: ${bwrapStatus().reason}`}`,
    async () => {
      writeFileSync(
        join(ws, 'eval.mjs'),
        "import { readFileSync, writeFileSync } from 'node:fs';\ntry { " +
          "writeFileSync('../outside.txt', 'x'); } catch (e) { " +
          "console.log('refused: ' + e.code); }\nconst { x } = " +
          "JSON.parse(readFileSync('config.json', 'utf8'));\nconsole.log('score: ' " +
          '+ ((x - 3) ** 2 + 1));\n',
      );
      git('commit', '-q', '-am', 'eval writes outside');
      writeFileSync(
        join(root, 'loop.config.yaml'),
        config(
          `proposer:\n  type: mutator\n  file: config.json\n  space: { x: { min: ` +
            `0, max: 5, integer: true } }\nharness:\n  sandbox: bwrap\n`,
        ),
      );
      const run = await start(['run']).result;
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(existsSync(join(root, 'outside.txt'))).toBe(false);
      expect(readFileSync(join(ws, 'run.log'), 'utf8')).toContain('refused: EROFS');
    },
  );

  it.skipIf(!bwrapStatus().available)(
    `loop run, default sandbox: an agent using sed -i is kept; one whose ` +
      `edits are refused gets a notice naming its log and its last lines, and ` +
      `the run stops after 5 such rows with reason no-file-changes (issue ` +
      `32)${bwrapStatus().available ? '' : ` — skipped: ${bwrapStatus().reason}`}`,
    async () => {
      writeFileSync(
        join(root, 'agent.sh'),
        'cat > /dev/null\nif [ "$LOOP_ITERATION" = 1 ]; then sed -i \'s/0/2/\' ' +
          "config.json; else sed -i 's/score/points/' eval.mjs; fi\necho " +
          '"DESCRIPTION: try"\n',
      );
      writeFileSync(
        join(root, 'loop.config.yaml'),
        config(`proposer:\n  type: agent\n  command: sh ${join(root, 'agent.sh')}\n  goal: lower score\n`).replace(
          'maxIterations: 1',
          'maxIterations: 30',
        ),
      );
      const run = await start(['run']).result;
      expect(run.code).toBe(0);
      const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      expect(rows.map((r) => r.status)).toEqual([
        'baseline',
        'kept',
        'reverted',
        'reverted',
        'reverted',
        'reverted',
        'reverted',
      ]);
      expect(readFileSync(join(ws, 'config.json'), 'utf8')).toBe('{"x":2}');
      const notices = run.stdout
        .split('\n')
        .filter((l) => l.includes('the agent exited 0 and changed none of config.json'));
      expect(notices).toHaveLength(5);
      expect(notices[0]).toContain(`the last lines of ${join(ws, '.loop', 'agent.log')}:`);
      expect(run.stdout).toMatch(/ {4}sed: cannot rename \.\/sed\w+: Device or resource busy\n/);
      expect(run.stdout).toContain(
        'stopped: no-file-changes (5 iterations in a row changed no file: the ' +
          'proposer has nothing left to try, or cannot write its targets; the last ' +
          'one: try [agent exited 0 and changed no target; .loop/agent.log ends: ' +
          'sed: cannot rename',
      );
    },
  );
});

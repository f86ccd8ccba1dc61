import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { acquireLock } from '@loop/core/files';
import { XMLValidator } from 'fast-xml-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVAL, editConfigFile, startLoop, type Result } from './cli-process.js';

let root: string;
let ws: string;

/** Runs `loop <args>` in `root` to its end. */
function loop(
  args: string[],
  onStdout?: (soFar: string, kill: (signal: NodeJS.Signals) => void) => void,
): Promise<Result> {
  return startLoop(root, args, onStdout).result;
}

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, encoding: 'utf8' }).trim();

/** Writes a config from the starter (or `from`) with edits. */
const editConfig = (file: string, edits: Record<string, unknown>, from = join(root, 'loop.config.yaml')) =>
  editConfigFile(file, edits, from);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loop-cli-'));
  ws = join(root, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(join(ws, 'eval.mjs'), EVAL);
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('loop (the real CLI on a real git repository)', () => {
  it('init, edit two fields, run, status, report to SVG and HTML', async () => {
    const init = await loop(['init']);
    expect(init).toMatchObject({ code: 0, stdout: expect.stringContaining('wrote') });
    expect(readFileSync(join(root, 'loop.config.yaml'), 'utf8')).toContain('# loop config, preset auto-iterate');
    // The two edits a new user makes: the workspace and the search space (plus a short run).
    editConfig(join(root, 'loop.config.yaml'), {
      dir: 'ws',
      'proposer.space': { x: { min: -10, max: 10, integer: true } },
      maxIterations: 3,
    });

    const run = await loop(['run']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^iter {3}0 {2}keep {5} +10\.000000 /m);
    expect(run.stdout).toMatch(/^iter {3}3 /m);
    expect(run.stdout).toContain('stopped: max-iterations (reached 3 iterations)');
    const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
    expect(rows).toHaveLength(4);
    expect(git('status', '--porcelain')).toBe('');
    expect(git('rev-parse', '--abbrev-ref', 'HEAD')).toMatch(/^auto-iterate\//);

    const status = await loop(['status', 'ws']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('iteration 3');
    expect(status.stdout).toContain('stopped   max-iterations (reached 3 iterations)');
    expect(status.stdout).toContain('lock      free');
    expect(status.stdout).toContain('last 4 of 4 rows (results.tsv):');
    const viaConfig = await loop(['status', 'loop.config.yaml', '--json']);
    expect(JSON.parse(viaConfig.stdout)).toMatchObject({
      dir: ws,
      locked: false,
      state: { status: 'stopped', iteration: 3 },
    });

    const report = await loop(['report', 'ws/results.tsv', '--out', 'plot.svg', '--html', 'plot.html']);
    expect(report.code).toBe(0);
    const svg = readFileSync(join(root, 'plot.svg'), 'utf8');
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg).toContain('score progress: 3 experiments');
    expect(svg).toContain('score (lower is better)'); // direction from .loop/state.json
    const html = readFileSync(join(root, 'plot.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html.match(/<tr class=/g)).toHaveLength(4);
  });

  it(
    'the checks gate from the config: a failing correctness command blocks ' +
      'every keep, each row saying why; the tree stays at the baseline',
    async () => {
      await loop(['init']);
      editConfig(join(root, 'loop.config.yaml'), {
        dir: 'ws',
        'proposer.space': { x: { min: 1, max: 5, integer: true } },
        maxIterations: 2,
        checks: { command: 'echo "2 tests failed"; exit 1' },
      });
      const run = await loop(['run']);
      expect(run.code).toBe(0);
      const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      const better = rows.slice(1).filter((r) => r.score !== null && r.score < 10);
      expect(better.length).toBeGreaterThan(0);
      for (const r of better)
        expect(r).toMatchObject({
          status: 'reverted',
          description: expect.stringContaining('(checks: `echo "2 tests failed"; exit 1` exited 1: 2 tests failed)'),
        });
      expect(rows.some((r) => r.status === 'kept')).toBe(false);
      expect(JSON.parse(readFileSync(join(ws, 'config.json'), 'utf8'))).toEqual({ x: 0 });
      expect(git('status', '--porcelain')).toBe('');
    },
  );

  it('a bad config fails with exit 2 naming the file, the line, the field and the allowed values', async () => {
    await loop(['init']);
    writeFileSync(
      join(root, 'loop.config.yaml'),
      readFileSync(join(root, 'loop.config.yaml'), 'utf8')
        .replace('direction: lower', 'direction: down')
        .replace('dir: .', 'dir: ws'),
    );
    const line = readFileSync(join(root, 'loop.config.yaml'), 'utf8').split('\n').indexOf('direction: down') + 1;
    const run = await loop(['run']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `error [CONFIG_INVALID]: [loop] [cli] invalid config ${join(root, 'loop.config.yaml')}:`,
    );
    expect(run.stderr).toContain(
      `loop.config.yaml:${line}: direction: "down" is not allowed; allowed values: "lower", "higher"`,
    );
    const json = await (async () => {
      writeFileSync(
        join(root, 'c.json'),
        JSON.stringify(
          {
            dir: 'ws',
            targetFiles: ['config.json'],
            runCommand: 'node eval.mjs',
            metricName: 'score',
            proposer: { type: 'agent', command: 'x' },
          },
          null,
          2,
        ),
      );
      return loop(['run', 'c.json']);
    })();
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('c.json:8: proposer.goal: missing required field (expected string)');
    const usage = await loop(['report']);
    expect(usage.code).toBe(2);
  });

  it('a held workspace lock exits 3 without touching the workspace', async () => {
    await loop(['init']);
    editConfig(join(root, 'loop.config.yaml'), {
      dir: 'ws',
      'proposer.space': { x: { min: -10, max: 10, integer: true } },
      maxIterations: 1,
    });
    const lock = await acquireLock({ path: join(ws, '.git', 'loop-workspace') });
    try {
      const run = await loop(['run']);
      expect(run.code).toBe(3);
      expect(run.stderr).toContain('[LOCK_HELD]');
      const status = await loop(['status', 'ws']);
      expect(status.stdout).toContain('lock      held by a running loop');
    } finally {
      await lock.release();
    }
    expect(git('rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
  });

  it(
    'Ctrl-C once stops at the last kept state with exit 0 (a clean stop: no ' +
      'ELIFECYCLE from pnpm; issue 32); loop resume continues without a new ' +
      'baseline',
    async () => {
      await loop(['init']);
      editConfig(join(root, 'loop.config.yaml'), {
        dir: 'ws',
        'proposer.space': { x: { min: -10, max: 10, integer: true } },
        maxIterations: 0,
        env: { SLEEP_MS: '300' },
      });
      let sent = false;
      const first = await loop(['run'], (out, kill) => {
        if (!sent && /^iter {3}2 /m.test(out)) {
          sent = true;
          kill('SIGINT');
        }
      });
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('interrupt: stopping after restoring the last kept state');
      expect(first.stdout).toContain('stopped: aborted');
      expect(git('status', '--porcelain')).toBe('');
      const before = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      expect(git('rev-parse', '--short=7', 'HEAD')).toBe(
        before.filter((r) => r.status === 'kept' || r.status === 'baseline').at(-1)!.candidateId,
      );
      const interrupted = await loop(['status', 'ws']);
      expect(interrupted.stdout).toContain('stopped   aborted');

      editConfig(join(root, 'resume.yaml'), { maxIterations: before.length + 1 });
      const resumed = await loop(['resume', 'resume.yaml']);
      expect(resumed.stderr).toBe('');
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toContain('(resuming)');
      expect(resumed.stdout).toMatch(/^resumed after iteration \d+/m);
      const after = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      expect(after).toHaveLength(before.length + 2);
      expect(after.filter((r) => r.status === 'baseline')).toHaveLength(1);
      expect(git('status', '--porcelain')).toBe('');
    },
  );

  it(
    'Ctrl-C twice during a run that ignores SIGTERM kills it, lets the ' +
      'rollback restore the last kept commit (no git reset), exits 0 once that ' +
      'stop sequence completed; loop resume continues',
    async () => {
      await loop(['init']);
      const mark = join(root, 'hanging');
      // exec: the run itself leads its process group, so SIGTERM alone cannot end it.
      editConfig(join(root, 'loop.config.yaml'), {
        dir: 'ws',
        runCommand: 'exec node eval.mjs',
        'proposer.space': { x: { min: -10, max: 10, integer: true } },
        maxIterations: 0,
        env: { SLEEP_MS: '50', HANG_AT: '3', HANG_MARK: mark },
      });
      const watcher = watch(root);
      const sendTwice = new Promise<void>((resolve) =>
        watcher.on('change', (_event, name) => String(name) === 'hanging' && resolve()),
      );
      let second = false;
      const running = startLoop(root, ['run'], (out, kill) => {
        // The second Ctrl-C once the first was handled (two signals sent at once merge into one).
        if (!second && out.includes('interrupt: stopping after restoring the last kept state')) {
          second = true;
          kill('SIGINT');
        }
      });
      await sendTwice; // iteration 3's candidate is committed and its run is in flight
      watcher.close();
      const pid = Number(readFileSync(join(ws, '.loop', 'run.pgid'), 'utf8').match(/"pgid":(\d+)/)?.[1]);
      expect(pid).toBeGreaterThan(0);
      running.kill('SIGINT');
      const run = await running.result;
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        'interrupt: stopping the running command now; waiting up to 10 s for the ' +
          'rollback to restore the last kept state',
      );
      expect(run.stdout).toContain('stopped: aborted');
      expect(() => process.kill(-pid, 0)).toThrow(); // the run's whole process group is gone
      expect(git('status', '--porcelain')).toBe('');
      const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      const lastKept = rows.filter((r) => r.status === 'kept' || r.status === 'baseline').at(-1)!.candidateId;
      expect(git('rev-parse', '--short=7', 'HEAD')).toBe(lastKept);
      expect(git('rev-parse', '--abbrev-ref', 'HEAD')).toMatch(/^auto-iterate\//);

      editConfig(join(root, 'resume.yaml'), { maxIterations: rows.length + 1, env: { SLEEP_MS: '0' } });
      const resumed = await loop(['resume', 'resume.yaml']);
      expect(resumed.stderr).toBe('');
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toMatch(
        new RegExp(`^resumed after iteration ${rows.length - 1}: best [\\d.]+ at ${lastKept}`, 'm'),
      );
      const after = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      expect(after).toHaveLength(rows.length + 2);
      expect(after.filter((r) => r.status === 'baseline')).toHaveLength(1);
      expect(git('status', '--porcelain')).toBe('');
    },
  );
});

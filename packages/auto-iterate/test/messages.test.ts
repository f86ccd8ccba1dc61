import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFunctionProposer } from '@loop/core';
import { createAutoIterate, type AutoIterateOptions } from '../src/index.js';
import { withOptions, type OptionsOver } from './with-options.js';

// Issue 12 item 9: messages that say what is wrong and what to run.
let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-messages-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(join(dir, 'eval.mjs'), "console.log('score: 1');\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const options = (over: OptionsOver = {}): AutoIterateOptions =>
  withOptions(
    {
      dir,
      tag: 't',
      files: { targetFiles: ['config.json'] },
      run: { command: 'node eval.mjs', timeBudgetS: 5, killTimeoutS: 10 },
      score: { metricName: 'score' },
      stop: { maxIterations: 1 },
      proposer: createFunctionProposer('p', () => ({ description: 'nothing' })),
    },
    over,
  );
const commit = () => {
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
};

describe('workspace messages', () => {
  it('a folder inside a repository is told which repository it is in, not to run git init', async () => {
    commit();
    const sub = join(dir, 'experiments', 'a');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'config.json'), '{}');
    const error = await createAutoIterate(options({ dir: sub }))
      .run()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NOT_A_REPOSITORY', details: { dir: sub, repository: dir } });
    expect((error as Error).message).toContain(`${sub} is inside the git repository ${dir}, not its root`);
    expect((error as Error).message).toContain('Do not run git init here');
  });

  it('a folder in no repository is told to run git init', async () => {
    await expect(createAutoIterate(options()).run()).rejects.toMatchObject({
      code: 'NOT_A_REPOSITORY',
      message: expect.stringContaining('is not in a git repository; run "git init"'),
    });
  });

  it('a new run in a used workspace names "loop resume" and leaves no run branch behind', async () => {
    commit();
    writeFileSync(join(dir, 'results.tsv'), 'commit\tscore\tstatus\tdescription\nabc1234\t1\tkeep\tbaseline\n');
    const error = await createAutoIterate(options())
      .run()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RESUME_MISMATCH' });
    expect((error as Error).message).toContain('continue it with "loop resume"');
    expect((error as Error).message).not.toContain('pass resume: true');
    expect(git('symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(git('branch', '--list', 'auto-iterate/*')).toBe('');
  });

  it(
    'a failed baseline leaves no run branch behind: the previous branch is ' +
      'checked out again and "loop run" can start afresh',
    async () => {
      writeFileSync(join(dir, 'eval.mjs'), 'process.exit(3);\n');
      commit();
      const error = await createAutoIterate(options())
        .run()
        .catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'BASELINE_FAILED',
        message: expect.stringContaining('the run branch auto-iterate/t was removed and main checked out again'),
      });
      expect(git('symbolic-ref', 'HEAD')).toBe('refs/heads/main');
      expect(git('branch', '--list', 'auto-iterate/*')).toBe('');
      writeFileSync(join(dir, 'eval.mjs'), "console.log('score: 1');\n");
      git('commit', '-q', '-am', 'fix the harness');
      await expect(createAutoIterate(options()).run()).resolves.toMatchObject({ baseline: 1 });
    },
  );

  it('a state file left without its results.tsv is refused before any branch is created', async () => {
    commit();
    mkdirSync(join(dir, '.loop'));
    writeFileSync(join(dir, '.loop', 'state.json'), JSON.stringify({ iteration: 3 }));
    const error = await createAutoIterate(options({ files: { allowDirty: true } }))
      .run()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'RESUME_MISMATCH',
      message: expect.stringContaining('or start a new run with "loop run --new"'),
    });
    expect(git('branch', '--list', 'auto-iterate/*')).toBe('');
  });
  it(
    'a harness fixed in place before a resume is refused before anything ' +
      'runs, saying how to keep the fix; the fix is not lost',
    async () => {
      commit();
      let x = 0;
      const edits = createFunctionProposer(
        'p',
        () => (writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: ++x })), { description: `x ${x}` }),
      );
      await createAutoIterate(options({ files: { readOnlyFiles: ['eval.mjs'] }, proposer: edits })).run();
      writeFileSync(join(dir, 'eval.mjs'), "console.log('score: 0.5');\n");
      const error = await createAutoIterate(
        options({
          proposer: edits,
          files: { readOnlyFiles: ['eval.mjs'] },
          stop: { maxIterations: 3 },
          recovery: { resume: true },
        }),
      )
        .run()
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'HARNESS_TAMPERED', details: { files: ['eval.mjs'] } });
      expect((error as Error).message).toContain('git stash push -- eval.mjs; then loop resume');
      expect((error as Error).message).toContain('start a new run with a new baseline');
      expect(readFileSync(join(dir, 'eval.mjs'), 'utf8')).toBe("console.log('score: 0.5');\n");
      git('stash', 'push', '-q', '--', 'eval.mjs');
      const summary = await createAutoIterate(
        options({
          proposer: edits,
          files: { readOnlyFiles: ['eval.mjs'] },
          stop: { maxIterations: 3 },
          recovery: { resume: true },
        }),
      ).run();
      expect(summary.stop.reason).toBe('max-iterations');
      expect(git('stash', 'show', '-p')).toContain("+console.log('score: 0.5');");
    },
  );
  it('Ctrl-C during the baseline says it was interrupted, not to fix the harness', async () => {
    writeFileSync(
      join(dir, 'eval.mjs'),
      "require('node:fs').writeFileSync('.git/started', ''); setTimeout(() => {}, 60000);\n".replace(
        "require('node:fs')",
        "(await import('node:fs'))",
      ),
    );
    commit();
    const controller = new AbortController();
    const running = createAutoIterate(options({ signal: controller.signal }))
      .run()
      .catch((e: unknown) => e);
    await vi.waitFor(() => expect(existsSync(join(dir, '.git', 'started'))).toBe(true), {
      timeout: 20_000,
      interval: 20,
    });
    controller.abort();
    const error = (await running) as Error;
    expect(error).toMatchObject({ code: 'BASELINE_FAILED' });
    expect(error.message).toContain(
      'the baseline was interrupted (nothing is wrong with the harness); run "loop run" again',
    );
    expect(error.message).not.toContain('fix the harness');
  });
});

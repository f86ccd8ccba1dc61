import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFunctionProposer, type Proposer } from '@loop/core';
import { userPolicies } from '@loop/internal-test-utils';
import { createAutoIterate, parseAutoIterateTsv, type AutoIterateOptions } from '../src/index.js';
import { withOptions, type OptionsOver } from './with-options.js';
import { watchSetting } from './watch-setting.js';

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();

// The experiment: score = (x - 3)^2 + 1 printed as "score: <n>"; x = 7 sleeps (a timeout),
// x = 8 prints no metric, x = 9 exits non-zero. Each run appends to .loop/runs.log (excluded).
const EVAL = `import { readFileSync, appendFileSync, mkdirSync } from 'node:fs';
const { x } = JSON.parse(readFileSync('config.json', 'utf8'));
mkdirSync('.loop', { recursive: true });
appendFileSync('.loop/runs.log', 'run x=' + x + '\\n');
console.log('evaluating x=' + x);
if (x === 7) setTimeout(() => {}, 60000);
else if (x === 8) console.log('no metric today');
else if (x === 9) { console.log('boom'); process.exit(3); }
else console.log('score: ' + ((x - 3) ** 2 + 1));
`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-auto-iterate-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(join(dir, 'eval.mjs'), EVAL);
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A proposer that sets x to the next value of `xs` each iteration. */
function scripted(xs: number[], extra?: (iteration: number) => void): Proposer {
  return createFunctionProposer('scripted', ({ iteration }) => {
    const x = xs[iteration - 1]!;
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ x }));
    extra?.(iteration);
    return { description: `x -> ${x}` };
  });
}

function options(xs: number[], over: OptionsOver = {}): AutoIterateOptions {
  return withOptions(
    {
      dir,
      tag: 'test',
      proposer: scripted(xs),
      files: { targetFiles: ['config.json'], readOnlyFiles: ['eval.mjs'], watch: watchSetting.watch },
      run: { command: 'node eval.mjs', timeBudgetS: 1, killTimeoutS: 1.5 },
      score: { metricName: 'score', direction: 'minimize' },
      stop: { maxIterations: xs.length },
    },
    over,
  );
}

const rows = () => parseAutoIterateTsv(readFileSync(join(dir, 'results.tsv'), 'utf8'));
const onBranch = (sha: string) => git('merge-base', '--is-ancestor', sha, 'HEAD') === '';
const isAncestor = (sha: string) => {
  try {
    git('merge-base', '--is-ancestor', sha, 'HEAD');
    return true;
  } catch {
    return false;
  }
};

describe('auto-iterate preset (real git, real processes)', () => {
  it('keep rows are commits on the run branch, discard and crash rows are not, HEAD is the last keep, the tree is clean', async () => {
    const run = createAutoIterate(options([1, 5, 2, 8, 3]));
    const summary = await run.run();
    const r = rows();
    expect(r.map((x) => x.status)).toEqual(['baseline', 'kept', 'reverted', 'kept', 'crash', 'kept']);
    expect(readFileSync(join(dir, 'results.tsv'), 'utf8').split('\n')[0]).toBe('commit\tscore\tstatus\tdescription');
    expect(git('rev-parse', '--abbrev-ref', 'HEAD')).toBe('auto-iterate/test');
    for (const row of r) {
      const keep = row.status === 'kept' || row.status === 'baseline';
      expect(isAncestor(row.candidateId)).toBe(keep);
    }
    expect(git('rev-parse', '--short=7', 'HEAD')).toBe(r.at(-1)!.candidateId);
    expect(git('status', '--porcelain')).toBe('');
    expect(git('log', '--format=%s', 'main')).toBe('init'); // the user's branch never moved
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({ x: 3 });
    expect(summary).toMatchObject({ baseline: 10, best: 1, counts: { kept: 3, reverted: 1, crash: 1 } });
  });

  it('a timeout is a crash, its process is killed, and the candidate is rolled back', async () => {
    await createAutoIterate(options([7])).run();
    const [, crash] = rows();
    expect(crash).toMatchObject({ status: 'crash', score: null });
    expect(crash!.description).toMatch(/timed out/);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({ x: 0 });
    expect(git('status', '--porcelain')).toBe('');
  });

  it('a run without the metric is a crash carrying the log tail to the proposer for repair (at most 2 times)', async () => {
    const tails: string[] = [];
    const proposer = createFunctionProposer(
      'repairing',
      () => (writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 8 })), { description: 'x -> 8' }),
      ({ crash, attempt }) => {
        tails.push(crash!.logTail);
        writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: attempt === 1 ? 9 : 4 }));
        return { description: `repair ${attempt}` };
      },
    );
    await createAutoIterate(options([0], { proposer, stop: { maxIterations: 1 } })).run();
    expect(tails).toEqual(['evaluating x=8\nno metric today', 'evaluating x=9\nboom']);
    const [, row] = rows();
    expect(row).toMatchObject({
      status: 'kept',
      score: 2,
      description: 'x -> 8; repair 1: repair 1; repair 2: repair 2',
    });
    expect(git('log', '--format=%s', '-1')).toBe('auto-iterate: x -> 8; repair 1: repair 1; repair 2: repair 2');
  });

  it('a change to a read-only file is rejected and rolled back without running', async () => {
    const proposer = scripted([1], () => appendFileSync(join(dir, 'eval.mjs'), '\nconsole.log("score: 0");\n'));
    await createAutoIterate(options([1], { proposer })).run();
    const [, row] = rows();
    expect(row).toMatchObject({ status: 'rejected', score: null });
    expect(row!.description).toMatch(/changed read-only eval\.mjs/);
    expect(readFileSync(join(dir, 'eval.mjs'), 'utf8')).toBe(EVAL);
    expect(readFileSync(join(dir, '.loop', 'runs.log'), 'utf8')).toBe('run x=0\n'); // only the baseline ran
    expect(git('status', '--porcelain')).toBe('');
  });

  it('a proposal that creates a file outside the targets is rejected and the file removed (seed 001: CANNOT modify outside the target scope)', async () => {
    const proposer = scripted([1], () => writeFileSync(join(dir, 'scratch.txt'), 'notes'));
    await createAutoIterate(options([1], { proposer })).run();
    const [, row] = rows();
    expect(row).toMatchObject({ status: 'rejected', score: null });
    expect(row!.description).toMatch(/changed outside the targets scratch\.txt/);
    expect(git('status', '--porcelain')).toBe('');
    expect(readFileSync(join(dir, '.loop', 'runs.log'), 'utf8')).toBe('run x=0\n');
  });

  it('an edited tracked file outside the targets is named as an edit, a created one as a new file', async () => {
    writeFileSync(join(dir, 'notes.md'), 'tracked\n');
    git('add', 'notes.md');
    git('commit', '-q', '-m', 'notes');
    const proposer = scripted([1, 2], (iteration) =>
      writeFileSync(join(dir, iteration === 1 ? 'notes.md' : 'scratch.txt'), 'edited by the agent\n'),
    );
    await createAutoIterate(options([1, 2], { proposer })).run();
    const [, edited, created] = rows();
    expect(edited!.description).toMatch(/\(changed outside the targets notes\.md\)$/);
    expect(created!.description).toMatch(/\(changed outside the targets scratch\.txt \(new file\)\)$/);
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('tracked\n');
    expect(git('status', '--porcelain')).toBe('');
  });

  it('a discarded experiment stays readable under refs/loop/discarded/<iteration>', async () => {
    await createAutoIterate(options([-5])).run();
    const [, row] = rows();
    expect(row!.status).toBe('reverted');
    expect(git('rev-parse', '--short=7', 'refs/loop/discarded/1')).toBe(row!.candidateId);
    expect(git('diff', 'HEAD', 'refs/loop/discarded/1', '--', 'config.json')).toContain('+{"x":-5}');
  });

  it('resume continues from the last keep commit and results.tsv without re-running the baseline', async () => {
    const controller = new AbortController();
    const first = scripted([1, 2, 4], (iteration) => {
      if (iteration === 3) controller.abort(); // Ctrl-C while iteration 3 is in flight
    });
    const s1 = await createAutoIterate(options([1, 2, 4], { proposer: first, signal: controller.signal })).run();
    expect(s1.stop.reason).toBe('aborted');
    expect(rows()).toHaveLength(3);
    // Leave debris like a killed process would: an uncommitted edit of the target.
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 99 }));
    const s2 = await createAutoIterate(options([1, 2, 3, 5], { recovery: { resume: true } })).run();
    expect(rows().map((r) => r.status)).toEqual(['baseline', 'kept', 'kept', 'kept', 'reverted']);
    const runs = readFileSync(join(dir, '.loop', 'runs.log'), 'utf8')
      .trim()
      .split('\n');
    expect(runs.filter((l) => l === 'run x=0')).toHaveLength(1); // one baseline in total
    expect(s2).toMatchObject({ baseline: 10, best: 1, iterations: 4 });
    expect(git('status', '--porcelain')).toBe('');
  });

  it('refuses to start over an existing results.tsv unless resuming', async () => {
    await createAutoIterate(options([1])).run();
    await expect(createAutoIterate(options([1], { tag: 'other' })).run()).rejects.toMatchObject({
      code: 'RESUME_MISMATCH',
    });
  });

  it('an existing run branch is BRANCH_EXISTS unless resuming', async () => {
    git('branch', 'auto-iterate/test');
    await expect(createAutoIterate(options([1])).run()).rejects.toMatchObject({ code: 'BRANCH_EXISTS' });
  });

  it('refuses a dirty working tree and lists the files', async () => {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 42 }));
    await expect(createAutoIterate(options([1])).run()).rejects.toMatchObject({
      code: 'DIRTY_WORKTREE',
      message: expect.stringContaining('config.json'),
    });
  });

  it('a second loop on the same workspace fails with LOCK_HELD', async () => {
    const a = createAutoIterate(options([1, 2]));
    const started = new Promise((resolve) => a.loop.on('iteration-started', resolve));
    const running = a.run();
    await started;
    await expect(createAutoIterate(options([1], { recovery: { resume: true } })).run()).rejects.toMatchObject({
      code: 'LOCK_HELD',
    });
    await running;
  });

  it('invalid options fail with CONFIG_INVALID naming the field', () => {
    expect(() => createAutoIterate(options([1], { files: { targetFiles: [] } }))).toThrow(
      /targetFiles: name at least one file/,
    );
    expect(() => createAutoIterate(options([1], { score: { direction: 'down' as never } }))).toThrow(/direction/);
    expect(() => createAutoIterate(options([1], { run: { timeBudgetS: 10, killTimeoutS: 5 } }))).toThrow(
      /killTimeoutS: killTimeoutS must be at least timeBudgetS/,
    );
    expect(() => createAutoIterate(options([1], { files: { readOnlyFiles: ['config.json'] } }))).toThrow(
      /readOnlyFiles: a file cannot be both/,
    );
  });

  it('a missing target file is CONFIG_INVALID naming it', async () => {
    await expect(
      createAutoIterate(options([1], { files: { targetFiles: ['nope.json'] } })).run(),
    ).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('nope.json does not exist'),
    });
  });

  it('the checks gate: a failing correctness command blocks the keep of a better candidate (discard, the reason in the description), a passing one lets it through', async () => {
    // the "test suite" fails while x is 1
    writeFileSync(
      join(dir, 'check.mjs'),
      "import { readFileSync } from 'node:fs'; const { x } = JSON.parse(readFileSync('config.json', 'utf8')); if (x === 1) { console.log('test x=1 is forbidden'); process.exit(2); }",
    );
    git('add', '.');
    git('commit', '-q', '-m', 'checks');
    await createAutoIterate(
      options([1, 2], {
        files: { readOnlyFiles: ['eval.mjs', 'check.mjs'] },
        keep: { checks: { command: 'node check.mjs' } },
      }),
    ).run();
    const r = rows();
    expect(r.map((x) => x.status)).toEqual(['baseline', 'reverted', 'kept']);
    expect(r[1]!.description).toBe('x -> 1 (checks: `node check.mjs` exited 2: test x=1 is forbidden)');
    expect(isAncestor(r[2]!.candidateId)).toBe(true);
    expect(git('status', '--porcelain')).toBe('');
  });

  it('a user-written KeepPolicy, StopPolicy and Guard work unchanged with auto-iterate', async () => {
    const { keepPolicy, stop, guard, calls } = userPolicies();
    const summary = await createAutoIterate(
      options([2, 1, 4, 5, 6], { keep: { policy: keepPolicy, guards: [guard] }, stop: { policy: stop } }),
    ).run();
    const r = rows();
    // the keep policy wants a gain of at least 2: x=2 (score 2, gain 8) kept, x=1 (score 5) not; the guard rejects x=4; a plateau of 2 stops
    expect(r.map((x) => x.status)).toEqual(['baseline', 'kept', 'reverted', 'rejected']);
    expect(r[3]!.description).toContain('(user-ban: banned by the user)');
    expect(summary.stop.reason).toBe('user-plateau');
    expect(calls.decide).toBe(2);
  });
});

describe('auto-iterate: what a proposal created is gone after its row (issue 32 item 8)', () => {
  it('a proposal that only creates an empty directory: the row says no change: not evaluated, and the directory is removed; one that existed before stays', async () => {
    mkdirSync(join(dir, 'data'));
    const proposer = createFunctionProposer('mkdir-only', ({ iteration }) => {
      if (iteration === 1) mkdirSync(join(dir, 'scratch', 'deeper'), { recursive: true });
      else writeFileSync(join(dir, 'config.json'), JSON.stringify({ x: 2 }));
      return { description: iteration === 1 ? 'make a folder' : 'x -> 2' };
    });
    await createAutoIterate(options([0, 2], { proposer })).run();
    const r = rows();
    expect(r[1]!.description).toBe('make a folder (no change: not evaluated)');
    expect(r[2]!.status).toBe('kept');
    expect(existsSync(join(dir, 'scratch'))).toBe(false);
    expect(existsSync(join(dir, 'data'))).toBe(true);
    expect(git('status', '--porcelain')).toBe('');
  });
});

describe('auto-iterate in a workspace whose .git is a file (issue 32 item 7)', () => {
  const setUps: Record<string, () => { ws: string; extra: string }> = {
    'a linked worktree (git worktree add)': () => {
      const extra = mkdtempSync(join(tmpdir(), 'loop-auto-iterate-linked-'));
      git('worktree', 'add', '-q', '-b', 'experiments', join(extra, 'wt'));
      return { ws: join(extra, 'wt'), extra };
    },
    'a submodule': () => {
      const extra = mkdtempSync(join(tmpdir(), 'loop-auto-iterate-super-'));
      const inSuper = (...args: string[]) =>
        execFileSync(
          'git',
          ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'protocol.file.allow=always', ...args],
          { cwd: extra, encoding: 'utf8' },
        );
      inSuper('init', '-q', '-b', 'main');
      inSuper('submodule', 'add', '-q', dir, 'sub');
      inSuper('commit', '-qm', 'sub');
      return { ws: join(extra, 'sub'), extra };
    },
  };
  it.each(Object.keys(setUps))(
    '%s: runs, keeps and reverts like a plain repository, the workspace lock in the directory its .git names, and resumes',
    async (kind) => {
      const { ws, extra } = setUps[kind]!();
      const inWs = (...args: string[]) =>
        execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
          cwd: ws,
          encoding: 'utf8',
        }).trim();
      try {
        const ownGitDir = inWs('rev-parse', '--absolute-git-dir'); // where git keeps this worktree's HEAD and index
        const lockSeen: boolean[] = [];
        const propose = (xs: number[]) =>
          createFunctionProposer('scripted', ({ iteration }) => {
            lockSeen.push(existsSync(join(ownGitDir, 'loop-workspace.lock')));
            writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: xs[iteration - 1] }));
            return { description: `x -> ${xs[iteration - 1]}` };
          });
        const summary = await createAutoIterate(options([2, 6], { dir: ws, proposer: propose([2, 6]) })).run();
        expect(summary.iterations).toBe(2);
        const r = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
        expect(r.map((row) => row.status)).toEqual(['baseline', 'kept', 'reverted']);
        expect(inWs('rev-parse', '--short=7', 'HEAD')).toBe(r[1]!.candidateId);
        expect(inWs('status', '--porcelain')).toBe('');
        expect(lockSeen).toEqual([true, true]); // the workspace lock is held where git keeps this worktree's own files
        const resumed = await createAutoIterate(
          options([2, 6, 3], { dir: ws, recovery: { resume: true }, proposer: propose([2, 6, 3]) }),
        ).run();
        expect(resumed.iterations).toBe(3);
        expect(inWs('status', '--porcelain')).toBe('');
      } finally {
        rmSync(extra, { recursive: true, force: true });
      }
    },
  );
});

describe("targets never reach git's or the loop's own files", () => {
  it('a target inside .git or .loop is CONFIG_INVALID naming targetFiles, before anything is touched (an agent writing .git/config could run commands outside its sandbox)', () => {
    for (const bad of ['.git/config', 'sub/.git/config', '.loop/state.json', './.git/hooks/pre-commit']) {
      expect(() => createAutoIterate(options([1], { files: { targetFiles: ['config.json', bad] } }))).toThrow(
        expect.objectContaining({
          code: 'CONFIG_INVALID',
          message: expect.stringMatching(/targetFiles\.1: must not be inside \.git or \.loop/),
        }),
      );
    }
    expect(() =>
      createAutoIterate(options([1], { files: { targetFiles: ['config.json', 'docs/.github/x.md'] } })),
    ).not.toThrow();
  });
});

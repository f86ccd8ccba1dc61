import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFunctionProposer } from '@loop/core';
import { userPolicies } from '@loop/internal-test-utils';
import { createAutoIterate } from '../src/index.js';
import { dir, EVAL, git, isAncestor, options, rows, scripted, useRepository } from './auto-iterate-fixture.js';

useRepository();

describe('auto-iterate preset (real git, real processes)', () => {
  it(
    'keep rows are commits on the run branch, discard and crash rows are ' +
      'not, HEAD is the last keep, the tree is clean',
    async () => {
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
    },
  );

  it('a timeout is a crash, its process is killed, and the candidate is rolled back', async () => {
    await createAutoIterate(options([7])).run();
    const [, crash] = rows();
    expect(crash).toMatchObject({ status: 'crash', score: null });
    expect(crash!.description).toMatch(/timed out/);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({ x: 0 });
    expect(git('status', '--porcelain')).toBe('');
  });

  it(
    'a run without the metric is a crash carrying the log tail to the ' + 'proposer for repair (at most 2 times)',
    async () => {
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
    },
  );

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

  it(
    'a proposal that creates a file outside the targets is rejected and the ' +
      'file removed (seed 001: CANNOT modify outside the target scope)',
    async () => {
      const proposer = scripted([1], () => writeFileSync(join(dir, 'scratch.txt'), 'notes'));
      await createAutoIterate(options([1], { proposer })).run();
      const [, row] = rows();
      expect(row).toMatchObject({ status: 'rejected', score: null });
      expect(row!.description).toMatch(/changed outside the targets scratch\.txt/);
      expect(git('status', '--porcelain')).toBe('');
      expect(readFileSync(join(dir, '.loop', 'runs.log'), 'utf8')).toBe('run x=0\n');
    },
  );

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

  it(
    'the checks gate: a failing correctness command blocks the keep of a ' +
      'better candidate (discard, the reason in the description), a passing one ' +
      'lets it through',
    async () => {
      // the "test suite" fails while x is 1
      writeFileSync(
        join(dir, 'check.mjs'),
        "import { readFileSync } from 'node:fs'; const { x } = " +
          "JSON.parse(readFileSync('config.json', 'utf8')); if (x === 1) { " +
          "console.log('test x=1 is forbidden'); process.exit(2); }",
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
    },
  );

  it('a user-written KeepPolicy, StopPolicy and Guard work unchanged with auto-iterate', async () => {
    const { keepPolicy, stop, guard, calls } = userPolicies();
    const summary = await createAutoIterate(
      options([2, 1, 4, 5, 6], { keep: { policy: keepPolicy, guards: [guard] }, stop: { policy: stop } }),
    ).run();
    const r = rows();
    // the keep policy wants a gain of at least 2: x=2 (score 2, gain 8) kept, x=1 (score 5) not; the guard rejects x=4;
    // a plateau of 2 stops
    expect(r.map((x) => x.status)).toEqual(['baseline', 'kept', 'reverted', 'rejected']);
    expect(r[3]!.description).toContain('(user-ban: banned by the user)');
    expect(summary.stop.reason).toBe('user-plateau');
    expect(calls.decide).toBe(2);
  });
});

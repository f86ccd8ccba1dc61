import { execFileSync } from 'node:child_process';
import { linkSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFunctionProposer } from '@loop/core';
import { readHoldoutUses } from '@loop/core/policies';
import { createAgentCommandProposer } from '@loop/core/proposers';
import { bwrapStatus } from '@loop/core/process';
import { createAutoIterate, parseAutoIterateTsv, type AutoIterateOptions } from '../src/index.js';
import { CHEATING_AGENT, holdoutFixture, hostileAgent } from './holdout-fixture.js';

// Issue 33: a sealed holdout, end to end: real git, real bwrap, real agent commands.
const bwrap = bwrapStatus();
const skipped = bwrap.available ? '' : ` — skipped: ${bwrap.reason} (CI installs bubblewrap)`;
let f: ReturnType<typeof holdoutFixture>;
const bases: string[] = [];
afterEach(() => {
  for (const base of bases.splice(0)) rmSync(base, { recursive: true, force: true });
});
/** A new fixture, removed after the test (a test may make several). */
function fixture(options: { apart?: boolean } = {}): ReturnType<typeof holdoutFixture> {
  f = holdoutFixture(options);
  bases.push(f.base, ...(f.apart ? [f.apart] : []));
  return f;
}

function options(
  agentScript: string,
  over: {
    sealed?: boolean;
    gate?: { budget: number; margin?: number };
    iterations?: number;
    holdoutSandbox?: 'auto' | 'none';
    holdoutCommand?: string;
  } = {},
): AutoIterateOptions {
  writeFileSync(join(f.base, 'agent.sh'), agentScript);
  const sealed = over.sealed ?? true;
  const proposer = createAgentCommandProposer({
    command: `sh ${join(f.base, 'agent.sh')}`,
    cwd: f.ws,
    goal: 'lower val_loss',
    sandbox: 'bwrap',
    network: false,
    // What the CLI does for a sealed holdout: its files and state folder masked in the agent's sandbox.
    hidden: sealed ? [f.holdout, f.state] : [],
  });
  return {
    dir: f.ws,
    tag: 't',
    files: { targetFiles: ['model.json', 'loot.txt'], readOnlyFiles: ['eval.mjs', 'val.txt'] },
    run: { command: 'node eval.mjs', timeBudgetS: 30, killTimeoutS: 60 },
    score: { metricName: 'val_loss' },
    stop: { maxIterations: over.iterations ?? 4, stopAfterNoChange: 0 },
    proposer,
    holdout: {
      command: over.holdoutCommand ?? `node ${join(f.holdout, 'eval-test.mjs')}`,
      metricName: 'test_loss',
      files: [f.holdout],
      stateDir: f.state,
      sealed,
      sandboxed: sealed,
      sandbox: over.holdoutSandbox ?? 'auto',
      ...(over.gate ? { gate: over.gate } : {}),
    },
  };
}

/** Every file under `dir` (the workspace: .git included), and every git object's content. */
function readableFromTheSandbox(dir: string): string {
  const parts: string[] = [];
  const walk = (p: string): void => {
    for (const name of readdirSync(p)) {
      const path = join(p, name);
      const s = statSync(path, { throwIfNoEntry: false });
      if (s?.isDirectory()) walk(path);
      else if (s?.isFile()) parts.push(readFileSync(path, 'latin1'));
    }
  };
  walk(dir);
  parts.push(
    execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
      cwd: dir,
      encoding: 'latin1',
      maxBuffer: 1 << 28,
    }),
  );
  return parts.join('\n');
}

const rows = () => parseAutoIterateTsv(readFileSync(join(f.ws, 'results.tsv'), 'utf8'));

describe.skipIf(!bwrap.available)(`a sealed holdout, end to end (issue 33)${skipped}`, () => {
  it(
    'a cheating agent that memorises the visible validation set: the visible ' +
      'score improves, the holdout worsens, the gap widens use by use',
    async () => {
      fixture();
      const run = createAutoIterate(options(CHEATING_AGENT, { gate: { budget: 10, margin: 1000 } }));
      await run.run();
      expect(rows().map((r) => r.status)).toEqual(['baseline', 'kept', 'kept', 'kept', 'kept']);
      const gates = (await readHoldoutUses(f.state, run.branch)).filter((u) => u.kind === 'gate');
      expect(gates.map((u) => u.iteration)).toEqual([1, 2, 3, 4]);
      const gap = gates.map((u) => u.score! - u.visible!);
      for (let i = 1; i < gap.length; i++) expect(gap[i]).toBeGreaterThan(gap[i - 1]!);
      expect(gates.slice(1).map((u) => u.visible)).toEqual([0.9, 0.8, 0.7]);
      expect(gates.map((u) => u.score)).toEqual([8.654321, 8.754321, 8.854321, 8.954321]);
    },
  );

  it(
    'a holdout in a /tmp folder apart from the workspace is readable by its sandboxed run: ' +
      'the final score is recorded',
    async () => {
      fixture({ apart: true });
      const run = createAutoIterate(options(CHEATING_AGENT, { iterations: 1 }));
      await run.run();
      const final = (await readHoldoutUses(f.state, run.branch)).filter((u) => u.kind === 'final');
      expect(final).toEqual([expect.objectContaining({ score: 8.654321 })]);
    },
  );

  it(
    'with the gate on (margin 0), the memorising keeps are not kept: the ' + 'run stays at the genuine improvement',
    async () => {
      fixture();
      const run = createAutoIterate(options(CHEATING_AGENT, { gate: { budget: 10 } }));
      const summary = await run.run();
      expect(rows().map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted', 'reverted', 'reverted']);
      expect(rows()[2]?.description).toMatch(/kept back by the sealed holdout \(gate use 3 of 10\)/);
      expect(summary.best).toBe(1);
      const final = (await readHoldoutUses(f.state, run.branch)).filter((u) => u.kind === 'final');
      expect(final).toEqual([expect.objectContaining({ iteration: 1, visible: 1, score: 8.654321 })]);
    },
  );

  it(
    'the holdout is evaluated exactly the counted number of times: the gate ' + 'budget, then the final score',
    async () => {
      fixture();
      const counter = join(f.base, 'holdout-runs.txt');
      writeFileSync(counter, '');
      const command = `echo run >> ${counter} && node ${join(f.holdout, 'eval-test.mjs')}`;
      const run = createAutoIterate(
        options(CHEATING_AGENT, { gate: { budget: 3, margin: 1000 }, holdoutSandbox: 'none', holdoutCommand: command }),
      );
      await run.run();
      expect(readFileSync(counter, 'utf8').split('\n').filter(Boolean)).toHaveLength(3 + 1);
      expect((await readHoldoutUses(f.state, run.branch)).map((u) => [u.use, u.kind, u.gateUse])).toEqual([
        [1, 'gate-incumbent', 1],
        [2, 'gate', 2],
        [3, 'gate', 3],
        [4, 'final', undefined],
      ]);
    },
  );

  it(
    'a hostile agent tries at least ten ways (cat, find, grep -r, /proc ' +
      'roots, ../, links, git objects, env, state and logs) to read the holdout ' +
      'and its scores and gets nothing; no file it can read holds a holdout ' +
      'score',
    async () => {
      fixture();
      const hostile = hostileAgent(f);
      expect(hostile.ways.length).toBeGreaterThanOrEqual(10);
      const run = createAutoIterate(options(hostile.script, { gate: { budget: 5 }, iterations: 1 }));
      await run.run();
      expect(rows().map((r) => r.status)).toEqual(['baseline', 'kept']);
      const loot = f.git('show', `${run.branch}:loot.txt`);
      if (process.env.LOOP_SHOW_LOOT) process.stderr.write(`--- sealed loot ---\n${loot}\n`);
      for (const way of hostile.ways) expect(loot).toContain(`== ${way}`);
      expect(loot).toContain('lower val_loss'); // its prompt was read (and holds no holdout score: checked below)
      expect(loot).not.toContain(f.mark);
      expect(loot).not.toContain('test_loss');
      expect(loot).not.toMatch(/\d\.\d54321/); // no holdout score (they all end in ...54321 here)
      const uses = await readHoldoutUses(f.state, run.branch);
      expect(uses.map((u) => u.kind)).toEqual(['gate-incumbent', 'gate', 'final']);
      // The scores exist, outside the workspace; nothing the agent's sandbox can read holds one.
      const readable = readableFromTheSandbox(f.ws);
      for (const u of uses) expect(readable).not.toContain(String(u.score));
      expect(readable).not.toContain(f.mark);
    },
  );

  it(
    'the same hostile agent without the seal (sealed: false, nothing masked) ' +
      'reads the holdout and its scores: the test can fail',
    async () => {
      fixture();
      const run = createAutoIterate(
        options(hostileAgent(f).script, { sealed: false, gate: { budget: 5 }, iterations: 1 }),
      );
      await run.run();
      const loot = f.git('show', `${run.branch}:loot.txt`);
      if (process.env.LOOP_SHOW_LOOT) process.stderr.write(`--- unsealed loot ---\n${loot}\n`);
      expect(loot).toContain(f.mark);
      expect(loot).toMatch(/9\.554321/); // the incumbent's holdout score, read from the state folder
    },
  );
});

describe('a sealed holdout refuses to start when it cannot be sealed (issue 33)', () => {
  const refusal = async (
    over: Partial<NonNullable<AutoIterateOptions['holdout']>>,
    prepare?: () => void,
    files?: () => string[],
  ) => {
    fixture();
    prepare?.();
    const proposer = createFunctionProposer(
      'p',
      () => (writeFileSync(join(f.ws, 'model.json'), '{"s":3,"memo":[]}'), { description: 's 3' }),
    );
    const run = createAutoIterate({
      dir: f.ws,
      tag: 't',
      files: { targetFiles: ['model.json'] },
      run: { command: 'node eval.mjs' },
      score: { metricName: 'val_loss' },
      stop: { maxIterations: 1 },
      proposer,
      holdout: {
        command: `node ${join(f.holdout, 'eval-test.mjs')}`,
        metricName: 'test_loss',
        files: files ? files() : [f.holdout],
        stateDir: f.state,
        sandboxed: true,
        sandbox: 'none',
        ...over,
      },
    });
    return run.run().then(
      () => undefined,
      (error: unknown) => error as Error & { code?: string },
    );
  };

  it(
    'an in-process proposer (no sandbox) with sealed: true is ' +
      'HOLDOUT_NOT_SEALED, naming the opt-out; sealed: false runs',
    async () => {
      const error = await refusal({ sandboxed: false });
      expect(error).toMatchObject({
        code: 'HOLDOUT_NOT_SEALED',
        message: expect.stringMatching(/no working sandbox.*holdout\.sealed: false/),
      });
      expect(await refusal({ sandboxed: false, sealed: false })).toBeUndefined();
    },
  );

  it(
    'holdout files whose bytes were ever committed to the workspace (even ' +
      'deleted since) are HOLDOUT_NOT_SEALED: git cat-file would read them',
    async () => {
      const error = await refusal({}, () => {
        writeFileSync(join(f.ws, 'copy.txt'), readFileSync(join(f.holdout, 'test.txt')));
        f.git('add', 'copy.txt');
        f.git('commit', '-qm', 'oops');
        f.git('rm', '-q', 'copy.txt');
        f.git('commit', '-qm', 'undo');
      });
      expect(error).toMatchObject({
        code: 'HOLDOUT_NOT_SEALED',
        message: expect.stringContaining(join(f.holdout, 'test.txt')),
      });
    },
  );

  it('a holdout file inside the workspace is HOLDOUT_NOT_SEALED (the proposer reads the workspace)', async () => {
    const error = await refusal(
      {},
      () => writeFileSync(join(f.ws, 'secret.txt'), 'x'),
      () => [join(f.ws, 'secret.txt')],
    );
    expect(error).toMatchObject({ code: 'HOLDOUT_NOT_SEALED', message: expect.stringMatching(/inside the workspace/) });
  });

  it('a holdout file with a second hard link is HOLDOUT_NOT_SEALED (the other name may be readable)', async () => {
    const error = await refusal({}, () => linkSync(join(f.holdout, 'test.txt'), join(f.base, 'second-name.txt')));
    expect(error).toMatchObject({ code: 'HOLDOUT_NOT_SEALED', message: expect.stringMatching(/2 hard links/) });
  });
});

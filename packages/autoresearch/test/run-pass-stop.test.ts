import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopError } from '@loop/core';
import { writeJsonAtomic } from '@loop/core/files';
import { createSnapshotRollback } from '@loop/rollback-snapshot';
import { runPass } from '../src/index.js';
import { parseResultsTsv } from '../src/results-tsv.js';
import { makeWorkspace, passOptions, scriptedProposer, steppingClock, type Workspace } from './helpers.js';

let ws: Workspace;
afterEach(() => ws?.cleanup());

const tsv = () => parseResultsTsv(readFileSync(ws.resultsPath, 'utf8'));
const statuses = () => tsv().rows.map((r) => r.status);
const state = () => JSON.parse(readFileSync(ws.statePath, 'utf8'));

describe('autoresearch pass (seed 002 loop skeleton)', () => {
  it('human interrupt (abort) stops the pass and still restores best and writes state.json', async () => {
    ws = makeWorkspace();
    const ac = new AbortController();
    const o = passOptions(ws, [{ to: 7 }]);
    const proposer = scriptedProposer(ws, [{ to: 7 }]);
    const r = await runPass({
      ...o,
      signal: ac.signal,
      proposer: {
        ...proposer,
        apply: (i, c) => {
          ac.abort();
          return proposer.apply(i, c);
        },
      },
    });
    expect(r.stopReason).toBe('aborted');
    expect(state().autoresearch.function.stop_reason).toBe('aborted');
  });

  it(
    'rubric fingerprint re-checked before every scoring: a changed criteria ' +
      'YAML halts the pass as rubric-tampered, the unscored edit reverted (seed ' +
      '002 loop step 5)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 6 }, { to: 8 }]);
      const proposer = scriptedProposer(ws, [{ to: 6 }, { to: 8 }]);
      const r = await runPass({
        ...o,
        proposer: {
          ...proposer,
          apply: (i, c) => {
            if (c.iteration === 2) ws.write('criteria/ar-function.yaml', 'quality: anything goes\n');
            return proposer.apply(i, c);
          },
        },
      });
      expect(statuses()).toEqual(['baseline', 'kept', 'rubric-tampered']);
      expect(r).toMatchObject({ halted: 'rubric-tampered', stopReason: 'rubric-tampered', bestComposite: 6 });
      expect(r.error?.code).toBe('HARNESS_TAMPERED');
      expect(ws.value()).toBe(6);
      expect(state().autoresearch.function).toMatchObject({ status: 'rubric-tampered', rubric_sha256: r.rubricSha256 });
    },
  );

  it(
    'restore-failed: a failed restore appends the loud restore-failed row ' +
      'and halts the pass, and state.json is still written last (seed 002 ' +
      'restore robustness)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 3 }, { to: 9 }]);
      const real = createSnapshotRollback({
        workspace: ws.dir,
        runDir: ws.runDir,
        files: ['src/score.ts'],
        clock: steppingClock(),
      });
      const rollback = {
        ...real,
        revert: async () => {
          throw new LoopError('RESTORE_FAILED', 'disk full');
        },
      };
      const r = await runPass({ ...o, rollback });
      expect(statuses()).toEqual(['baseline', 'restore-failed']);
      expect(r).toMatchObject({ halted: 'restore-failed', stopReason: 'restore-failed' });
      expect(r.summaryText).toMatch(/^HALTED: restore-failed/);
      expect(state().autoresearch.function.status).toBe('restore-failed');
      expect(ws.value()).toBe(5); // the stop sequence's restore-best put the baseline back
    },
  );

  it(
    'on stop, in this order: restore best, summarise, write state.json last ' + '(seed 002 on-stop steps 1-3)',
    async () => {
      ws = makeWorkspace();
      const trace: string[] = [];
      const o = passOptions(ws, [{ to: 7 }, { to: 4 }]);
      const real = createSnapshotRollback({
        workspace: ws.dir,
        runDir: ws.runDir,
        files: ['src/score.ts'],
        clock: steppingClock(),
      });
      const rollback = {
        ...real,
        restoreBest: async (id: string) => {
          trace.push(`restoreBest ${id.slice(0, 8)}`);
          await real.restoreBest(id);
        },
      };
      await runPass({
        ...o,
        config: { ...o.config, maxIterations: 2 },
        rollback,
        output: (l) => trace.push(l.startsWith('autoresearch') ? 'summary' : 'line'),
        writeState: async (p, d) => {
          trace.push('state.json');
          await writeJsonAtomic(p, d);
        },
      });
      expect(trace.slice(-3)).toEqual(['restoreBest 001-kept', 'summary', 'state.json']);
    },
  );

  it(
    'state.json is the last write: its mtime is not older than any source ' +
      'file, snapshot or results.tsv, after a plateau of reverts (seed 002 ' +
      'on-stop step 3)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 6 }, { to: 4 }, { to: 3 }, { to: 2 }]);
      await runPass(o);
      const stateMtime = statSync(ws.statePath).mtimeMs;
      const walk = (d: string): string[] =>
        readdirSync(d, { withFileTypes: true }).flatMap((e) =>
          e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)],
        );
      for (const f of walk(ws.dir).filter((p) => p !== ws.statePath))
        expect(statSync(f).mtimeMs).toBeLessThanOrEqual(stateMtime);
    },
  );

  it(
    'state.json records autoresearch.<mode>.rubric_sha256 and appends the ' +
      'final scores to step_history, keeping the pipeline state (seed 002 setup ' +
      'step 7, on-stop step 3)',
    async () => {
      ws = makeWorkspace();
      ws.write('.aid/pipeline/state.json', JSON.stringify({ stage: 'AR_FUNCTION', step_history: [{ step: 'TDD' }] }));
      const o = passOptions(ws, [{ to: 6 }]);
      const r = await runPass({ ...o, config: { ...o.config, maxIterations: 1 } });
      const s = state();
      expect(s.stage).toBe('AR_FUNCTION');
      expect(s.autoresearch.function).toMatchObject({
        rubric_sha256: r.rubricSha256,
        start_score: 5,
        best_score: 6,
        stop_reason: 'max-iterations',
      });
      expect(s.step_history.map((h: { step: string }) => h.step)).toEqual(['TDD', 'AR_FUNCTION']);
      expect(r.rubricSha256).toMatch(/^[0-9a-f]{64}$/);
    },
  );

  it(
    'state-write-failed is surfaced loudly as STATE_WRITE_FAILED carrying ' +
      'the result, not left to the Stop gate (seed 002 on-stop step 3)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 6 }]);
      const error = (await runPass({
        ...o,
        config: { ...o.config, maxIterations: 1 },
        writeState: async () => {
          throw new Error('ENOSPC: no space left on device');
        },
      }).catch((e: unknown) => e)) as LoopError;
      expect(error.code).toBe('STATE_WRITE_FAILED');
      expect(error.message).toMatch(/state-write-failed: .*ENOSPC/);
      expect(error.details.result).toMatchObject({ bestComposite: 6 });
    },
  );

  it(
    'resume: a results.tsv with data rows is never re-baselined; the pass ' +
      'resumes from the next iter with best = max kept composite (seed 002 ' +
      'setup step 4, loop step 1)',
    async () => {
      ws = makeWorkspace();
      const first = passOptions(ws, [{ to: 7 }, { to: 4 }]);
      await runPass({ ...first, config: { ...first.config, maxIterations: 2 } });
      ws.write('src/score.ts', 'export const value = 1;\n'); // an interrupted edit left behind
      const second = passOptions(ws, [{ to: 7 }, { to: 8 }], { clock: steppingClock(Date.UTC(2026, 10, 30, 6)) });
      const r = await runPass({ ...second, config: { ...second.config, maxIterations: 4 } });
      expect(r.resumed).toBe(true);
      expect(tsv().rows.map((x) => `${x.iter}:${x.status}`)).toEqual([
        '0:baseline',
        '1:kept',
        '2:reverted',
        '3:reverted',
        '4:kept',
      ]);
      expect(tsv().rows.filter((x) => x.status === 'baseline')).toHaveLength(1);
      expect(readdirSync(join(ws.runDir, 'snapshots')).filter((n) => n.startsWith('000-baseline-'))).toHaveLength(1);
      expect(r.startComposite).toBe(5);
      expect(ws.value()).toBe(8);
    },
  );

  it(
    'prints exactly one line per iteration: iter <N> | <status> | ' +
      '<composite> (Δ <delta>) | <desc>, then the stop summary (seed 002 ' +
      'Output)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [
        { to: 7, description: 'inline the parser' },
        { to: 6, description: 'rename vars' },
        { to: 8, description: 'early return' },
      ]);
      await runPass({ ...o, config: { ...o.config, maxIterations: 3 } });
      expect(o.lines.slice(0, 4)).toEqual([
        'iter 0 | baseline | 5.00 (Δ 0.00) | baseline',
        'iter 1 | kept | 7.00 (Δ 2.00) | inline the parser',
        'iter 2 | reverted | 6.00 (Δ -1.00) | rename vars',
        'iter 3 | kept | 8.00 (Δ 1.00) | early return',
      ]);
      expect(o.lines).toHaveLength(5);
      const summary = o.lines[4]!;
      expect(summary).toMatch(/stopped: max-iterations/);
      expect(summary).toMatch(/composite 5\.00 -> best 8\.00/);
      expect(summary).toMatch(/kept 2 \| reverted 1 \| crash 0/);
      expect(summary).toMatch(/top kept: iter 1 \+2\.00 inline the parser; iter 3 \+1\.00 early return/);
      expect(summary).toMatch(/rubric sha256 [0-9a-f]{64}/);
    },
  );

  it('a baseline the harness cannot score is BASELINE_FAILED and nothing is snapshotted', async () => {
    ws = makeWorkspace();
    ws.write('src/score.ts', 'export const value = 666;\n');
    await expect(runPass(passOptions(ws, [{ to: 1 }]))).rejects.toMatchObject({ code: 'BASELINE_FAILED' });
    expect(existsSync(join(ws.runDir, 'snapshots'))).toBe(false);
  });

  it('a missing rubric file at pass start is HARNESS_TAMPERED naming it', async () => {
    ws = makeWorkspace();
    const o = passOptions(ws, [{ to: 1 }]);
    writeFileSync(ws.rubricFiles[0]!, '');
    await expect(
      runPass({ ...o, rubricFiles: [...o.rubricFiles, join(ws.dir, 'missing.yaml')] }),
    ).rejects.toMatchObject({ code: 'HARNESS_TAMPERED', message: expect.stringMatching(/missing\.yaml/) });
  });
});

describe('one pass per run directory', () => {
  it('a second pass on the same task while one runs is LOCK_HELD', async () => {
    ws = makeWorkspace();
    const o = passOptions(ws, [{ to: 6 }]);
    let inner: Promise<unknown> | undefined;
    const proposer = scriptedProposer(ws, [{ to: 6 }]);
    await runPass({
      ...o,
      config: { ...o.config, maxIterations: 1 },
      proposer: {
        ...proposer,
        apply: async (i, c) => {
          if (c.round === 0) inner = runPass(passOptions(ws, [{ to: 7 }])).catch((e: unknown) => e);
          await inner;
          return proposer.apply(i, c);
        },
      },
    });
    expect(await inner).toMatchObject({ code: 'LOCK_HELD' });
  });
});

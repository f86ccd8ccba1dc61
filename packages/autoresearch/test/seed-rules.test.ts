import { readFileSync, utimesSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopError } from '@loop/core';
import { writeJsonAtomic } from '@loop/core/files';
import { createSnapshotRollback } from '@loop/rollback-snapshot';
import { runPass } from '../src/index.js';
import { parseResultsTsv } from '../src/results-tsv.js';

type LoopErrorLike = { code: string; message: string };
import { makeWorkspace, OLD_MS, passOptions, scriptedProposer, steppingClock, type Workspace } from './helpers.js';

let ws: Workspace;
afterEach(() => ws?.cleanup());

const state = () => JSON.parse(readFileSync(ws.statePath, 'utf8'));
const statuses = () => parseResultsTsv(readFileSync(ws.resultsPath, 'utf8')).rows.map((r) => r.status);

describe('seed 002 rules closed in the line-by-line re-read', () => {
  it(
    'seed 002 setup step 7: the rubric fingerprint is recorded in state.json ' +
      'under autoresearch.<mode>.rubric_sha256 at pass start, before the ' +
      'baseline is scored',
    async () => {
      ws = makeWorkspace();
      let atBaseline: unknown;
      const o = passOptions(ws, [{ to: 6 }]);
      await runPass({
        ...o,
        config: { ...o.config, maxIterations: 1 },
        harness: {
          ...o.harness,
          score: (c) => {
            if (c.iteration === 0) atBaseline = state().autoresearch.function;
            return o.harness.score(c);
          },
        },
      });
      expect(atBaseline).toEqual({ task_id: 'T-1', rubric_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(state().autoresearch.function.rubric_sha256).toBe((atBaseline as { rubric_sha256: string }).rubric_sha256);
    },
  );

  it(
    'seed 002 setup step 7 + resume: a rubric changed between two runs of ' +
      'the same pass refuses to resume as HARNESS_TAMPERED (scores across the ' +
      'change are incomparable) and touches nothing',
    async () => {
      ws = makeWorkspace();
      const ac = new AbortController();
      const first = passOptions(ws, [{ to: 6 }]);
      await runPass({
        ...first,
        signal: ac.signal,
        output: (l) => {
          if (l.startsWith('iter 1 | kept')) ac.abort();
        },
      });
      ws.write('criteria/ar-function.yaml', 'quality: lenient\n');
      const before = readFileSync(ws.resultsPath, 'utf8');
      const second = passOptions(ws, [{ to: 7 }], { clock: steppingClock(Date.UTC(2026, 10, 30, 6)) });
      await expect(runPass(second)).rejects.toMatchObject({
        code: 'HARNESS_TAMPERED',
        message: expect.stringMatching(/rubric changed since this pass started/),
      });
      expect(readFileSync(ws.resultsPath, 'utf8')).toBe(before);
      expect(ws.value()).toBe(6);
    },
  );

  it(
    'seed 002 safety brakes: an edit that needs a new dependency or a secret ' +
      'stops the pass (needs-human) and surfaces it as a needs-human row — ' +
      'nothing added, snapshotted or applied; a clean stop, not a failure',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 9 }]);
      const r = await runPass({
        ...o,
        proposer: {
          name: 'needs-dep',
          plan: () => ({
            description: 'parse with a YAML library',
            files: ['src/score.ts'],
            needsHuman: { kind: 'new-dependency', detail: 'needs the yaml package' },
          }),
          apply: () => {
            throw new Error('must not apply');
          },
        },
      });
      expect(r.stopReason).toBe('needs-human');
      expect(r.stopMessage).toMatch(/needs a new-dependency: needs the yaml package — surfaced, not added/);
      expect(r.summaryText).toMatch(/stopped: needs-human/);
      expect(statuses()).toEqual(['baseline', 'needs-human']);
      expect(parseResultsTsv(readFileSync(ws.resultsPath, 'utf8')).rows[1]).toMatchObject({
        columns: { composite: '-' },
        snapshot: '-',
      });
      expect(r.halted).toBeUndefined();
      expect(state().autoresearch.function).toMatchObject({ status: 'stopped', stop_reason: 'needs-human' });
      expect(ws.value()).toBe(5);
    },
  );

  it(
    'seed 002 on-stop step 1: a failed restore of the best version is the ' +
      'loud restore-failed halt, and state.json is STILL written last (step 3)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 6 }]);
      const real = createSnapshotRollback({
        workspace: ws.dir,
        runDir: ws.runDir,
        files: ['src/score.ts'],
        clock: steppingClock(),
      });
      const rollback = {
        ...real,
        restoreBest: async () => {
          throw new LoopError('RESTORE_FAILED', 'target snapshot unreadable');
        },
      };
      const r = await runPass({ ...o, config: { ...o.config, maxIterations: 1 }, rollback });
      expect(r).toMatchObject({ halted: 'restore-failed' });
      expect(r.error?.code).toBe('RESTORE_FAILED');
      expect(state().autoresearch.function.status).toBe('restore-failed');
    },
  );

  it(
    'seed 002 on-stop step 3: a state.json that re-reads older than the ' +
      'newest source file is state-write-failed, not trusted',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 6 }]);
      const writeState = async (p: string, d: unknown) => {
        await writeJsonAtomic(p, d);
        utimesSync(p, new Date(OLD_MS - 60_000), new Date(OLD_MS - 60_000));
      };
      const error = (await runPass({ ...o, config: { ...o.config, maxIterations: 1 }, writeState }).catch(
        (e: unknown) => e,
      )) as LoopErrorLike;
      expect(error.code).toBe('STATE_WRITE_FAILED');
      expect(error.message).toMatch(/older than the newest source file/);
    },
  );

  it(
    'seed 002 invocation: each pass logs its pipeline stage to step_history ' +
      '(design → AR_DESIGN, function → AR_FUNCTION)',
    async () => {
      ws = makeWorkspace();
      const d = passOptions(ws, [{ to: 6 }], { mode: 'design' });
      await runPass({ ...d, config: { ...d.config, maxIterations: 1 } });
      ws.write('.aid/pipeline/autoresearch/T-1/results.tsv', '');
      const f = passOptions(ws, [{ to: 6 }], { clock: steppingClock(Date.UTC(2026, 10, 30, 6)) });
      await runPass({ ...f, config: { ...f.config, maxIterations: 1 } });
      expect(state().step_history.map((h: { step: string }) => h.step)).toEqual(['AR_DESIGN', 'AR_FUNCTION']);
      expect(Object.keys(state().autoresearch).sort()).toEqual(['design', 'function']);
    },
  );
});

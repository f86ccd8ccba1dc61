import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runPass } from '../src/index.js';
import { parseResultsTsv } from '../src/results-tsv.js';
import { makeWorkspace, OLD_MS, passOptions, scriptedProposer, type Workspace } from './helpers.js';

let ws: Workspace;
afterEach(() => ws?.cleanup());

const tsv = () => parseResultsTsv(readFileSync(ws.resultsPath, 'utf8'));
const statuses = () => tsv().rows.map((r) => r.status);
const state = () => JSON.parse(readFileSync(ws.statePath, 'utf8'));

describe('autoresearch pass (seed 002 loop skeleton)', () => {
  it(
    'results.tsv header is iter composite delta <the pass exact dimension ' +
      'ids> status snapshot utc (seed 002 setup step 4, AR-2)',
    async () => {
      ws = makeWorkspace();
      await runPass(passOptions(ws, [{ to: 6 }], { config: { ...passOptions(ws, []).config, maxIterations: 1 } }));
      expect(readFileSync(ws.resultsPath, 'utf8').split('\n')[0]).toBe(
        'iter\tcomposite\tdelta\tquality\tpass_rate\tcoverage\tstatus\tsnapshot\tutc',
      );
    },
  );

  it(
    'row 0 is the baseline: iter 0, composite = best_score, delta 0.00, ' +
      'status baseline, the 000-baseline-<UTC> snapshot, UTC (seed 002 setup ' +
      'steps 5-6)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 6 }]);
      await runPass({ ...o, config: { ...o.config, maxIterations: 1 } });
      const row0 = tsv().rows[0]!;
      expect(row0).toMatchObject({
        iter: '0',
        columns: { composite: '5.00', delta: '0.00', quality: '5.00' },
        status: 'baseline',
        snapshot: '000-baseline-20261130T040003Z',
      });
      expect(row0.utc).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(readdirSync(join(ws.runDir, 'snapshots'))).toContain('000-baseline-20261130T040003Z');
    },
  );

  it(
    'strict improvement: a higher composite is kept, stays on disk, and its ' +
      'row carries delta = composite - best before (seed 002 loop step 6)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 6 }, { to: 7.5 }]);
      await runPass({ ...o, config: { ...o.config, maxIterations: 2 } });
      expect(statuses()).toEqual(['baseline', 'kept', 'kept']);
      expect(tsv().rows[2]!.columns).toMatchObject({ composite: '7.50', delta: '1.50' });
      expect(ws.value()).toBe(7.5);
    },
  );

  it('equal scores revert (seed 002: strict-improvement keep, equal scores revert)', async () => {
    ws = makeWorkspace();
    const o = passOptions(ws, [{ to: 5, description: 'cosmetic rename' }]);
    await runPass({ ...o, config: { ...o.config, maxIterations: 1 } });
    expect(statuses()).toEqual(['baseline', 'reverted']);
    expect(tsv().rows[1]!.columns.delta).toBe('0.00');
  });

  it(
    'a worse edit is reverted from its pre-edit snapshot with cp -p: content ' +
      'back, mtime preserved (seed 002 loop step 6)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 3 }]);
      await runPass({ ...o, config: { ...o.config, maxIterations: 1 } });
      expect(statuses()).toEqual(['baseline', 'reverted']);
      expect(ws.value()).toBe(5);
      expect(Math.abs(statSync(join(ws.dir, 'src/score.ts')).mtimeMs - OLD_MS)).toBeLessThanOrEqual(1);
    },
  );

  it(
    'the snapshot column holds the pre-edit snapshot file name ' +
      '<NNN>-pre-<slug>-<safe-F>-<UTC> (seed 002 loop step 3)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 3 }]);
      await runPass({ ...o, config: { ...o.config, maxIterations: 1 } });
      const snap = tsv().rows[1]!.snapshot;
      expect(snap).toMatch(/^001-pre-to-3-src__score\.ts-\d{8}T\d{6}Z$/);
      expect(readFileSync(join(ws.runDir, 'snapshots', snap), 'utf8')).toBe('export const value = 5;\n');
    },
  );

  it(
    'a harness error is crash: restored from the snapshot, composite -, ' +
      'counted as a revert (seed 002 loop step 6)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 666 }]);
      const r = await runPass({ ...o, config: { ...o.config, maxIterations: 1 } });
      expect(statuses()).toEqual(['baseline', 'crash']);
      expect(tsv().rows[1]!.columns.composite).toBe('-');
      expect(ws.value()).toBe(5);
      expect(r.counts.crash).toBe(1);
    },
  );

  it('a proposer that fails to apply is a crash row and the partial edit is restored', async () => {
    ws = makeWorkspace();
    const o = passOptions(ws, [{ to: 9, applyThrows: true }]);
    await runPass({ ...o, config: { ...o.config, maxIterations: 1 } });
    expect(statuses()).toEqual(['baseline', 'crash']);
    expect(ws.value()).toBe(5);
  });

  it(
    'function mode: a test going green to red is reverted-redtest regardless ' +
      'of the quality sub-score (seed 002 loop step 6)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: -9, description: 'quality up but a test breaks' }]);
      const r = await runPass({ ...o, config: { ...o.config, maxIterations: 1 } });
      expect(tsv().rows[1]).toMatchObject({
        status: 'reverted-redtest',
        columns: { quality: '9.00', composite: '0.00' },
      });
      expect(ws.value()).toBe(5);
      expect(r.counts).toMatchObject({ reverted: 1, revertedRedtest: 1 });
    },
  );

  it(
    'the consecutive-reverts counter counts reverted, reverted-redtest and ' +
      'crash alike; only kept resets it (plateau, seed 002)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 4 }, { to: -1 }, { to: 6 }, { to: 4 }, { to: -1 }, { to: 666 }, { to: 9 }]);
      const r = await runPass({ ...o, config: { ...o.config, maxConsecutiveReverts: 3 } });
      expect(statuses()).toEqual([
        'baseline',
        'reverted',
        'reverted-redtest',
        'kept',
        'reverted',
        'reverted-redtest',
        'crash',
      ]);
      expect(r.stopReason).toBe('plateau');
      expect(ws.value()).toBe(6);
    },
  );

  it('stops at the iteration cap: N reaches max_iterations (seed 002 stop conditions)', async () => {
    ws = makeWorkspace();
    const o = passOptions(ws, [{ to: 4 }], {
      autoresearch: { ar_function: { max_iterations: 2, max_consecutive_reverts: 10 } },
    });
    const r = await runPass(o);
    expect(r.stopReason).toBe('max-iterations');
    expect(tsv().rows.map((x) => x.iter)).toEqual(['0', '1', '2']);
  });

  it(
    'stops when the target is met: function composite ≥ kpi_target with ' +
      'every Tier-1 gate green (seed 002 stop conditions)',
    async () => {
      ws = makeWorkspace();
      const o = passOptions(ws, [{ to: 9.5 }, { to: 9.9 }]);
      const r = await runPass(o);
      expect(r.stopReason).toBe('target-met');
      expect(statuses()).toEqual(['baseline', 'kept']);
    },
  );

  it(
    'design mode: target met when every KPI dimension ≥ kpi_target (default ' +
      '9.5), and a single apply per iteration',
    async () => {
      ws = makeWorkspace();
      const log: string[] = [];
      const o = passOptions(ws, [{ to: 9.4 }, { to: 9.6 }], { mode: 'design' });
      const r = await runPass({ ...o, proposer: scriptedProposer(ws, [{ to: 9.4 }, { to: 9.6 }], log) });
      expect(r.stopReason).toBe('target-met');
      expect(readFileSync(ws.resultsPath, 'utf8').split('\n')[0]).toBe(
        'iter\tcomposite\tdelta\tstructural_health\tloudness_of_failures\t' +
          'naming_clarity\tdocs_traceability\tstatus\tsnapshot\tutc',
      );
      expect(log).toEqual(['apply 1 round 0/1', 'apply 2 round 0/1']);
    },
  );

  it(
    'function mode applies internal_rounds apply/refine rounds (default 2) ' +
      'before official scoring (seed 002 AR2_INTERNAL_ROUNDS)',
    async () => {
      ws = makeWorkspace();
      const log: string[] = [];
      const o = passOptions(ws, [{ to: 6 }], { autoresearch: { ar_function: { max_iterations: 1 } } });
      await runPass({ ...o, proposer: scriptedProposer(ws, [{ to: 6 }], log) });
      expect(log).toEqual(['apply 1 round 0/2', 'apply 1 round 1/2']);
    },
  );

  it(
    'cost brake: stops immediately once the host-fed cost meter reaches ' +
      'max_per_run_usd (seed 002 stop conditions)',
    async () => {
      ws = makeWorkspace();
      let spent = 0;
      const o = passOptions(ws, [{ to: 4 }]);
      const proposer = scriptedProposer(ws, [{ to: 4 }]);
      const r = await runPass({
        ...o,
        proposer: {
          ...proposer,
          apply: (i, c) => {
            if (c.round === 0) spent += 0.6;
            return proposer.apply(i, c);
          },
        },
        cost: { meter: { spentUsd: () => spent }, maxPerRunUsd: 1 },
      });
      expect(r.stopReason).toBe('cost-brake');
      expect(r.iterationsThisRun).toBe(2);
    },
  );
});

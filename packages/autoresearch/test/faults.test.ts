// Issue 11 faults 3-5 (in process): the stop sequence on an unreadable kept snapshot, resume
// precision, and an edit to a harness file that is not a rubric file.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSnapshotRollback, nodeSnapshotFs, type SnapshotFs } from '@loop/rollback-snapshot';
import { runPass, type AutoresearchProposer, type PassHarness } from '../src/index.js';
import { parseResultsTsv } from '../src/results-tsv.js';
import { makeWorkspace, passOptions, steppingClock, valueHarness, type Workspace } from './helpers.js';

let ws: Workspace;
afterEach(() => ws?.cleanup());

const statuses = () => parseResultsTsv(readFileSync(ws.resultsPath, 'utf8')).rows.map((r) => r.status);
const state = () => JSON.parse(readFileSync(ws.statePath, 'utf8'));

/**
 * Sets src/score.ts to `values[iteration - 1]`: keyed by iteration, so a resumed pass proposes what an uninterrupted
 * one would.
 */
function byIteration(values: number[], extra: (iteration: number) => void = () => {}): AutoresearchProposer {
  return {
    name: 'by-iteration',
    plan: ({ iteration }) => ({
      description: `set value to ${values[iteration - 1]}`,
      files: ['src/score.ts'],
      slug: `to-${iteration}`,
    }),
    apply: (_idea, { iteration, round }) => {
      if (round > 0) return;
      ws.write('src/score.ts', `export const value = ${values[iteration - 1]};\n`);
      extra(iteration);
    },
  };
}

describe(
  'issue 11 fault 3: an unreadable kept snapshot at stop (seed 002 on-stop ' +
    'step 1: test -r the target first, restore-failed, HALT, state.json still ' +
    'written last)',
  () => {
    it(
      'restoreBest on an unreadable kept snapshot is the loud restore-failed ' +
        'halt: a restore-failed row, a summary and state.json written last, never ' +
        'a raw EACCES',
      async () => {
        ws = makeWorkspace();
        let unreadable = false;
        const eacces = (path: string) =>
          Object.assign(new Error(`EACCES: permission denied, scandir '${path}'`), {
            code: 'EACCES',
            errno: -13,
            path,
          });
        const denied = (p: string) => unreadable && p.includes('001-kept-');
        // The tests run as root, where chmod 000 does not deny reads: the fs fails exactly as an unreadable directory
        // would.
        const fs: SnapshotFs = {
          ...nodeSnapshotFs,
          readdir: async (p) => {
            if (denied(p)) throw eacces(p);
            return nodeSnapshotFs.readdir(p);
          },
          access: async (p, m) => {
            if (denied(p)) throw eacces(p);
            return nodeSnapshotFs.access(p, m);
          },
          stat: async (p) => {
            if (denied(p)) throw eacces(p);
            return nodeSnapshotFs.stat(p);
          },
          readFile: async (p) => {
            if (denied(p)) throw eacces(p);
            return nodeSnapshotFs.readFile(p);
          },
        };
        const o = passOptions(ws, [{ to: 7 }]);
        const rollback = createSnapshotRollback({
          workspace: ws.dir,
          runDir: ws.runDir,
          files: ['src/score.ts'],
          clock: steppingClock(),
          fs,
        });
        const lines: string[] = [];
        const r = await runPass({
          ...o,
          config: { ...o.config, maxIterations: 1 },
          rollback,
          output: (line) => {
            lines.push(line);
            if (line.startsWith('iter 1 | kept')) unreadable = true;
          },
        });
        expect(r).toMatchObject({ halted: 'restore-failed' });
        expect(r.error?.code).toBe('RESTORE_FAILED');
        expect(r.error?.message).toMatch(/001-kept-.*(absent or unreadable|EACCES)/);
        expect(statuses()).toEqual(['baseline', 'kept', 'restore-failed']);
        expect(lines.at(-2)).toMatch(
          /^iter 2 \| restore-failed \| - \(Δ -\) \| restore of the best kept version 001-kept-/,
        );
        expect(lines.at(-1)).toMatch(/^HALTED: restore-failed/);
        expect(state().autoresearch.function).toMatchObject({
          status: 'restore-failed',
          stop_reason: expect.any(String),
        });
        const stateMtime = statSync(ws.statePath).mtimeMs;
        for (const f of ['src/score.ts', '.aid/pipeline/autoresearch/T-1/results.tsv'])
          expect(statSync(join(ws.dir, f)).mtimeMs).toBeLessThanOrEqual(stateMtime);
      },
    );
  },
);

describe(
  'issue 11 fault 4: resume keeps full precision (seed 002 loop step 1: ' +
    'best_score = max(composite where status=kept); step 6: strict ' +
    'improvement)',
  () => {
    it(
      'scores 6, 7.004, 7.003 give kept then reverted both straight through ' +
        'and across a resume, though results.tsv shows two decimals',
      async () => {
        ws = makeWorkspace();
        ws.write('src/score.ts', 'export const value = 6;\n');
        const values = [7.004, 7.003];
        const straight = passOptions(ws, []);
        await runPass({ ...straight, proposer: byIteration(values), config: { ...straight.config, maxIterations: 2 } });
        expect(statuses()).toEqual(['baseline', 'kept', 'reverted']);
        ws.cleanup();

        ws = makeWorkspace();
        ws.write('src/score.ts', 'export const value = 6;\n');
        const first = passOptions(ws, []);
        await runPass({ ...first, proposer: byIteration(values), config: { ...first.config, maxIterations: 1 } });
        expect(readFileSync(ws.resultsPath, 'utf8')).toMatch(/\n1\t7\.00\t/);
        const second = passOptions(ws, [], { clock: steppingClock(Date.UTC(2026, 10, 30, 6)) });
        const r = await runPass({
          ...second,
          proposer: byIteration(values),
          config: { ...second.config, maxIterations: 2 },
        });
        expect(r.resumed).toBe(true);
        expect(statuses()).toEqual(['baseline', 'kept', 'reverted']);
        expect(r.bestComposite).toBe(7.004);
        expect(ws.value()).toBe(7.004);
      },
    );
  },
);

describe(
  'issue 11 fault 5: never edit the harness (seed 002 safety brakes: ' +
    '"Never edit the harness ... Modifying the harness makes the score ' +
    'meaningless")',
  () => {
    it(
      'an edit to a harness file that is not a rubric file (the reflection ' +
        'tool script) halts the pass as harness-tampered: never kept, never ' +
        'target-met',
      async () => {
        ws = makeWorkspace();
        ws.write('tools/reflect.mjs', 'export const bonus = 0;\n');
        const bonus = () => Number(/bonus = (-?[\d.]+)/.exec(ws.read('tools/reflect.mjs'))?.[1]);
        const inner = valueHarness(ws, 'function');
        // The reflection score reads the tool script: raising its bonus raises every score.
        const harness: PassHarness = {
          ...inner,
          score: async (c) => {
            const s = await inner.score(c);
            return { ...s, composite: s.composite + bonus() };
          },
        };
        const o = passOptions(ws, []);
        const r = await runPass({
          ...o,
          harness,
          harnessFiles: [join(ws.dir, 'tools/reflect.mjs')],
          proposer: byIteration([6, 7], (iteration) => {
            if (iteration === 1) ws.write('tools/reflect.mjs', 'export const bonus = 10;\n');
          }),
        } as Parameters<typeof runPass>[0]);
        expect(r.stopReason).not.toBe('target-met');
        expect(statuses()).toEqual(['baseline', 'harness-tampered']);
        expect(r).toMatchObject({ halted: 'harness-tampered', stopReason: 'harness-tampered', bestComposite: 5 });
        expect(r.error?.code).toBe('HARNESS_TAMPERED');
        expect(r.error?.message).toMatch(/tools\/reflect\.mjs/);
        expect(ws.value()).toBe(5);
        expect(state().autoresearch.function.status).toBe('harness-tampered');
        expect(readdirSync(join(ws.runDir, 'snapshots')).some((n) => n.includes('-kept-'))).toBe(false);
      },
    );
  },
);

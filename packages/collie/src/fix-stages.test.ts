// Stages 5.1-5.3 through step(): the flow's one commit per FIX, the G6 / G1 / extra-guard audit, the
// rerun (stages 4a-5.0 are in fix-stages-verify.test.ts).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitWorktree, createScriptedFlowExecutor, readRunState } from './index.js';
import { readLedger } from './stage-files.js';
import {
  createFixWorld,
  FIX_RUN,
  gitSh,
  gitSubjects,
  stagesOf,
  type FixSetupOptions,
  type FixSpec,
  type FixWorld,
} from '../test/fixtures/fix-world.js';

let w: FixWorld;
let root: string;
let project: string;
beforeEach(() => {
  w = createFixWorld();
  ({ root, project } = w);
});
afterEach(() => w.cleanup());

const RUN = FIX_RUN;
const sh = gitSh;
const subjects = gitSubjects;
const makeRepo = (files?: Record<string, string>) => w.makeRepo(files);
const setup = (specs: FixSpec[], over?: FixSetupOptions) => w.setup(specs, over);

describe('stages 5.1-5.3 wired into step()', () => {
  it(
    "Stage 5.1: the flow executor applies each FIX in DAG order in the run's " +
      'git worktree as exactly one commit per FIX (trailer Collie-Fix); ' +
      'flow.json records commits and changed files; the user checkout is ' +
      'untouched',
    async () => {
      makeRepo();
      const { a, ip, lines } = setup([{ delta: 1 }, { delta: 1, dependencies: ['FIX-003'] }, { delta: 1 }], {
        workspace: createGitWorktree({ repoDir: project }),
      });
      const outs = await a.run();
      expect(stagesOf(outs)).toContain('stage5.1:running');
      const wt = join(project, '.worktrees', `autoiter-${RUN}`);
      expect(subjects(wt)).toEqual([
        'autoiter iter-1 FIX-002: write src/FIX-002.delta for FIX-002',
        'autoiter iter-1 FIX-003: write src/FIX-003.delta for FIX-003',
        'autoiter iter-1 FIX-001: write src/FIX-001.delta for FIX-001',
        'initial',
      ]);
      expect(sh(wt, 'log', '-1', '--format=%B')).toContain('Collie-Fix: iter-1/FIX-002');
      expect(subjects(project)).toEqual(['initial']);
      expect(existsSync(join(project, 'src', 'FIX-001.delta'))).toBe(false);
      const ledger = (await readLedger(ip.flow))!;
      expect(ledger.applied.map((x) => [x.id, x.files])).toEqual([
        ['FIX-001', [{ path: 'src/FIX-001.delta', status: 'added' }]],
        ['FIX-003', [{ path: 'src/FIX-003.delta', status: 'added' }]],
        ['FIX-002', [{ path: 'src/FIX-002.delta', status: 'added' }]],
      ]);
      expect(lines).toContain(`[autoiter ${RUN}] iter-1 Stage 5.1 → flow applied 3 FIX (3 commits)`);
    },
  );

  it(
    'Stage 5.1 restart: a FIX already committed (found by its trailer) is ' +
      'not applied again, and a half-applied FIX is discarded and redone, so ' +
      'every FIX stays one commit',
    async () => {
      makeRepo();
      let fail = true;
      const first = setup([{ delta: 1 }, { delta: 1 }], {
        flow: createScriptedFlowExecutor({
          'FIX-001': { 'src/FIX-001.delta': '1\n' },
          'FIX-002': (ctx) => {
            writeFileSync(join(ctx.worktree, 'src', 'FIX-002.delta'), 'partial');
            if (fail) throw new Error('killed mid-apply');
            return { 'src/FIX-002.delta': '1\n' };
          },
        }),
      });
      for (let i = 0; i < 8; i += 1) await first.a.step();
      await expect(first.a.step()).rejects.toThrow('killed mid-apply');
      // As if the process died after FIX-001's commit but before flow.json recorded it.
      writeFileSync(first.ip.flow, JSON.stringify({ ...(await readLedger(first.ip.flow)), applied: [] }));
      fail = false;
      const again = setup([{ delta: 1 }, { delta: 1 }]);
      expect((await again.a.run()).at(-1)).toMatchObject({ kind: 'done', status: 'budget_exhausted' });
      expect(again.flow.applied).toEqual(['FIX-002']);
      expect(subjects(project)).toEqual([
        'autoiter iter-1 FIX-002: write src/FIX-002.delta for FIX-002',
        'autoiter iter-1 FIX-001: write src/FIX-001.delta for FIX-001',
        'initial',
      ]);
      expect(readFileSync(join(project, 'src', 'FIX-002.delta'), 'utf8')).toBe('1\n');
      expect((await again.state())?.last_scalar).toBe(7);
    },
  );

  it(
    "Stage 5.2 G6: a FIX commit that changes a file outside every FIX's key " +
      'files escalates g6_diff_audit_failed (audit.md names the file, status ' +
      'escalated, notify escalated)',
    async () => {
      makeRepo();
      const { a, ip, read, escalations, notes, lines } = setup([
        { patch: { 'src/FIX-001.delta': '1\n', 'src/lib.js': 'export const x = 2;\n' } },
      ]);
      const outs = await a.run();
      expect(stagesOf(outs).slice(-2)).toEqual(['stage5.2:escalated', 'done']);
      expect(read(ip.audit)).toContain(
        '## G6 diff audit: FAIL\n- changed files: src/FIX-001.delta, src/lib.js\n- untraceable: src/lib.js',
      );
      expect(escalations).toEqual([`g6_diff_audit_failed ${RUN}`]);
      expect(notes.map((n) => n.event)).toEqual(['escalated']);
      expect(lines).toContain(`[autoiter ${RUN}] iter-1 Stage 5.2 → G6 diff audit FAIL, G1 PASS`);
      expect(existsSync(ip.rerunLog)).toBe(false);
    },
  );

  it(
    'Stage 5.2 extra guards (G4/G5 plug-in): a guard that reports violations ' +
      'escalates <id>_guard_failed and audit.md records it; a passing guard ' +
      'lets the run reach the rerun',
    async () => {
      makeRepo();
      const seen: string[] = [];
      const g4 = {
        id: 'G4',
        name: 'no magic constants',
        check: (i: { commits: readonly { id: string; files: readonly { path: string }[] }[] }) => (
          seen.push(...i.commits.flatMap((c) => c.files.map((f) => `${c.id}:${f.path}`))),
          ['FIX-001: src/FIX-001.delta hard-codes 1']
        ),
      };
      const { a, ip, read, escalations, notes } = setup([{ delta: 1 }], { guards: [g4] });
      const outs = await a.run();
      expect(stagesOf(outs).slice(-2)).toEqual(['stage5.2:escalated', 'done']);
      expect(seen).toEqual(['FIX-001:src/FIX-001.delta']);
      expect(read(ip.audit)).toContain('## G4 no magic constants: FAIL\n- FIX-001: src/FIX-001.delta hard-codes 1');
      expect(escalations).toEqual([`g4_guard_failed ${RUN}`]);
      expect(notes.map((n) => n.event)).toEqual(['escalated']);
      rmSync(w.stateRoot, { recursive: true, force: true });
      const pass = setup([{ delta: 1 }], { guards: [{ id: 'G5', name: 'always fine', check: () => [] }] });
      const outs2 = await pass.a.run();
      expect(stagesOf(outs2)).toContain('stage5.3:iter_done');
      expect(pass.read(pass.ip.audit)).toContain('## G5 always fine: PASS');
    },
  );

  it(
    'Stage 5.2 G1: a FIX that modifies an existing test file escalates ' +
      'g1_test_file_guard, even when the file is in its key files',
    async () => {
      makeRepo({ 'test/lib.test.js': 'assert(x === 1);\n' });
      const { a, ip, read, escalations } = setup([
        { keyFiles: ['test/lib.test.js'], patch: { 'test/lib.test.js': 'assert(true);\n' } },
      ]);
      await a.run();
      expect(read(ip.audit)).toContain('## G1 test-file guard: FAIL\n- FIX-001: test/lib.test.js (modified)');
      expect(escalations).toEqual([`g1_test_file_guard ${RUN}`]);
      expect((await readRunState(a.paths.run(RUN).state))?.stop_reason).toMatch(/^g1_test_file_guard: /);
    },
  );

  it(
    'Stage 5.2 G1: a correctness FIX adding its reproduction test as a new ' +
      'file in its key files passes the audit; an optimization FIX adding a ' +
      'test file does not',
    async () => {
      makeRepo();
      const ok = setup([
        {
          kind: 'correctness',
          keyFiles: ['src/FIX-001.delta', 'test/repro.test.js'],
          patch: { 'src/FIX-001.delta': '0\n', 'test/repro.test.js': 'repro\n' },
        },
      ]);
      expect((await ok.a.run()).at(-1)).toMatchObject({ status: 'budget_exhausted' });
      expect(ok.read(ok.ip.audit)).toContain('## G6 diff audit: PASS');
      expect(ok.read(ok.ip.audit)).toContain('## G1 test-file guard: PASS');
      rmSync(root, { recursive: true, force: true });
      makeRepo();
      const bad = setup([
        { kind: 'optimization', keyFiles: ['test/repro.test.js'], patch: { 'test/repro.test.js': 'repro\n' } },
      ]);
      expect((await bad.a.run()).at(-1)).toMatchObject({ status: 'escalated' });
      expect(bad.read(bad.ip.audit)).toContain('- FIX-001: test/repro.test.js (added)');
    },
  );

  it(
    'Stage 5.3: the rerun scalar, fixes_applied and files_changed are ' +
      'recorded in summary.md and state.json (SC5 measures files changed)',
    async () => {
      makeRepo();
      const { a, ip, read, state } = setup([{ delta: 2 }, { delta: 1 }]);
      await a.run();
      expect(read(ip.summary)).toContain(
        'scalar_before: 5\nscalar_after: 8\nscalar_delta: 3\nconvergence: ' +
          'no\ndecision: stop_cap\nfixes_applied: [FIX-001, ' +
          'FIX-002]\nfiles_changed: 2\n',
      );
      expect((await state())?.iterations[0]).toMatchObject({
        fixes_applied: ['FIX-001', 'FIX-002'],
        files_changed: 2,
        scalar_after: 8,
      });
    },
  );

  it('Stage 5.3 / SC5: five iterations whose fixes change no file escalate (no file changes x5)', async () => {
    makeRepo();
    const { a, state, notes } = setup([{ verdict: 'Discarded' }], {
      maxIterations: 9,
      asker: {
        name: 'f',
        ask: () => ({
          Q1: 'n=$(cat ../n 2>/dev/null || echo 0); n=$((n+1)); echo $n > ../n; echo "score: $n"',
          Q2: 'scalar_threshold 1000',
          Q3: 'optimization',
          Q4: 'kind_aware',
          Q5: 'yes',
        }),
      },
    });
    await a.run();
    const st = (await state())!;
    expect(st).toMatchObject({ iter: 5, status: 'escalated' });
    expect(st.iterations.map((i) => i.files_changed)).toEqual([0, 0, 0, 0, 0]);
    expect(st.stop_reason).toBe('SC5: no file changes five times');
    expect(notes.map((n) => n.event)).toEqual(['escalated']);
  });
});

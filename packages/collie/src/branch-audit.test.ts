// Issue 11 faults 6 and 7: G6 and G1 audit the real branch diff of the iteration, whoever made the
// commits (a flow agent that commits by itself, as aider does by default; the Stage 3.2 recovery
// ladder; a trigger run), and the rollback matrix can revert what a self-committing agent did.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createScriptedAgent, readRunState, type AgentRequest, type FlowExecutor } from './index.js';
import { fixedAsker, fixtureAutoiter, fixtureDirs, FIXTURE_RUN } from './internal/autoiter-fixture.js';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'agent',
  GIT_AUTHOR_EMAIL: 'agent@x',
  GIT_COMMITTER_NAME: 'agent',
  GIT_COMMITTER_EMAIL: 'agent@x',
  GIT_AUTHOR_DATE: '@1767225600 +0000',
  GIT_COMMITTER_DATE: '@1767225600 +0000',
};
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });

let cleanup = () => {};
afterEach(() => cleanup());

/** The trigger: score = 5 + the sum of every src/*.delta file. */
const TRIGGER = 's=5; for f in src/*.delta; do [ -f "$f" ] && s=$((s + $(cat "$f"))); done; echo "score: $s"';

function repo(trigger = TRIGGER) {
  const dirs = fixtureDirs();
  cleanup = dirs.cleanup;
  mkdirSync(join(dirs.project, 'src'));
  mkdirSync(join(dirs.project, 'test'));
  writeFileSync(join(dirs.project, 'src', 'lib.js'), 'export const x = 1;\n');
  writeFileSync(join(dirs.project, 'test', 'lib.test.js'), 'assert(x === 1);\n');
  git(dirs.project, 'init', '-q', '-b', 'main');
  git(dirs.project, 'add', '-A');
  git(dirs.project, 'commit', '-q', '-m', 'initial');
  return { ...dirs, trigger };
}

/** One optimization FIX-001 (key file src/FIX-001.delta) found, judged Real and verified. */
const oneFixAgent = () =>
  createScriptedAgent(
    {
      discovery: ['1. sh run.sh'],
      observe: ['## ISSUE-001\ntitle: slow\nevidence: "log"\nseverity: 2\nblocking: false\n'],
      triage: ['## ISSUE-001\nverdict: Real\nconfidence: 4\nrationale: "tried to show it is not real"\n'],
      'deep-verify': [
        (r: AgentRequest) =>
          stringify({
            id: /^id: (FIX-\d+)$/m.exec(r.prompt)![1]!,
            kind: 'optimization',
            severity: 3,
            fix_confidence: 4,
            root_cause: 'cause',
            reproduction_test: 'the benchmark shows the slowdown',
            fix_outline: 'write src/FIX-001.delta',
            why_root_cause: 'survived falsification',
            dependencies: [],
            uncertainty_tag: 'none',
            key_files: ['src/FIX-001.delta'],
          }),
      ],
    },
    { repeatLast: true },
  );

/** A flow agent that writes `files` and commits them itself (aider's default), leaving the tree clean. */
const selfCommitting = (files: Record<string, string>): FlowExecutor => ({
  name: 'self-committing',
  apply: (ctx) => {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(ctx.worktree, path, '..'), { recursive: true });
      writeFileSync(join(ctx.worktree, path), content);
    }
    git(ctx.worktree, 'add', '-A');
    git(ctx.worktree, 'commit', '-q', '-m', `aider: ${ctx.fix.id}`);
    return 'committed by the agent';
  },
});

describe(
  'G6 / G1 audit the real branch diff of the iteration, whoever made the ' + 'commits (issue 11 faults 6 and 7)',
  () => {
    it(
      'fault 6: a flow agent that commits by itself cannot bypass G6: the ' +
        'audit sees its files and an untraceable one escalates ' +
        'g6_diff_audit_failed',
      async () => {
        const w = repo();
        const { a, escalations } = fixtureAutoiter(w, {
          maxIterations: 1,
          agent: oneFixAgent(),
          asker: fixedAsker({ Q1: w.trigger }),
          flow: selfCommitting({ 'src/FIX-001.delta': '1\n', 'src/unplanned.js': 'x\n' }),
        });
        const outcomes = await a.run();
        const audit = readFileSync(a.paths.run(FIXTURE_RUN).iter(1).audit, 'utf8');
        expect(audit).toContain(
          '## G6 diff audit: FAIL\n- changed files: src/FIX-001.delta, ' +
            'src/unplanned.js\n- untraceable: src/unplanned.js',
        );
        expect(outcomes.find((o) => o.kind === 'stage' && o.stage === 'stage5.2')).toMatchObject({
          status: 'escalated',
        });
        expect(escalations).toEqual([`g6_diff_audit_failed ${FIXTURE_RUN}`]);
      },
    );

    it(
      "fault 6: the self-committing agent's work is one FIX commit (its commit " +
        'folded in), counted in fixes_applied / files_changed (SC5), and the ' +
        'rollback matrix reverts it',
      async () => {
        const w = repo();
        const { a } = fixtureAutoiter(w, {
          maxIterations: 1,
          agent: oneFixAgent(),
          asker: fixedAsker({ Q1: w.trigger, Q3: 'optimization' }),
          flow: selfCommitting({ 'src/FIX-001.delta': '-2\n' }),
        });
        await a.run();
        const ip = a.paths.run(FIXTURE_RUN).iter(1);
        expect(readFileSync(ip.audit, 'utf8')).toContain(
          '## G6 diff audit: PASS\n- changed files: src/FIX-001.delta\n',
        );
        expect(readFileSync(ip.summary, 'utf8')).toContain('fixes_applied: [FIX-001]\nfiles_changed: 1\n');
        const state = await readRunState(a.paths.run(FIXTURE_RUN).state);
        expect(state?.iterations[0]).toMatchObject({
          scalar_delta: -2,
          fixes_applied: ['FIX-001'],
          files_changed: 1,
          rollback: { row: expect.any(String), reverted: [{ id: 'FIX-001', commit: expect.any(String) }] },
        });
        const subjects = git(w.project, 'log', '--format=%s', 'HEAD').trim().split('\n');
        expect(subjects).toEqual([
          'chore: revert optimization FIX(es) due to scalar regression (iter-1)',
          'autoiter iter-1 FIX-001: write src/FIX-001.delta',
          'initial',
        ]);
        expect(git(w.project, 'log', '-1', '--format=%B', 'HEAD~1')).toMatch(
          /^Folds [0-9a-f]{40} \(committed during the FIX\)$/m,
        );
        expect(existsSync(join(w.project, 'src', 'FIX-001.delta'))).toBe(false); // reverted
      },
    );

    it(
      "Stage 5.1 restart: commits a killed FIX's agent made before dying are " +
        "reset to the FIX's recorded start sha (flow.json applying), and the " +
        'redone FIX is still one commit',
      async () => {
        const w = repo();
        let attempts = 0;
        const dying: FlowExecutor = {
          name: 'dies-after-committing',
          apply: (ctx) => {
            attempts += 1;
            writeFileSync(join(ctx.worktree, 'src', 'FIX-001.delta'), `${attempts}\n`);
            git(ctx.worktree, 'add', '-A');
            git(ctx.worktree, 'commit', '-q', '-m', `aider attempt ${attempts}`);
            if (attempts === 1) throw new Error('killed mid-FIX');
            return 'second attempt';
          },
        };
        const first = fixtureAutoiter(w, {
          maxIterations: 1,
          agent: oneFixAgent(),
          asker: fixedAsker({ Q1: w.trigger }),
          flow: dying,
        });
        await expect(first.a.run()).rejects.toThrow('killed mid-FIX');
        const ledger = JSON.parse(readFileSync(first.a.paths.run(FIXTURE_RUN).iter(1).flow, 'utf8')) as {
          base: string;
          applying: { id: string; start: string };
        };
        expect(ledger.applying).toEqual({ id: 'FIX-001', start: ledger.base });
        const again = fixtureAutoiter(w, {
          maxIterations: 1,
          agent: oneFixAgent(),
          asker: fixedAsker({ Q1: w.trigger }),
          flow: dying,
        });
        await again.a.run();
        const log = git(w.project, 'log', '--format=%s', 'HEAD').trim().split('\n');
        expect(log).toEqual(['autoiter iter-1 FIX-001: write src/FIX-001.delta', 'initial']);
        expect(git(w.project, 'log', '-1', '--format=%B', 'HEAD')).not.toContain('attempt 1');
        expect(readFileSync(join(w.project, 'src', 'FIX-001.delta'), 'utf8')).toBe('2\n');
      },
    );

    it(
      'fault 7: a test-file edit by the Stage 3.2 recovery ladder goes through ' +
        "G1 (Key Invariant 5), also when the ladder's agent committed it",
      async () => {
        const w = repo('test -f fixed || { echo "Error: missing config"; exit 1; }; echo "score: 5"');
        const diagnose = () => {
          writeFileSync(join(w.project, 'fixed'), '');
          writeFileSync(join(w.project, 'test', 'lib.test.js'), '// assertion removed to make it pass\n');
          git(w.project, 'add', '-A');
          git(w.project, 'commit', '-q', '-m', 'recovery: make it pass');
          return 'root_cause: "config missing"\nfix_applied: "created fixed, relaxed the test"';
        };
        const observer = (r: AgentRequest) =>
          r.inputs['raw.log (last 200 lines)']?.includes('Error')
            ? '## ISSUE-001\ntitle: config missing\nseverity: 2\nblocking: true\n'
            : 'NO ISSUES';
        const agent = createScriptedAgent(
          {
            discovery: ['x'],
            observe: [observer],
            diagnose: [diagnose],
            triage: ['## ISSUE-001\nverdict: Discarded\nconfidence: 5\nrationale: fixed\n'],
          },
          { repeatLast: true },
        );
        const { a, escalations } = fixtureAutoiter(w, {
          maxIterations: 1,
          agent,
          asker: fixedAsker({ Q1: w.trigger }),
        });
        const outcomes = await a.run();
        expect(outcomes.find((o) => o.kind === 'stage' && o.stage === 'stage3.2')).toMatchObject({
          status: 'escalated',
        });
        expect(escalations).toEqual([`g1_test_file_guard ${FIXTURE_RUN}`]);
        const state = await readRunState(a.paths.run(FIXTURE_RUN).state);
        expect(state?.stop_reason).toBe(
          'g1_test_file_guard: Stage 3.2 recovery attempt 1 (haiku) left test ' +
            'files changed since the iteration started: test/lib.test.js (modified)',
        );
      },
    );

    it(
      'G1 at Stage 5.2 covers the whole iteration: a test file changed before ' +
        'the fixes (here by the trigger run itself) fails it as iter-N',
      async () => {
        const w = repo(`echo "// updated snapshot" >> test/lib.test.js; ${TRIGGER}`);
        const { a, escalations } = fixtureAutoiter(w, {
          maxIterations: 1,
          agent: oneFixAgent(),
          asker: fixedAsker({ Q1: w.trigger }),
          flow: selfCommitting({ 'src/FIX-001.delta': '1\n' }),
        });
        await a.run();
        const audit = readFileSync(a.paths.run(FIXTURE_RUN).iter(1).audit, 'utf8');
        expect(audit).toContain(
          '- changed before the fixes (Stage 3.2 recovery, trigger runs; G1 audits them): test/lib.test.js',
        );
        expect(audit).toContain('## G1 test-file guard: FAIL\n- iter-1: test/lib.test.js (modified)');
        expect(escalations).toEqual([`g1_test_file_guard ${FIXTURE_RUN}`]);
      },
    );
  },
);

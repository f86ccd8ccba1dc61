import { chmod, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createScriptedAgent } from './agent.js';
import { createFlowPipelineExecutor } from './flow-pipeline.js';
import {
  EXISTING_TEST,
  FIXED,
  PLAN,
  REPRO,
  REPRO_TEST,
  WRONG,
  base,
  ctxOf,
  edits,
  makeWorktree,
  optimization,
  removeTemps,
  script,
  tempDir,
  testFile,
  tree,
} from './internal/flow-pipeline-fixture.js';

afterEach(removeTemps);

describe(
  'collie flow pipeline (Stage 5.1 Skill(collie:flow): TDD → implement → ' +
    'review → simplify → regression → final review)',
  () => {
    it(
      'happy path: the reproduction test is red before the fix and green ' +
        'after, review approves, and apply returns one note line',
      async () => {
        const root = await makeWorktree();
        const logDir = await tempDir('collie-flow-log-');
        const agent = createScriptedAgent(script(root));
        const flow = createFlowPipelineExecutor({ ...base(agent), logDir });
        const note = await flow.apply(ctxOf(root));
        expect(note).toBe('flow: tdd red→green, review approved in 1 round, regression green, final review approved');
        expect(note).not.toContain('\n');
        expect(await readFile(join(root, 'src', 'calc.js'), 'utf8')).toBe(FIXED);
        expect(await readFile(join(root, REPRO), 'utf8')).toBe(REPRO_TEST);
        const transcript = await readFile(join(logDir, 'FIX-001.flow.md'), 'utf8');
        expect(transcript).toBe(flow.transcriptOf('FIX-001'));
        expect(transcript).toContain('command: `node --test test/calc-neg.test.js`');
        expect(transcript).toMatch(
          new RegExp(
            /must be red\)\n\ncommand: `node --test test\/calc-neg\.test\.js`\n\n/.source +
              /exit code: 1 \(exit 1; red as required\)/.source,
          ),
        );
        expect(transcript).toMatch(
          new RegExp(
            /regression: reproduction \(must be green\)\n\n/.source +
              /command: `node --test test\/calc-neg\.test\.js`\n\nexit code: 0/.source,
          ),
        );
        expect(transcript).toContain('flow-tdd (standard → sonnet)');
      },
    );

    it(
      'every agent step is a fresh dispatch with its role and seed tier ' +
        '(sonnet for tdd/implement/review/simplify, opus for the final review) ' +
        'and gets the FIX record and the plan',
      async () => {
        const root = await makeWorktree();
        const agent = createScriptedAgent(script(root));
        await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root));
        expect(agent.calls.map((c) => [c.role, c.tier])).toEqual([
          ['flow-tdd', 'standard'],
          ['flow-implement', 'standard'],
          ['flow-review', 'standard'],
          ['flow-simplify', 'standard'],
          ['flow-final-review', 'deep'],
        ]);
        for (const call of agent.calls) {
          expect(call.inputs['fix-plan.md']).toBe(PLAN);
          expect(call.inputs['FIX-001.yaml']).toContain('id: FIX-001');
        }
        const review = agent.calls[2]!.inputs['changed-files.md']!;
        expect(review).toContain('### src/calc.js (modified)');
        expect(review).toContain('return a + b;');
        expect(review).toContain(`### ${REPRO} (added)`);
      },
    );

    it(
      'a reproduction test that already passes before the fix does not ' +
        'reproduce: skipped, and the worktree is byte-identical',
      async () => {
        const root = await makeWorktree();
        const before = await tree(root);
        const agent = createScriptedAgent(
          script(root, { 'flow-tdd': [edits(root, { [REPRO]: testFile('add(2, 3), 5') }, 'wrote a test')] }),
        );
        const note = await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root));
        expect(note).toMatch(/^skipped: reproduction test test\/calc-neg\.test\.js passes before the fix/);
        expect(await tree(root)).toEqual(before);
        expect(agent.calls.map((c) => c.role)).toEqual(['flow-tdd']);
      },
    );

    it('review changes_requested then approve: implement runs again with the review comments as input', async () => {
      const root = await makeWorktree();
      const agent = createScriptedAgent(
        script(root, {
          'flow-implement': [
            edits(root, { 'src/calc.js': WRONG }, 'first try'),
            edits(root, { 'src/calc.js': FIXED }, 'second try'),
          ],
          'flow-review': [
            'add subtracts now; handle the sign properly\nverdict: changes_requested',
            'verdict: approve',
          ],
        }),
      );
      const note = await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root));
      expect(note).toBe('flow: tdd red→green, review approved in 2 rounds, regression green, final review approved');
      const implement = agent.calls.filter((c) => c.role === 'flow-implement');
      expect(implement).toHaveLength(2);
      expect(implement[0]!.inputs['review-comments.md']).toBeUndefined();
      expect(implement[1]!.inputs['review-comments.md']).toContain('handle the sign properly');
    });

    it(
      'a review that never approves within reviewRounds (a reply without a ' +
        'verdict line counts as changes_requested) skips the FIX and restores ' +
        'created, deleted and re-moded files',
      async () => {
        const root = await makeWorktree();
        const before = await tree(root);
        const agent = createScriptedAgent(
          script(root, {
            'flow-implement': [
              edits(root, { 'src/calc.js': FIXED, 'src/extra/deep/helper.js': 'x\n' }, 'fixed'),
              async () => {
                await rm(join(root, 'README.md'));
                await chmod(join(root, 'src', 'calc.js'), 0o755);
                return 'tweaked';
              },
            ],
            'flow-review': ['I am not sure about this.', 'verdict: changes_requested'],
          }),
        );
        const flow = createFlowPipelineExecutor(base(agent));
        expect(await flow.apply(ctxOf(root))).toBe('skipped: review not approved after 2 rounds');
        expect(await tree(root)).toEqual(before);
        expect(agent.calls.filter((c) => c.role === 'flow-implement')[1]!.inputs['review-comments.md']).toContain(
          'no `verdict:` line',
        );
        expect(flow.transcriptOf('FIX-001')).toContain(
          'outside key_files (recorded, not blocked; G6 audits them): src/extra/deep/helper.js',
        );
      },
    );

    it(
      'a regression suite failing twice (after one more implement round with ' +
        'the log tail) skips the FIX and restores the worktree',
      async () => {
        const root = await makeWorktree();
        const before = await tree(root);
        const agent = createScriptedAgent(
          script(root, {
            'flow-implement': [
              edits(root, { 'src/calc.js': WRONG }, 'wrong'),
              edits(root, { 'src/calc.js': WRONG }, 'still wrong'),
            ],
          }),
        );
        expect(await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root))).toBe(
          'skipped: regression failed (exit 1)',
        );
        expect(await tree(root)).toEqual(before);
        const implement = agent.calls.filter((c) => c.role === 'flow-implement');
        expect(implement).toHaveLength(2);
        expect(implement[1]!.inputs['regression-log.md']).toContain('result: exit 1');
        expect(agent.calls.some((c) => c.role === 'flow-final-review')).toBe(false);
      },
    );

    it('a regression failure fixed by the extra implement round is green', async () => {
      const root = await makeWorktree();
      const agent = createScriptedAgent(
        script(root, {
          'flow-implement': [
            edits(root, { 'src/calc.js': WRONG }, 'wrong'),
            edits(root, { 'src/calc.js': FIXED }, 'right'),
          ],
        }),
      );
      expect(await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root))).toBe(
        'flow: tdd red→green, review approved in 1 round, regression green after 1 fix round, final review approved',
      );
    });

    it(
      'a final review (deep tier) rejection skips the FIX and restores the ' +
        'worktree; finalReview: false leaves it out',
      async () => {
        const root = await makeWorktree();
        const before = await tree(root);
        const agent = createScriptedAgent(
          script(root, { 'flow-final-review': ['Too risky.\nverdict: changes_requested'] }),
        );
        expect(await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root))).toBe('skipped: final review rejected');
        expect(await tree(root)).toEqual(before);
        expect(agent.calls.at(-1)).toMatchObject({ role: 'flow-final-review', tier: 'deep' });
        const again = createScriptedAgent(script(root));
        expect(await createFlowPipelineExecutor({ ...base(again), finalReview: false }).apply(ctxOf(root))).toBe(
          'flow: tdd red→green, review approved in 1 round, regression green',
        );
        expect(again.calls.some((c) => c.role === 'flow-final-review')).toBe(false);
      },
    );

    it(
      'an optimization FIX without reproduction_test skips TDD; changes ' +
        'outside key_files are recorded, not blocked',
      async () => {
        const root = await makeWorktree();
        const agent = createScriptedAgent(
          script(root, { 'flow-implement': [edits(root, { 'src/calc.js': FIXED, 'notes.txt': 'n\n' }, 'inlined')] }),
        );
        const flow = createFlowPipelineExecutor(base(agent));
        expect(await flow.apply(ctxOf(root, optimization))).toBe(
          'flow: no tdd (optimization), review approved in 1 round, regression ' +
            'green, final review approved, changed outside key_files: notes.txt',
        );
        expect(agent.calls.map((c) => c.role)).not.toContain('flow-tdd');
        expect(await readFile(join(root, 'notes.txt'), 'utf8')).toBe('n\n');
        expect(flow.transcriptOf('FIX-002')).toContain(
          'outside key_files (recorded, not blocked; G6 audits them): notes.txt',
        );
      },
    );

    it(
      'implement may not edit the new reproduction test (it must turn green ' + 'by the fix): skipped and restored',
      async () => {
        const root = await makeWorktree();
        const before = await tree(root);
        const agent = createScriptedAgent(
          script(root, { 'flow-implement': [edits(root, { [REPRO]: EXISTING_TEST }, 'weakened the test')] }),
        );
        expect(await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root))).toBe(
          `skipped: implement changed the reproduction test ${REPRO}`,
        );
        expect(await tree(root)).toEqual(before);
      },
    );

    it('a TDD step that writes no new test file among the key files skips the FIX', async () => {
      const root = await makeWorktree();
      const before = await tree(root);
      const agent = createScriptedAgent(
        script(root, { 'flow-tdd': [edits(root, { 'test/other.test.js': REPRO_TEST }, 'wrote elsewhere')] }),
      );
      expect(await createFlowPipelineExecutor(base(agent)).apply(ctxOf(root))).toBe(
        'skipped: tdd wrote no new test file among the key files',
      );
      expect(await tree(root)).toEqual(before);
    });
  },
);

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createScriptedAgent } from '../agent.js';
import { FIXTURE_RUN, fixtureAutoiter, fixtureDirs } from '../internal/autoiter-fixture.js';
import { readRunState } from '../run-state.js';
import { anchorSubject, readAnchors } from '../task-anchors.js';
import { createFileTaskTracker } from '../task-tracker.js';

let dirs: ReturnType<typeof fixtureDirs>;
beforeEach(() => (dirs = fixtureDirs()));
afterEach(() => dirs.cleanup());

describe('Stage 1 Step 0 task anchors, wired into the controller', () => {
  it(
    'each iteration gets its six [iter-N stage-K] anchors at Stage 1; every ' +
      'stage switch moves in_progress; the previous iteration ends completed',
    async () => {
      const { a } = fixtureAutoiter(dirs, { maxIterations: 2 });
      for (let i = 0; i < 3; i += 1) await a.step(); // Stage 0, Branch B, Stage 1
      const tracker = createFileTaskTracker(a.paths.run(FIXTURE_RUN).tasks);
      const iter1 = await readAnchors(tracker, 1);
      expect(iter1.map((t) => t.subject)).toEqual([1, 2, 3, 4, 5, 6].map((k) => anchorSubject(1, k as 1)));
      expect(iter1.map((t) => t.status)).toEqual([
        'in_progress',
        'pending',
        'pending',
        'pending',
        'pending',
        'pending',
      ]);
      await a.step(); // Stage 2
      expect((await readAnchors(tracker, 1)).map((t) => t.status)).toEqual([
        'completed',
        'in_progress',
        'pending',
        'pending',
        'pending',
        'pending',
      ]);
      await a.run();
      expect((await readAnchors(tracker, 1)).every((t) => t.status === 'completed')).toBe(true);
      const iter2 = await readAnchors(tracker, 2);
      expect(iter2).toHaveLength(6);
      expect(iter2.at(-1)).toMatchObject({ subject: anchorSubject(2, 6), status: 'in_progress' });
    },
  );

  it(
    'self-anchor: a long dispatch (reply > 200 characters) after which ' +
      'another anchor is in_progress escalates stage_anchor_drift',
    async () => {
      const tracker = { current: undefined as ReturnType<typeof createFileTaskTracker> | undefined };
      const observe = async () => {
        // Someone else moves the anchor while the observer runs.
        const t = tracker.current!;
        const anchors = await readAnchors(t, 1);
        await t.update(anchors[2]!.id, 'completed');
        await t.update(anchors[4]!.id, 'in_progress');
        return `NO ISSUES\n${'the log was read in full. '.repeat(10)}`;
      };
      const agent = createScriptedAgent({ discovery: ['x'], observe: [observe] }, { repeatLast: true });
      const { a, escalations, notes } = fixtureAutoiter(dirs, {
        agent,
        tasks: (run) => (tracker.current = createFileTaskTracker(`${run.dir}/tasks.json`)),
      });
      const outcomes = await a.run();
      expect(outcomes.find((o) => o.kind === 'stage' && o.status === 'escalated')).toBeDefined();
      expect(escalations).toEqual([`stage_anchor_drift ${FIXTURE_RUN}`]);
      expect(notes.map((n) => n.event)).toEqual(['escalated']);
      const state = await readRunState(a.paths.run(FIXTURE_RUN).state);
      expect(state).toMatchObject({
        status: 'escalated',
        stage: 'observe',
        stop_reason: expect.stringContaining(`expected ${anchorSubject(1, 3)}`),
      });
    },
  );

  it(
    'self-anchor: a short dispatch (<= 200 characters, fast) is not checked, ' +
      'so a moved anchor does not stop the run',
    async () => {
      let moved = false;
      const tracker = { current: undefined as ReturnType<typeof createFileTaskTracker> | undefined };
      const observe = async () => {
        if (!moved) {
          moved = true;
          const anchors = await readAnchors(tracker.current!, 1);
          await tracker.current!.update(anchors[4]!.id, 'in_progress');
        }
        return 'NO ISSUES';
      };
      const agent = createScriptedAgent({ discovery: ['x'], observe: [observe] }, { repeatLast: true });
      const { a, escalations } = fixtureAutoiter(dirs, {
        agent,
        maxIterations: 1,
        tasks: (run) => (tracker.current = createFileTaskTracker(`${run.dir}/tasks.json`)),
      });
      expect((await a.run()).at(-1)).toMatchObject({ kind: 'done', status: 'budget_exhausted' });
      expect(escalations).toEqual([]);
    },
  );
});

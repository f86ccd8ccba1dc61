import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  anchorStageOf,
  anchorSubject,
  checkAnchor,
  isLongDispatch,
  LONG_DISPATCH_CHARS,
  LONG_DISPATCH_MS,
  readAnchors,
  STAGE_ANCHORS,
  startIterationAnchors,
  switchAnchor,
} from './task-anchors.js';
import { EXPECTED_SUBJECTS } from './internal/task-anchors-fixture.js';
import { createFileTaskTracker, createMemoryTaskTracker, type Task, type TaskTracker } from './task-tracker.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'collie-anchors-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const statuses = (tasks: readonly Task[]): string[] => tasks.map((t) => t.status);
const ofIter = async (tracker: TaskTracker, n: number): Promise<Task[]> =>
  (await tracker.list()).filter((t) => t.subject.startsWith(`[iter-${n} `));

/** A tracker whose `create` throws after `creates` successful calls: a crash mid-Step-0. */
const crashingAfter = (inner: TaskTracker, creates: number): TaskTracker => {
  let left = creates;
  return {
    ...inner,
    create: (subject) => {
      if (left-- <= 0) throw new Error('simulated crash');
      return inner.create(subject);
    },
  };
};

describe('anchor subjects and stage mapping', () => {
  it('anchorSubject gives the seed Step 0 subjects "[iter-N stage-K] <title>" for the six stages', () => {
    expect(STAGE_ANCHORS.map((a) => a.stage)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(STAGE_ANCHORS.map((a) => anchorSubject(7, a.stage))).toEqual(EXPECTED_SUBJECTS(7));
  });

  it('anchorSubject rejects a non-positive iteration or a stage outside 1..6 with CONFIG_INVALID', () => {
    expect(() => anchorSubject(0, 1)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => anchorSubject(1, 7 as never)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });

  it('anchorStageOf maps the controller stage names onto anchors 1..6', () => {
    const cases = {
      kickoff: 1,
      trigger: 2,
      observe: 3,
      recover: 3,
      triage: 4,
      verify: 4,
      plan: 5,
      flow: 5,
      audit: 5,
      rerun: 5,
      stage6: 6,
      stage1: 1,
      'stage3.2': 3,
      stage4b: 4,
      'stage5.3': 5,
    } as const;
    for (const [name, stage] of Object.entries(cases))
      expect(anchorStageOf(name as keyof typeof cases), name).toBe(stage);
    expect(() => anchorStageOf('nope' as never)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => anchorStageOf('toString' as never)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});

describe('startIterationAnchors (Step 0 items 1-3)', () => {
  it('creates exactly the six anchors of iteration N with the exact subjects, in stage order', async () => {
    const tracker = createMemoryTaskTracker();
    const anchors = await startIterationAnchors(tracker, 1, { previousRolledBack: false });
    expect(anchors.map((t) => t.subject)).toEqual(EXPECTED_SUBJECTS(1));
    expect((await tracker.list()).map((t) => t.subject)).toEqual(EXPECTED_SUBJECTS(1));
  });

  it('sets [iter-N stage-1] in_progress and leaves stages 2-6 pending', async () => {
    const tracker = createMemoryTaskTracker();
    const anchors = await startIterationAnchors(tracker, 1, { previousRolledBack: false });
    expect(statuses(anchors)).toEqual(['in_progress', 'pending', 'pending', 'pending', 'pending', 'pending']);
    expect(await checkAnchor(tracker, 1, 1)).toEqual({ ok: true });
  });

  it('marks the previous iteration completed when it ended normally', async () => {
    const tracker = createMemoryTaskTracker();
    await startIterationAnchors(tracker, 1, { previousRolledBack: false });
    await switchAnchor(tracker, 1, 6);
    await startIterationAnchors(tracker, 2, { previousRolledBack: false });
    expect(statuses(await ofIter(tracker, 1))).toEqual(Array(6).fill('completed'));
    expect(statuses(await ofIter(tracker, 2))).toEqual([
      'in_progress',
      'pending',
      'pending',
      'pending',
      'pending',
      'pending',
    ]);
    expect(await checkAnchor(tracker, 2, 1)).toEqual({ ok: true });
  });

  it(
    'marks every anchor of the previous iteration deleted when it was ' + 'rolled back, completed ones included',
    async () => {
      const tracker = createMemoryTaskTracker();
      await startIterationAnchors(tracker, 1, { previousRolledBack: false });
      for (const stage of [2, 3, 4, 5, 6] as const) await switchAnchor(tracker, 1, stage);
      await startIterationAnchors(tracker, 2, { previousRolledBack: true });
      expect(statuses(await ofIter(tracker, 1))).toEqual(Array(6).fill('deleted'));
      expect(await readAnchors(tracker, 1)).toEqual([]);
      expect((await readAnchors(tracker, 2)).map((t) => t.subject)).toEqual(EXPECTED_SUBJECTS(2));
    },
  );

  it('closes open anchors of older iterations too and never touches non-anchor tasks', async () => {
    const tracker = createMemoryTaskTracker();
    const other = await tracker.create('write the report');
    await tracker.update(other.id, 'in_progress');
    await startIterationAnchors(tracker, 1, { previousRolledBack: false });
    await startIterationAnchors(tracker, 3, { previousRolledBack: true }); // iter 2 never started (crash)
    expect(statuses(await ofIter(tracker, 1))).toEqual(Array(6).fill('completed'));
    expect((await tracker.list()).find((t) => t.id === other.id)?.status).toBe('in_progress');
    expect(await checkAnchor(tracker, 3, 1)).toEqual({ ok: true });
  });

  it('is idempotent: a second call creates nothing and keeps exactly six anchors', async () => {
    const tracker = createMemoryTaskTracker();
    await startIterationAnchors(tracker, 4, { previousRolledBack: false });
    const before = await tracker.list();
    const again = await startIterationAnchors(tracker, 4, { previousRolledBack: false });
    expect(await tracker.list()).toEqual(before);
    expect(again.map((t) => t.subject)).toEqual(EXPECTED_SUBJECTS(4));
  });

  it(
    'after a crash mid-creation, a new file tracker on the same file ' +
      'completes to exactly six anchors with no duplicates',
    async () => {
      const path = join(dir, 'tasks.json');
      await startIterationAnchors(createFileTaskTracker(path), 1, { previousRolledBack: false });
      await switchAnchor(createFileTaskTracker(path), 1, 6);
      await expect(
        startIterationAnchors(crashingAfter(createFileTaskTracker(path), 3), 2, { previousRolledBack: false }),
      ).rejects.toThrow('simulated crash');
      expect((await ofIter(createFileTaskTracker(path), 2)).map((t) => t.subject)).toEqual(
        EXPECTED_SUBJECTS(2).slice(0, 3),
      );

      const fresh = createFileTaskTracker(path);
      await startIterationAnchors(fresh, 2, { previousRolledBack: false });
      await startIterationAnchors(createFileTaskTracker(path), 2, { previousRolledBack: false });
      const iter2 = await ofIter(fresh, 2);
      expect(iter2.map((t) => t.subject).sort()).toEqual([...EXPECTED_SUBJECTS(2)].sort());
      expect(statuses(iter2.filter((t) => t.subject.includes('stage-1]')))).toEqual(['in_progress']);
      expect(statuses(await ofIter(fresh, 1))).toEqual(Array(6).fill('completed'));
      expect((await fresh.list()).map((t) => t.id)).toEqual(Array.from({ length: 12 }, (_, i) => `T${i + 1}`));
    },
  );

  it('marks a duplicated anchor deleted so iteration N keeps one live anchor per stage', async () => {
    const tracker = createMemoryTaskTracker();
    await tracker.create(anchorSubject(1, 2));
    await tracker.create(anchorSubject(1, 2));
    const anchors = await startIterationAnchors(tracker, 1, { previousRolledBack: false });
    expect(anchors.map((t) => t.subject)).toEqual(EXPECTED_SUBJECTS(1));
    expect((await tracker.list()).filter((t) => t.status === 'deleted').map((t) => t.id)).toEqual(['T2']);
  });
});

describe('switchAnchor (stage switch)', () => {
  it('completes the earlier in_progress anchor and sets the new stage in_progress', async () => {
    const tracker = createMemoryTaskTracker();
    await startIterationAnchors(tracker, 1, { previousRolledBack: false });
    expect(statuses(await switchAnchor(tracker, 1, 2))).toEqual([
      'completed',
      'in_progress',
      'pending',
      'pending',
      'pending',
      'pending',
    ]);
    expect(statuses(await switchAnchor(tracker, 1, 3))).toEqual([
      'completed',
      'completed',
      'in_progress',
      'pending',
      'pending',
      'pending',
    ]);
    expect(await checkAnchor(tracker, 1, 3)).toEqual({ ok: true });
  });

  it('is idempotent: switching to the current stage changes nothing', async () => {
    const tracker = createMemoryTaskTracker();
    await startIterationAnchors(tracker, 1, { previousRolledBack: false });
    await switchAnchor(tracker, 1, 4);
    const before = await tracker.list();
    await switchAnchor(tracker, 1, 4);
    expect(await tracker.list()).toEqual(before);
  });

  it(
    'on a resume skipping ahead leaves skipped stages pending, and resets a ' +
      'later in_progress anchor to pending when going back',
    async () => {
      const tracker = createMemoryTaskTracker();
      await startIterationAnchors(tracker, 1, { previousRolledBack: false });
      expect(statuses(await switchAnchor(tracker, 1, 4))).toEqual([
        'completed',
        'pending',
        'pending',
        'in_progress',
        'pending',
        'pending',
      ]);
      expect(statuses(await switchAnchor(tracker, 1, 3))).toEqual([
        'completed',
        'pending',
        'in_progress',
        'pending',
        'pending',
        'pending',
      ]);
    },
  );

  it('creates the anchors of the iteration when Step 0 was skipped', async () => {
    const tracker = createMemoryTaskTracker();
    const anchors = await switchAnchor(tracker, 2, 5);
    expect(anchors.map((t) => t.subject)).toEqual(EXPECTED_SUBJECTS(2));
    expect(statuses(anchors)).toEqual(['pending', 'pending', 'pending', 'pending', 'in_progress', 'pending']);
  });
});

describe('isLongDispatch (Step 0 item 4 thresholds)', () => {
  it('is long strictly above 200 reply characters: 200 is not, 201 is', () => {
    expect(LONG_DISPATCH_CHARS).toBe(200);
    expect(isLongDispatch(200, 0)).toBe(false);
    expect(isLongDispatch(201, 0)).toBe(true);
  });

  it('is long strictly above 30000 ms: 30000 is not, 30001 is', () => {
    expect(LONG_DISPATCH_MS).toBe(30_000);
    expect(isLongDispatch(0, 30_000)).toBe(false);
    expect(isLongDispatch(0, 30_001)).toBe(true);
  });
});

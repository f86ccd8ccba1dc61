import { describe, expect, it } from 'vitest';
import { EXPECTED_SUBJECTS } from './internal/task-anchors-fixture.js';
import { checkAnchor, readAnchors, startIterationAnchors, switchAnchor } from './task-anchors.js';
import { createMemoryTaskTracker } from './task-tracker.js';

describe('checkAnchor (self-anchor drift)', () => {
  it('detects drift when someone else set another anchor in_progress', async () => {
    const tracker = createMemoryTaskTracker();
    await startIterationAnchors(tracker, 1, { previousRolledBack: false });
    await switchAnchor(tracker, 1, 3);
    const stage5 = (await readAnchors(tracker, 1))[4]!;
    await tracker.update(stage5.id, 'in_progress');
    expect(await checkAnchor(tracker, 1, 3)).toEqual({
      ok: false,
      expected: EXPECTED_SUBJECTS(1)[2],
      actual: [EXPECTED_SUBJECTS(1)[2], EXPECTED_SUBJECTS(1)[4]],
    });
  });

  it('detects drift when the orchestrator believes it is in another stage than the in_progress anchor', async () => {
    const tracker = createMemoryTaskTracker();
    await startIterationAnchors(tracker, 1, { previousRolledBack: false });
    expect(await checkAnchor(tracker, 1, 2)).toEqual({
      ok: false,
      expected: EXPECTED_SUBJECTS(1)[1],
      actual: [EXPECTED_SUBJECTS(1)[0]],
    });
  });

  it('detects drift when no anchor is in_progress', async () => {
    const tracker = createMemoryTaskTracker();
    await startIterationAnchors(tracker, 1, { previousRolledBack: false });
    await tracker.update((await readAnchors(tracker, 1))[0]!.id, 'completed');
    expect(await checkAnchor(tracker, 1, 1)).toEqual({ ok: false, expected: EXPECTED_SUBJECTS(1)[0], actual: [] });
  });

  it('ignores in_progress tasks that are not anchors', async () => {
    const tracker = createMemoryTaskTracker();
    await startIterationAnchors(tracker, 1, { previousRolledBack: false });
    const other = await tracker.create('apply FIX-001');
    await tracker.update(other.id, 'in_progress');
    expect(await checkAnchor(tracker, 1, 1)).toEqual({ ok: true });
  });
});

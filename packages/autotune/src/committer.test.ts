import { expect, it } from 'vitest';
import { createRecordingCommitter } from './index.js';
import { artifactsCommitMessage, codeCommitMessage, completionCommitMessage } from './committer.js';

it('seed 004 commit policy: code changes use "feat(agent): autotune round N — <summary>" on one line', () => {
  expect(codeCommitMessage(3, 'retry parser\nwith  lookahead')).toBe(
    'feat(agent): autotune round 3 — retry parser with lookahead',
  );
});

it('end-of-round artifacts and completion have their own messages', () => {
  expect(artifactsCommitMessage(2, 'continue')).toBe('chore(autotune): round 2 artifacts — continue');
  expect(completionCommitMessage('stop_exhausted: x')).toBe('chore(autotune): loop complete — stop_exhausted: x');
});

it('the recording committer records requests in order', async () => {
  const c = createRecordingCommitter();
  await c.commit({ kind: 'code', round: 1, message: 'm', files: [] });
  expect(c.commits).toEqual([{ kind: 'code', round: 1, message: 'm', files: [] }]);
});

import { describeRollbackStrategy } from '@loop/testing';
import { createGitResetRollback } from '../src/index.js';
import { makeRepo, steppingClock } from './helpers.js';

// The shared RollbackStrategy rules, from the published @loop/testing, on a real repository whose artifact is
// artifact.txt: once
// scanning the whole working tree, once on the `paths` fast path.
for (const paths of [undefined, ['artifact.txt']]) {
  describeRollbackStrategy(paths ? 'git-reset (paths)' : 'git-reset (whole tree)', async () => {
    const repo = makeRepo({ 'artifact.txt': 'v0', 'README.md': 'fixture\n' });
    const rollback = createGitResetRollback({
      dir: repo.dir,
      branch: 'auto-iterate/conformance',
      clock: steppingClock(),
      ...(paths ? { paths } : {}),
    });
    await rollback.start();
    return {
      rollback,
      write: (content) => repo.write('artifact.txt', content),
      read: () => repo.read('artifact.txt'),
      cleanup: () => repo.cleanup(),
    };
  });
}

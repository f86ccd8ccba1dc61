import { describeRollbackStrategy } from '@loop/internal-test-utils';
import { createSnapshotRollback } from '../src/index.js';
import { makeWorkspace, steppingClock } from './helpers.js';

// The shared RollbackStrategy rules on a real directory whose artifact is artifact.ts: once with an
// explicit surface, once with the surface resolved from git status (artifact.ts changed vs HEAD).
for (const fromGit of [false, true]) {
  describeRollbackStrategy(fromGit ? 'snapshot (surface from git status)' : 'snapshot (explicit files)', async () => {
    const ws = makeWorkspace(
      { 'artifact.ts': fromGit ? 'committed' : 'v0', 'README.md': 'fixture\n' },
      { git: fromGit },
    );
    if (fromGit) ws.write('artifact.ts', 'v0');
    const rollback = createSnapshotRollback({
      workspace: ws.dir,
      runDir: ws.runDir,
      clock: steppingClock(),
      ...(fromGit ? {} : { files: ['artifact.ts'] }),
    });
    await rollback.start();
    return {
      rollback,
      write: (c) => ws.write('artifact.ts', c),
      read: () => ws.read('artifact.ts'),
      cleanup: () => ws.cleanup(),
    };
  });
}

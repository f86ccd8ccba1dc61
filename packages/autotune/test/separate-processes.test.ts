import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { createGitCommitter, runController, type IterationResult } from '../src/index.js';
import { createScriptedWorker, fixedClock } from './fixtures/scripted-worker.js';
import { cleanWorkspaces, endState, workspace } from './fixtures/workspace.js';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const script = join(packageDir, 'test', 'fixtures', 'iteration.ts');
afterEach(cleanWorkspaces);

it(
  'seed 004: a run driven as one process per iteration reaches the same ' +
    'end state as an in-process run (state lives only in files)',
  async () => {
    // One `node --import tsx` process per iteration, until an iteration reports completion.
    const a = await workspace();
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const stdout = execFileSync(
        process.execPath,
        ['--conditions=source', '--import', 'tsx', script, a.dir, a.artifactDir],
        { cwd: packageDir, encoding: 'utf8' },
      );
      const result = JSON.parse(stdout) as IterationResult;
      outcomes.push(result.outcome);
      if (result.outcome !== 'continue') break;
    }
    expect(outcomes).toEqual(['continue', 'continue', 'completed']);
    // One more process: the loop is complete, it reports and exits.
    const again = JSON.parse(
      execFileSync(process.execPath, ['--conditions=source', '--import', 'tsx', script, a.dir, a.artifactDir], {
        cwd: packageDir,
        encoding: 'utf8',
      }),
    ) as IterationResult;
    expect(again.outcome).toBe('already-complete');

    // The same run in this process.
    const b = await workspace();
    const { iterations } = await runController({
      dir: b.dir,
      artifactDir: b.artifactDir,
      worker: createScriptedWorker(),
      committer: createGitCommitter({
        dir: b.dir,
        artifactDir: b.artifactDir,
        author: { name: 't', email: 't@t' },
        clock: fixedClock,
      }),
      clock: fixedClock,
    });
    expect(iterations.map((r) => r.outcome)).toEqual(['continue', 'continue', 'completed']);

    const separate = endState(a.dir, a.artifactDir);
    const inProcess = endState(b.dir, b.artifactDir);
    expect(separate).toEqual(inProcess);
    expect(JSON.parse(separate.files.loopState!)).toMatchObject({
      status: 'complete',
      last_round: { round: 3, recommended_action: 'stop_exhausted', parked: ['d', 'e'] },
    });
    expect(separate.files.exclusions).toBe('d\ne\n');
    expect(separate.appLog.split('\n')).toEqual([
      'chore(autotune): round 3 artifacts — stop_exhausted',
      'feat(agent): autotune round 3 — patch d#3, e#3',
      'feat(agent): autotune round 2 — patch c#2, d#2, e#2',
      'feat(agent): autotune round 1 — patch b#1, c#1, d#1, e#1',
      'init',
    ]);
    expect(separate.appStatus).toBe('');
  },
);

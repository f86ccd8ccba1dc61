// The restart comparison through stages 4a-6 with git: a fresh controller after every step
// boundary of an uninterrupted run reaches the same files and git history.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { atEveryRestartPoint, snapshotFiles } from './internal/autoiter-fixture.js';
import { createFixWorld, gitSh, stagesOf, type FixSpec, type FixWorld } from '../test/fixtures/fix-world.js';

const REVERT = 'chore: revert optimization FIX(es) due to scalar regression (iter-1)';
let world: FixWorld | undefined;
afterEach(() => world?.cleanup());
function fixWorldNow(): FixWorld {
  world = createFixWorld();
  return world;
}

describe('restartability through stages 4a-6', () => {
  it(
    'restartability: a new controller between every pair of steps reaches ' +
      'the same final files and git history as one uninterrupted run() (triage, ' +
      'deep verify, DEFERRED, fix-plan, commits, audit, per-FIX revert)',
    async () => {
      const w = fixWorldNow();
      const specs: FixSpec[] = [
        { kind: 'correctness', delta: 0 },
        { kind: 'optimization', delta: -2 },
        { verdict: 'Unclear', confidence: 1 },
        { fixConfidence: 2 },
      ];
      const snapshot = () => {
        const out = snapshotFiles(w.root, ['.git']);
        out['git log'] = gitSh(w.project, 'log', '--format=%H %s');
        out['git status'] = gitSh(w.project, 'status', '--porcelain');
        return out;
      };
      w.makeRepo();
      const all = await w.setup(specs, { goal: 'correctness' }).a.run();
      expect(stagesOf(all)).toContain('stage5.2:running');
      const expected = snapshot();
      expect(expected['git log']).toContain(REVERT);
      rmSync(w.root, { recursive: true, force: true });
      w.makeRepo();
      await atEveryRestartPoint(
        w.root,
        all.length,
        w.setup(specs, { goal: 'correctness' }).a,
        () => w.setup(specs, { goal: 'correctness' }).a.run(),
        (rest) => {
          expect(rest.at(-1)).toEqual(all.at(-1));
          expect(snapshot()).toEqual(expected);
        },
      );
    },
    240_000,
  );
});

// The restart comparison of the §3.5 entry state machine: a fresh controller after every step
// boundary of an uninterrupted three-iteration run reaches the same files (stages 4a-6 with git:
// restart-fix-stages.test.ts; separate files so the two long tests run in parallel).
import { mkdirSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  atEveryRestartPoint,
  fixedAsker,
  fixtureAutoiter,
  fixtureDirs,
  snapshotFiles,
} from './internal/autoiter-fixture.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
function fixtureDirsNow() {
  const d = fixtureDirs();
  cleanups.push(d.cleanup);
  return d;
}

describe('restartability through the §3.5 entry state machine (stages 0-6, three iterations)', () => {
  it(
    'restartability: a new controller between every pair of steps reaches ' +
      'the same final files as one uninterrupted run()',
    async () => {
      const dirs = fixtureDirsNow();
      const { a } = fixtureAutoiter(dirs, { asker: fixedAsker() });
      const all = await a.run();
      const expected = snapshotFiles(dirs.root);
      rmSync(dirs.root, { recursive: true, force: true });
      mkdirSync(dirs.project, { recursive: true });
      await atEveryRestartPoint(
        dirs.root,
        all.length,
        fixtureAutoiter(dirs, { asker: fixedAsker() }).a,
        () => fixtureAutoiter(dirs, { asker: fixedAsker() }).a.run(),
        (rest) => {
          expect(rest.at(-1)).toEqual(all.at(-1));
          expect(snapshotFiles(dirs.root)).toEqual(expected);
        },
      );
    },
    240_000,
  ); // about 18 full runs of the controller (each prefix built once)
});

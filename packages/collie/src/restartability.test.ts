// The restart comparisons: a fresh controller after every step boundary of an uninterrupted run
// (the §3.5 entry state machine over three iterations, then stages 4a-6 with git) reaches the same
// files (and git history).
import { mkdirSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { atEveryRestartPoint, fixedAsker, fixtureAutoiter, fixtureDirs, snapshotFiles } from './internal/autoiter-fixture.js';
import { createFixWorld, gitSh, stagesOf, type FixSpec, type FixWorld } from '../test/fixtures/fix-world.js';

const REVERT = 'chore: revert optimization FIX(es) due to scalar regression (iter-1)';
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
function fixtureDirsNow() {
  const d = fixtureDirs();
  cleanups.push(d.cleanup);
  return d;
}
function fixWorldNow(): FixWorld {
  const w = createFixWorld();
  cleanups.push(w.cleanup);
  return w;
}

describe('restartability through the §3.5 entry state machine (stages 0-6, three iterations)', () => {
  it('restartability: a new controller between every pair of steps reaches the same final files as one uninterrupted run()', async () => {
    const dirs = fixtureDirsNow();
    const { a } = fixtureAutoiter(dirs, { asker: fixedAsker() });
    const all = await a.run();
    const expected = snapshotFiles(dirs.root);
    rmSync(dirs.root, { recursive: true, force: true });
    mkdirSync(dirs.project, { recursive: true });
    await atEveryRestartPoint(dirs.root, all.length, fixtureAutoiter(dirs, { asker: fixedAsker() }).a, () => fixtureAutoiter(dirs, { asker: fixedAsker() }).a.run(), (rest) => {
      expect(rest.at(-1)).toEqual(all.at(-1));
      expect(snapshotFiles(dirs.root)).toEqual(expected);
    });
  }, 240_000); // about 18 full runs of the controller (each prefix built once)
});

describe('restartability through stages 4a-6', () => {
  it('restartability: a new controller between every pair of steps reaches the same final files and git history as one uninterrupted run() (triage, deep verify, DEFERRED, fix-plan, commits, audit, per-FIX revert)', async () => {
    const w = fixWorldNow();
    const specs: FixSpec[] = [{ kind: 'correctness', delta: 0 }, { kind: 'optimization', delta: -2 }, { verdict: 'Unclear', confidence: 1 }, { fixConfidence: 2 }];
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
    await atEveryRestartPoint(w.root, all.length, w.setup(specs, { goal: 'correctness' }).a, () => w.setup(specs, { goal: 'correctness' }).a.run(), (rest) => {
      expect(rest.at(-1)).toEqual(all.at(-1));
      expect(snapshot()).toEqual(expected);
    });
  }, 240_000);
});

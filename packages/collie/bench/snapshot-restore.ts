// Bench part 1 (see collie.bench.ts): the flow's whole-tree snapshot / restore against git.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { interleave, pairRatios, timeOf, type Spread, loadLine } from '@loop/internal-test-utils/bench';
import {
  createTreeSnapshotStore,
  diffTreeSnapshots as diffSnapshots,
  type TreeSnapshot,
} from '@loop/rollback-snapshot';
import { SNAPSHOT_EXCLUDED } from '../src/flow-pipeline.js';
import { temp } from './temp-dirs.js';

const DIRECTORIES = 50;
const EDITED = 'd00/f0000.txt';
const identity = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false'];

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// ---------------------------------------------------------------- 1. snapshot / restore

export interface Tree {
  readonly label: string;
  readonly files: number;
  readonly bigBytes: number;
}

export function makeRepo(tree: Tree, big: Buffer | undefined): string {
  const dir = temp(`collie-bench-${tree.files}-`);
  for (let i = 0; i < tree.files; i += 1) {
    const sub = join(dir, `d${String(i % DIRECTORIES).padStart(2, '0')}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${String(i).padStart(4, '0')}.txt`), `file ${i}\n${'x'.repeat(200)}\n`);
  }
  if (big) writeFileSync(join(dir, 'big.bin'), big);
  const git = (...args: string[]) => execFileSync('git', [...identity, ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return dir;
}

export function heldBytes(make: () => Promise<TreeSnapshot>): Promise<number> {
  gc();
  const before = process.memoryUsage();
  return make().then((snap) => {
    gc();
    const after = process.memoryUsage();
    const held = after.heapUsed - before.heapUsed + (after.arrayBuffers - before.arrayBuffers);
    if (snap.entries.size === 0) throw new Error('empty snapshot');
    return held;
  });
}

export interface SnapshotRow {
  readonly tree: Tree;
  readonly entries: number;
  readonly heldMb: number;
  readonly ms: Record<'snapshot' | 'diff' | 'cycle' | 'git', number>;
  /** cycle / git, per cycle (interleaved, issue 31). */
  readonly ratio: Spread;
  readonly load: string;
  readonly samples: number;
}

export async function measureSnapshot(tree: Tree, iterations: number): Promise<SnapshotRow> {
  const big = tree.bigBytes > 0 ? randomBytes(tree.bigBytes) : undefined;
  const ours = makeRepo(tree, big);
  const theirs = makeRepo(tree, big);
  let counter = 0;
  const edit = (dir: string) => writeFileSync(join(dir, EDITED), `edit ${(counter += 1)}\n`);

  const store = createTreeSnapshotStore({
    root: ours,
    storeDir: temp('collie-bench-store-'),
    exclude: SNAPSHOT_EXCLUDED,
  });
  const snapshotWorktree = (_root: string) => store.snapshot();
  const restoreWorktree = (snap: TreeSnapshot) => store.restore(snap);
  const base = await snapshotWorktree(ours);
  const heldMb = (await heldBytes(() => snapshotWorktree(ours))) / 1024 / 1024;
  const again = await snapshotWorktree(ours);
  // Interleaved (issue 31): each cycle runs every variant once; the ratio is per cycle.
  const result = await interleave(
    {
      snapshot: async () => {
        await snapshotWorktree(ours);
      },
      diff: () => {
        if (diffSnapshots(base, again).length !== 0) throw new Error('unexpected change');
      },
      cycle: async () => {
        const snap = await snapshotWorktree(ours);
        edit(ours);
        await restoreWorktree(snap);
      },
      git: () => {
        edit(theirs);
        execFileSync('git', ['checkout', '--', '.'], { cwd: theirs, stdio: 'ignore' });
        execFileSync('git', ['clean', '-fdq'], { cwd: theirs, stdio: 'ignore' });
      },
    },
    { cycles: iterations, warmup: 1 },
  );
  const git = execFileSync('git', ['status', '--porcelain'], { cwd: theirs, encoding: 'utf8' });
  if (git !== '' || diffSnapshots(base, await snapshotWorktree(ours)).length !== 0)
    throw new Error('a worktree was not restored');
  rmSync(ours, { recursive: true, force: true });
  rmSync(theirs, { recursive: true, force: true });
  const ms = (name: string) => timeOf(result, name).median;
  return {
    tree,
    entries: base.entries.size,
    heldMb,
    ms: { snapshot: ms('snapshot'), diff: ms('diff'), cycle: ms('cycle'), git: ms('git') },
    ratio: pairRatios(result, 'cycle', 'git'),
    load: loadLine(result.load),
    samples: iterations,
  };
}

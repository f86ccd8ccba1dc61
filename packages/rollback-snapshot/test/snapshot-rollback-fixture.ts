import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createSnapshotRollback, type SnapshotRollbackOptions } from '../src/index.js';
import { makeWorkspace, steppingClock, type TempWorkspace } from './helpers.js';

/** The mtime the fixture's files are written with (ms since the epoch), to tell `cp -p` copies apart. */
export const OLD = Date.UTC(2020, 0, 1, 12, 0, 0);
/** The workspace the last {@link setup} (or {@link trackWorkspace}) made; removed by {@link cleanupSetup}. */
export let ws: TempWorkspace | undefined;

/** Registers `w` as the workspace {@link cleanupSetup} removes; returns it. */
export function trackWorkspace(w: TempWorkspace): TempWorkspace {
  ws = w;
  return w;
}

/** Removes the workspace the last {@link setup} made (register with `afterEach`). */
export function cleanupSetup(): void {
  ws?.cleanup();
  ws = undefined;
}

/** A workspace with two mutable files (and a README) at mtime {@link OLD}, and a snapshot rollback over it. */
export function setup(
  files: Record<string, string> = { 'src/a.ts': 'a0', 'src/lib/b.ts': 'b0', 'README.md': 'doc' },
  extra: Partial<SnapshotRollbackOptions> = {},
) {
  ws = makeWorkspace(files);
  for (const f of Object.keys(files)) ws.write(f, files[f]!, OLD);
  const rollback = createSnapshotRollback({
    workspace: ws.dir,
    runDir: ws.runDir,
    files: ['src/a.ts', 'src/lib/b.ts'],
    clock: steppingClock(),
    ...extra,
  });
  return { ws, rollback, snaps: join(ws.runDir, 'snapshots') };
}

/** Every file under `dir`, recursively (absolute paths). */
export function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

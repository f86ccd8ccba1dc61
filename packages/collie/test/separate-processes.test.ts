import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { bundleFixture } from '@loop/internal-test-utils';
import type { AutoiterStepOutcome } from '../src/index.js';
import { makeAutoiter } from './fixtures/autoiter-process.js';
import { snapshotFiles } from '../src/internal/autoiter-fixture.js';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const script = join(packageDir, 'test', 'fixtures', 'autoiter-process.ts');
const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
// One bundle of the fixture (internal-test-utils bundleFixture): each of the ~25 child processes is a plain `node`
// start, not `--import tsx`.
let nodeArgs: string[];
let bundleDir: string;
beforeAll(async () => {
  bundleDir = mkdtempSync(join(tmpdir(), 'collie-proc-bundle-'));
  nodeArgs = [await bundleFixture(script, bundleDir, 'autoiter-process')];
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

function fresh() {
  const root = mkdtempSync(join(tmpdir(), 'collie-proc-'));
  roots.push(root);
  const project = join(root, 'project');
  mkdirSync(project);
  return { root, stateRoot: join(root, 'collie'), project };
}

/** True while any process of the group runs (a zombie leader of a reaped group does not count). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pgid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true; // leader gone, another member alive
  }
}

const snapshot = (root: string): Record<string, string> => snapshotFiles(root);

async function inProcess() {
  const w = fresh();
  const outcomes = await makeAutoiter(w.stateRoot, w.project).run();
  return { outcomes, files: snapshot(w.root) };
}

it(
  'restartability: one node process per step() reaches the same files and ' +
    'final outcome as one in-process run() (state lives only in files)',
  async () => {
    const expected = await inProcess();
    const w = fresh();
    const outcomes: AutoiterStepOutcome[] = [];
    for (let i = 0; i < 40; i += 1) {
      const out = JSON.parse(
        execFileSync(process.execPath, [...nodeArgs, w.stateRoot, w.project, 'step'], {
          cwd: packageDir,
          encoding: 'utf8',
        }),
      ) as AutoiterStepOutcome;
      outcomes.push(out);
      if (out.kind === 'done') break;
    }
    expect(outcomes).toEqual(expected.outcomes);
    expect(snapshot(w.root)).toEqual(expected.files);
  },
  180_000,
); // about 25 node processes, one after another: 15-60 s on a loaded 2-core machine

it(
  'restartability: a process SIGKILLed in the middle of Stage 2 (trigger ' +
    'running) is started again, kills the orphaned trigger process group ' +
    'first (trigger.pgid), and finishes with the same files as an ' +
    'uninterrupted run',
  async () => {
    const expected = await inProcess();
    const w = fresh();
    writeFileSync(join(w.project, 'block'), '');
    const child = spawn(process.execPath, [...nodeArgs, w.stateRoot, w.project, 'run'], {
      cwd: packageDir,
      stdio: 'ignore',
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const started = join(w.project, 'started');
    // wait for the trigger to be running
    for (let i = 0; i < 1500 && !existsSync(started); i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(started)).toBe(true);
    const triggerGroup = Number(readFileSync(started, 'utf8'));
    child.kill('SIGKILL');
    await exited;
    expect(groupAlive(triggerGroup)).toBe(true); // the trigger's own process group, orphaned by the kill
    expect(
      JSON.parse(readFileSync(join(w.stateRoot, 'autoiter', 'proc', '20260601-000000-feed00', 'trigger.pgid'), 'utf8')),
    ).toMatchObject({ pgid: triggerGroup });
    const state = JSON.parse(
      readFileSync(join(w.stateRoot, 'autoiter', 'proc', '20260601-000000-feed00', 'state.json'), 'utf8'),
    ) as { stage: string; status: string };
    expect(state).toMatchObject({ status: 'running', stage: 'trigger' });
    rmSync(join(w.project, 'block'));
    rmSync(started);
    const rest = JSON.parse(
      execFileSync(process.execPath, [...nodeArgs, w.stateRoot, w.project, 'run'], {
        cwd: packageDir,
        encoding: 'utf8',
      }),
    ) as AutoiterStepOutcome[];
    expect(rest.at(-1)).toEqual(expected.outcomes.at(-1));
    // killed by the resumed controller before its own trigger started (trigger.pgid)
    expect(groupAlive(triggerGroup)).toBe(false);
    expect(snapshot(w.root)).toEqual(expected.files);
  },
);

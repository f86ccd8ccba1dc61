import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { StepWritePoint } from './step-machine.js';
import { createWorldMachine, worldFiles } from './test-fixtures/world.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
const world = () => {
  const dir = mkdtempSync(join(tmpdir(), 'loop-step-faults-'));
  roots.push(dir);
  return dir;
};
const initial = () => ({ label: 'w', results: [] as string[] });
const label = (p: StepWritePoint) => `${p.kind} ${p.step ?? '-'}${p.effect === undefined ? '' : ` ${p.effect}`}`;

/** The clean run: its write points and its end state. */
async function cleanRun(): Promise<{ points: string[]; files: Record<string, string | null>; data: unknown }> {
  const dir = world();
  const points: string[] = [];
  const machine = createWorldMachine(dir, { beforeWrite: (p) => void points.push(label(p)) });
  const { data } = await machine.run(initial);
  return { points, files: worldFiles(dir), data };
}

const clean = await cleanRun();

class SimulatedKill extends Error {}

describe('step machine: a kill at every write point, then a restart', () => {
  it('the clean run passes every kind of write point: reset, cursor, intent, effect, done', () => {
    expect(clean.points).toEqual([
      'reset -',
      'cursor -',
      'intent prepare ledger',
      'effect prepare ledger',
      'done prepare ledger',
      'intent prepare config',
      'effect prepare config',
      'done prepare config',
      'cursor prepare',
      'intent publish counter',
      'effect publish counter',
      'done publish counter',
      'intent publish ledger-2',
      'effect publish ledger-2',
      'done publish ledger-2',
      'cursor publish',
      'intent close summary',
      'effect close summary',
      'done close summary',
      'cursor close',
    ]);
    expect(clean.files['ledger.txt']).toBe('prepare w\ncounter\npublish 1\n');
  });

  it.each(clean.points.map((p, i) => [i, p] as const))(
    'stopped before write point %i (%s), a restart ends with the same files ' +
      'and each non-idempotent effect ran exactly once',
    async (index) => {
      const dir = world();
      let seen = 0;
      const killed = createWorldMachine(dir, {
        beforeWrite: () => {
          if (seen++ === index) throw new SimulatedKill(`killed at ${index}`);
        },
      });
      await expect(killed.run(initial)).rejects.toBeInstanceOf(SimulatedKill);
      const restarted = createWorldMachine(dir);
      const result = await restarted.run(initial);
      expect(result.data).toEqual(clean.data);
      expect(worldFiles(dir)).toEqual(clean.files);
      expect((await restarted.cursor())?.step).toBeNull();
    },
  );
});

const childScript = join(dirname(fileURLToPath(import.meta.url)), 'test-fixtures', 'kill-child.ts');
const packageDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const runChild = (dir: string, killAt: number) =>
  spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', childScript, dir, String(killAt)], {
    cwd: packageDir,
    encoding: 'utf8',
  });

describe('step machine: a real kill -9 of a child process at every write point', () => {
  it('an unkilled child passes the same write points as the in-process run', () => {
    const out = execFileSync(process.execPath, ['--conditions=source', '--import', 'tsx', childScript, world(), '-1'], {
      cwd: packageDir,
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual(clean.points);
  });

  it.each(clean.points.map((p, i) => [i, p] as const))(
    'a child SIGKILLed before write point %i (%s), then a fresh child, ends ' +
      "with the same files; the dead owner's lock is taken over",
    (index) => {
      const dir = world();
      const killed = runChild(dir, index);
      expect(killed.signal).toBe('SIGKILL');
      const restarted = runChild(dir, -1);
      expect(restarted.stderr).toBe('');
      expect(restarted.status).toBe(0);
      expect(worldFiles(dir)).toEqual(clean.files);
    },
  );
});

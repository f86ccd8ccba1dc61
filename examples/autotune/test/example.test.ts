import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { resolveAutotunePaths, runControllerIteration } from '@loop/autotune';
import { TASK_IDS, evaluateTasks } from '../src/evaluate.js';
import { exampleOptions, git, runExample, runIterations, setUpWorkspace } from '../src/run-example.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

it('the template tasks are real checks: only left-pad passes before any round', async () => {
  const template = join(import.meta.dirname, '..', 'template');
  const results = await evaluateTasks(join(template, 'tasks'), join(template, 'eval', 'vectors.json'));
  expect(results.map((r) => r.id)).toEqual([...TASK_IDS]);
  expect(results.filter((r) => r.passed).map((r) => r.id)).toEqual(['left-pad']);
});

it(
  'seed 004: the scripted run fixes clamp, slugify and median, then ends ' +
    'stop_exhausted with roman and parse-duration parked',
  async () => {
    const root = mkdtempSync(join(tmpdir(), 'loop-autotune-example-'));
    roots.push(root);
    const { dir, artifactDir, results } = await runExample(root, () => {}, { now: () => Date.UTC(2025, 0, 1) });
    expect(results.map((r) => r.outcome)).toEqual(['continue', 'continue', 'completed']);
    const last = results[2]!;
    expect(last.state).toMatchObject({
      status: 'complete',
      last_round: { round: 3, recommended_action: 'stop_exhausted', parked: ['parse-duration', 'roman'] },
    });
    const paths = resolveAutotunePaths(dir, artifactDir);
    expect(readFileSync(paths.exclusions, 'utf8')).toBe('parse-duration\nroman\n');
    expect(readFileSync(paths.issues, 'utf8')).toContain('- roman: failed 3 targeted attempt(s) (rounds 1, 2, 3)');
    const passing = (await evaluateTasks(join(dir, 'tasks'), join(dir, 'eval', 'vectors.json')))
      .filter((r) => r.passed)
      .map((r) => r.id);
    expect(passing).toEqual(['clamp', 'slugify', 'median', 'left-pad']);
  },
);

it(
  'issue 11: an iteration stopped just before its artifacts commit (as a ' +
    'kill would) resumes on the next call: the same end files and each commit ' +
    'once',
  async () => {
    const clock = { now: () => Date.UTC(2025, 0, 1) };
    const log = async (cwd: string) => (await git(cwd, 'log', '--format=%s')).split('\n');
    const rootA = mkdtempSync(join(tmpdir(), 'loop-autotune-example-'));
    const rootB = mkdtempSync(join(tmpdir(), 'loop-autotune-example-'));
    roots.push(rootA, rootB);
    const clean = await runExample(rootA, () => {}, clock);
    const ws = await setUpWorkspace(rootB);
    const stop = {
      beforeWrite: (p: { kind: string; step: string | null; effect?: string }) => {
        if (p.kind === 'intent' && p.effect === 'artifacts-commit') throw new Error('killed');
      },
    };
    await expect(
      runControllerIteration(exampleOptions(ws.dir, ws.artifactDir, clock, { stepHooks: stop })),
    ).rejects.toThrow('killed');
    const results = await runIterations(ws.dir, ws.artifactDir, () => {}, clock);
    expect(results.map((r) => r.outcome)).toEqual(['continue', 'continue', 'completed']);
    expect(results.map((r) => r.round)).toEqual([1, 2, 3]);
    const a = resolveAutotunePaths(clean.dir, clean.artifactDir);
    const b = resolveAutotunePaths(ws.dir, ws.artifactDir);
    for (const key of Object.keys(a) as Array<keyof typeof a>)
      expect(readFileSync(b[key], 'utf8')).toBe(readFileSync(a[key], 'utf8'));
    expect(await log(ws.artifactDir)).toEqual(await log(clean.artifactDir));
    expect(await log(ws.dir)).toEqual(await log(clean.dir));
  },
);

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { resolveAutotunePaths } from '@loop/autotune';
import { TASK_IDS, evaluateTasks } from '../src/evaluate.js';
import { runExample } from '../src/run-example.js';

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

it('seed 004: the scripted run fixes clamp, slugify and median, then ends stop_exhausted with roman and parse-duration parked', async () => {
  const root = mkdtempSync(join(tmpdir(), 'loop-autotune-example-'));
  roots.push(root);
  const { dir, artifactDir, results } = await runExample(root, () => {}, { now: () => Date.UTC(2025, 0, 1) });
  expect(results.map((r) => r.outcome)).toEqual(['continue', 'continue', 'completed']);
  const last = results[2]!;
  expect(last.state).toMatchObject({ status: 'complete', last_round: { round: 3, recommended_action: 'stop_exhausted', parked: ['parse-duration', 'roman'] } });
  const paths = resolveAutotunePaths(dir, artifactDir);
  expect(readFileSync(paths.exclusions, 'utf8')).toBe('parse-duration\nroman\n');
  expect(readFileSync(paths.issues, 'utf8')).toContain('- roman: failed 3 targeted attempt(s) (rounds 1, 2, 3)');
  const passing = (await evaluateTasks(join(dir, 'tasks'), join(dir, 'eval', 'vectors.json'))).filter((r) => r.passed).map((r) => r.id);
  expect(passing).toEqual(['clamp', 'slugify', 'median', 'left-pad']);
});

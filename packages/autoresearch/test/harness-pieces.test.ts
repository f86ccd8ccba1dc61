import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFunctionPassHarness, createReflectionScorer, createTestGate } from '../src/index.js';
import { parsePassRate } from '../src/tier1-gates.js';
import { parseReflectionOutput } from '../src/reflection-scorer.js';

let dir: string;
const signal = new AbortController().signal;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-harness-'));
  mkdirSync(join(dir, '.claude/agents'), { recursive: true });
  writeFileSync(join(dir, '.claude/agents/reflection-agent.md'), 'Score the code.\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const node = (script: string) => ['node', '-e', script];

describe('reflection scorer (seed 002: the reflection-agent harness)', () => {
  it(
    'runs the agent command with the workspace prompt on stdin and returns ' +
      'the pass dimension scores from its JSON',
    async () => {
      const scorer = createReflectionScorer({
        workspace: dir,
        command: node(
          `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{console.log('thinking...');` +
            `console.log(JSON.stringify({scores:{quality:s.includes('Score ` +
            `the code.')?8.5:0, extra:1}}))})`,
        ),
        dimensions: ['quality'],
      });
      expect(await scorer.score({ iteration: 1, signal })).toEqual({ quality: 8.5 });
    },
  );

  it('a missing dimension, an out-of-range score or a failing command throws (a crash iteration)', async () => {
    expect(() => parseReflectionOutput('{"quality": 11}', ['quality'])).toThrow(/quality/);
    expect(() => parseReflectionOutput('{"naming_clarity": 7}', ['quality'])).toThrow(/no valid score for quality/);
    expect(() => parseReflectionOutput('no json', ['quality'])).toThrow(/no JSON/);
    const failing = createReflectionScorer({
      workspace: dir,
      command: node('process.exit(3)'),
      dimensions: ['quality'],
    });
    await expect(failing.score({ iteration: 1, signal })).rejects.toThrow(/exited 3/);
  });

  it('the prompt path is never a user-level path', () => {
    expect(() =>
      createReflectionScorer({
        workspace: dir,
        command: ['x'],
        dimensions: ['quality'],
        promptFile: '~/.claude/skills/reflection/SKILL.md',
      }),
    ).toThrow(/never a user-level path/);
  });
});

describe('Tier-1 gates (seed 002 function mode)', () => {
  const coverage = (pct: number) => {
    mkdirSync(join(dir, 'coverage'), { recursive: true });
    writeFileSync(join(dir, 'coverage/coverage-summary.json'), JSON.stringify({ total: { lines: { pct } } }));
  };

  it('the test command exiting 0 is green, and coverage at least the minimum passes', async () => {
    coverage(85);
    const gate = createTestGate({
      workspace: dir,
      command: node("console.log(' Tests  4 passed (4)')"),
      minCoveragePct: 80,
    });
    expect(await gate.run({ iteration: 0, signal })).toEqual({
      gates: { testsGreen: true, coverageOk: true, coveragePct: 85 },
      passRate: 1,
    });
  });

  it('coverage below the minimum zeroes the composite; red tests zero it too (the hard gate)', async () => {
    coverage(70);
    const reflection = { name: 'fixed', score: () => ({ quality: 9 }) };
    const low = createFunctionPassHarness({
      reflection,
      gates: createTestGate({ workspace: dir, command: node(''), minCoveragePct: 80 }),
    });
    expect(await low.score({ iteration: 1, signal })).toMatchObject({
      composite: 0,
      dimensions: { quality: 9, coverage: 70 },
    });
    coverage(90);
    const red = createFunctionPassHarness({
      reflection,
      gates: createTestGate({
        workspace: dir,
        command: node("console.log(' Tests  1 failed | 3 passed (4)');process.exit(1)"),
        minCoveragePct: 80,
      }),
    });
    expect(await red.score({ iteration: 1, signal })).toMatchObject({
      composite: 0,
      dimensions: { pass_rate: 0.75 },
      gates: { testsGreen: false },
    });
    const green = createFunctionPassHarness({
      reflection,
      gates: createTestGate({ workspace: dir, command: node(''), minCoveragePct: 80 }),
    });
    expect(await green.score({ iteration: 1, signal })).toMatchObject({
      composite: 9,
      gates: { testsGreen: true, coverageOk: true },
    });
  });

  it('pass rate is read from vitest and jest summaries', () => {
    expect(parsePassRate('\u001b[2m      Tests \u001b[22m 2 failed | 6 passed (8)')).toBe(0.75);
    expect(parsePassRate('Tests:       1 failed, 9 passed, 10 total')).toBe(0.9);
    expect(parsePassRate('nothing')).toBeUndefined();
  });
});

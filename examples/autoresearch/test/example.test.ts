import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResultsTsv } from '@loop/autoresearch/results-tsv';
import { applyReplacements, loadSteps } from '../src/proposer.js';
import { MODULE, TASK_ID, TEMPLATE, runExample, type ExampleRun } from '../src/run-example.js';

/** SHA-256 of every template file, keyed by relative path. */
function hashTree(dir: string, root = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(out, hashTree(path, root));
    else out[relative(root, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return out;
}

let root: string;
let run: ExampleRun;
let templateBefore: Record<string, string>;

beforeAll(async () => {
  templateBefore = hashTree(TEMPLATE);
  root = mkdtempSync(join(tmpdir(), 'loop-autoresearch-example-'));
  run = await runExample(join(root, 'workspace'));
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('examples/autoresearch: AR-2 function pass on src/slug.js (real run)', () => {
  it(
    'goes from composite 6.00 to best 10.00 and stops on target-met with 2 ' +
      'kept, 3 reverted (1 reverted-redtest), 0 crash',
    () => {
      expect(run.result).toMatchObject({
        mode: 'function',
        startComposite: 6,
        bestComposite: 10,
        stopReason: 'target-met',
        counts: { kept: 2, reverted: 3, revertedRedtest: 1, crash: 0 },
        iterationsThisRun: 5,
        resumed: false,
      });
      expect(run.result.halted).toBeUndefined();
      expect(run.lines).toHaveLength(7); // baseline + 5 iteration lines + the summary
      expect(run.lines[6]).toContain('composite 6.00 -> best 10.00');
    },
  );

  it(
    'logs the statuses baseline, kept, reverted-redtest (tests red), ' +
      'reverted (coverage gate), reverted (equal score), kept',
    () => {
      const rows = parseResultsTsv(readFileSync(run.result.resultsPath, 'utf8')).rows;
      expect(rows.map((r) => `${r.iter} ${r.status} ${r.columns.composite} ${r.columns.coverage}`)).toEqual([
        '0 baseline 6.00 100.00',
        '1 kept 7.50 100.00',
        '2 reverted-redtest 0.00 100.00',
        '3 reverted 0.00 83.33',
        '4 reverted 7.50 100.00',
        '5 kept 10.00 100.00',
      ]);
      expect(rows[2]!.columns.pass_rate).toBe('0.50');
    },
  );

  it('writes results.tsv under .aid/pipeline/autoresearch/T-7 with the exact AR-2 header', () => {
    expect(run.result.resultsPath).toBe(join(run.workspace, '.aid/pipeline/autoresearch', TASK_ID, 'results.tsv'));
    expect(readFileSync(run.result.resultsPath, 'utf8').split('\n')[0]).toBe(
      'iter\tcomposite\tdelta\tquality\tpass_rate\tcoverage\tstatus\tsnapshot\tutc',
    );
  });

  it('leaves the workspace at the best kept version (iter 5), byte-equal to its kept snapshot', () => {
    const steps = loadSteps();
    const template = readFileSync(join(TEMPLATE, MODULE), 'utf8');
    const expected = applyReplacements(
      applyReplacements(applyReplacements(template, steps[0]!.apply), steps[4]!.apply),
      steps[4]!.refine ?? [],
    );
    const onDisk = readFileSync(join(run.workspace, MODULE), 'utf8');
    expect(onDisk).toBe(expected);
    expect(onDisk).toContain('const trimmed');
    expect(onDisk).not.toMatch(/\bvar\b/);
    expect(run.result.bestId).toMatch(/^005-kept-split-chain-/);
    const snapshot = readFileSync(
      join(run.workspace, '.aid/pipeline/autoresearch', TASK_ID, 'snapshots', run.result.bestId, MODULE),
      'utf8',
    );
    expect(onDisk).toBe(snapshot);
  });

  it('writes state.json last with the pass scores, commits nothing and never modifies the template', () => {
    const state = JSON.parse(readFileSync(run.result.statePath, 'utf8')) as {
      autoresearch: { function: Record<string, unknown> };
      step_history: unknown[];
    };
    expect(state.autoresearch.function).toMatchObject({
      start_score: 6,
      best_score: 10,
      stop_reason: 'target-met',
      rubric_sha256: run.result.rubricSha256,
    });
    expect(state.step_history).toEqual([
      expect.objectContaining({ step: 'AR_FUNCTION', start_score: 6, best_score: 10 }),
    ]);
    const git = (...a: string[]) => execFileSync('git', a, { cwd: run.workspace, encoding: 'utf8' });
    expect(git('rev-list', '--count', 'HEAD').trim()).toBe('1');
    expect(git('status', '--porcelain', '--untracked-files=all')).toBe(`?? ${MODULE}\n`);
    expect(hashTree(TEMPLATE)).toEqual(templateBefore);
  });
});

describe('examples/autoresearch: never edit the harness (seed 002 safety brakes)', () => {
  it(
    'an idea that raises the reflection score by editing tools/reflect.mjs ' +
      'halts the pass as harness-tampered: never scored, never kept, the module ' +
      'restored',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'loop-autoresearch-harness-'));
      try {
        const gaming = {
          description: 'make the reflection tool lenient',
          slug: 'lenient-reflect',
          apply: [
            { file: 'tools/reflect.mjs', find: '10 - 1.5 * vars - long', replace: '10' },
            { find: 'var lower', replace: 'let lower' },
          ],
        };
        const { result } = await runExample(join(dir, 'ws'), { steps: [gaming] });
        const rows = parseResultsTsv(readFileSync(result.resultsPath, 'utf8')).rows;
        expect(rows.map((r) => `${r.iter} ${r.status} ${r.columns.composite}`)).toEqual([
          '0 baseline 6.00',
          '1 harness-tampered -',
        ]);
        expect(result).toMatchObject({ stopReason: 'harness-tampered', halted: 'harness-tampered', bestComposite: 6 });
        expect(result.error?.message).toMatch(/tools\/reflect\.mjs/);
        expect(readFileSync(join(dir, 'ws', MODULE), 'utf8')).toBe(readFileSync(join(TEMPLATE, MODULE), 'utf8'));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('the scripted proposer steps', () => {
  it('a replacement whose text is absent throws (the iteration would be a crash)', () => {
    expect(() => applyReplacements('const a = 1;', [{ find: 'var b', replace: 'const b' }])).toThrow(/not found/);
    expect(applyReplacements('a a', [{ find: 'a', replace: 'b', all: true }])).toBe('b b');
  });
});

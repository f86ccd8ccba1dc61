import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createFunctionPassHarness,
  createReflectionScorer,
  createTestGate,
  resolvePassConfig,
  runPass,
  type AutoresearchProposer,
} from '../src/index.js';
import { parseResultsTsv } from '../src/results-tsv.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (p: string, c: string) => {
  mkdirSync(dirname(join(dir, p)), { recursive: true });
  writeFileSync(join(dir, p), c);
};

// A real module with its own tests and a coverage summary, a deterministic reflection command
// (quality = 10 - 1.5 per `var` - 1 per line over 60 chars), and a scripted proposer.
const MODULE = `export function slugify(text) {
  var lower = text.toLowerCase();
  var dashed = lower.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return dashed;
}
`;
const RUN_TESTS =
  `import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { slugify } from './src/slug.js';
const cases = [['Hello World', 'hello-world'], ['  A--b ', 'a-b'], ['x', 'x'], ['', '']];
let passed = 0;
for (const [input, want] of cases) { try { assert.equal(slugify(input), want); passed++; } catch {} }
mkdirSync('coverage', { recursive: true });
writeFileSync('coverage/coverage-summary.json', JSON.stringify({ total: { lines: { pct: 100 } } }));
console.log(' Tests  ' + (cases.length - passed ? (cases.length - passed) + ' failed | ' : '') + passed + ' passed ` +
  `(' + cases.length + ')');
process.exit(passed === cases.length ? 0 : 1);
`;
const REFLECT = `import { readFileSync } from 'node:fs';
const src = readFileSync('src/slug.js', 'utf8');
const vars = (src.match(/\\bvar\\b/g) || []).length;
const long = src.split('\\n').filter((l) => l.length > 60).length;
console.log(JSON.stringify({ scores: { quality: Math.max(0, 10 - 1.5 * vars - long) } }));
`;

const EDITS: Array<{ description: string; edit: (s: string) => string }> = [
  { description: 'var to const for lower', edit: (s) => s.replace('var lower', 'const lower') },
  { description: 'drop the trim of dashes', edit: (s) => s.replace(".replace(/^-+|-+$/g, '')", '') },
  { description: 'rename dashed to slug', edit: (s) => s.replace(/dashed/g, 'slug') },
  {
    description: 'split the long chain and use const',
    edit: (s) =>
      s
        .replace(
          / {2}var dashed = lower\.replace\(\/\[\^a-z0-9\]\+\/g, '-'\)\.replace\(\/\^-\+\|-\+\$\/g, ''\);/,
          "  const dashed = lower.replace(/[^a-z0-9]+/g, '-');\n  const trimmed = dashed.replace(/^-+|-+$/g, '');",
        )
        .replace('return dashed;', 'return trimmed;'),
  },
];

describe('function mode end to end (seed 002 AR-2 on a real module)', () => {
  it(
    'improves a real module with Tier-1 gates (test command green, coverage ' +
      'minimum) x a reflection command, keeps only strict improvements, and ' +
      'leaves the best version on disk',
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'loop-ar2-e2e-'));
      write('src/slug.js', MODULE);
      write('run-tests.mjs', RUN_TESTS);
      write('reflect.mjs', REFLECT);
      write('criteria/ar-function.yaml', 'quality: no var, short lines\n');
      write('.claude/agents/reflection-agent.md', 'Score quality 0-10.\n');
      write('.gitignore', '.aid/\ncoverage/\n');
      const git = (...a: string[]) =>
        execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', '-c', 'commit.gpgsign=false', ...a], {
          cwd: dir,
          encoding: 'utf8',
        });
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-q', '-m', 'init');
      write('src/slug.js', `// task T-7: slugify\n${MODULE}`); // the task's change: the mutable surface

      let i = 0;
      const proposer: AutoresearchProposer = {
        name: 'scripted',
        plan: () => {
          const e = EDITS[i++]!;
          return { description: e.description, files: ['src/slug.js'], slug: e.description, edit: e.edit } as never;
        },
        apply: (idea, { round }) => {
          if (round > 0) return; // no refinement needed
          const path = join(dir, 'src/slug.js');
          writeFileSync(path, (idea as unknown as (typeof EDITS)[number]).edit(readFileSync(path, 'utf8')));
        },
      };
      const lines: string[] = [];
      const result = await runPass({
        workspace: dir,
        taskId: 'T-7',
        config: resolvePassConfig('function', { ar_function: { max_iterations: 4, max_consecutive_reverts: 3 } }),
        harness: createFunctionPassHarness({
          gates: createTestGate({ workspace: dir, command: ['node', 'run-tests.mjs'], minCoveragePct: 80 }),
          reflection: createReflectionScorer({
            workspace: dir,
            command: ['node', 'reflect.mjs'],
            dimensions: ['quality'],
          }),
        }),
        proposer,
        rubricFiles: [join(dir, 'criteria/ar-function.yaml'), join(dir, '.claude/agents/reflection-agent.md')],
        output: (l) => lines.push(l),
      });
      const rows = parseResultsTsv(readFileSync(result.resultsPath, 'utf8')).rows;
      expect(rows.map((r) => `${r.iter} ${r.status} ${r.columns.composite}`)).toEqual([
        '0 baseline 6.00',
        '1 kept 7.50',
        '2 reverted-redtest 0.00',
        '3 reverted 7.50',
        '4 kept 10.00',
      ]);
      expect(result).toMatchObject({ startComposite: 6, bestComposite: 10, stopReason: 'target-met' });
      expect(readFileSync(join(dir, 'src/slug.js'), 'utf8')).toMatch(/const trimmed/);
      expect(git('status', '--porcelain')).toBe(' M src/slug.js\n'); // nothing committed, only the source changed
      expect(lines).toHaveLength(6);
    },
  );
});

// `loop init --preset autoresearch`, then `loop run`, `loop status`, `loop resume` and
// `loop report` on a real workspace: a module with two `var`s, an instant test command, a
// reflection command scoring 10 - 2 per `var`, and a proposer command (sed) that turns one `var`
// into `const` per call. No code: every piece is a shell command in the config.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { runCliCaptured } from './fixtures/run-cli.js';

let ws: string;

const loop = (...args: string[]) => runCliCaptured(ws, args);

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, encoding: 'utf8' });

function edit(edits: Record<string, unknown>): void {
  const file = join(ws, 'loop.config.yaml');
  const doc = parseDocument(readFileSync(file, 'utf8'));
  for (const [key, value] of Object.entries(edits)) doc.setIn(key.split('.'), value);
  writeFileSync(file, doc.toString());
}

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'loop-preset-ar-'));
  for (const d of ['src', 'test', 'tools', 'criteria']) mkdirSync(join(ws, d));
  writeFileSync(join(ws, 'src', 'module.js'), 'var a = 1;\nvar b = 2;\nexport const sum = () => a + b;\n');
  writeFileSync(join(ws, 'test', 'run-tests.mjs'), "console.log(' Tests  1 passed (1)');\n");
  writeFileSync(
    join(ws, 'tools', 'reflect.mjs'),
    "import { readFileSync } from 'node:fs';\nconst vars = " +
      "(readFileSync('src/module.js', 'utf8').match(/\\bvar\\b/g) ?? " +
      '[]).length;\nconsole.log(JSON.stringify({ scores: { quality: 10 - 2 * ' +
      'vars } }));\n',
  );
  writeFileSync(join(ws, 'criteria', 'ar-function.yaml'), 'quality: no var\n');
  mkdirSync(join(ws, '.claude', 'agents'), { recursive: true });
  writeFileSync(join(ws, '.claude', 'agents', 'reflection-agent.md'), 'Score the module 0-10 for quality.\n');
  writeFileSync(join(ws, '.gitignore'), '.aid/\ncoverage/\n');
  git('init', '-q', '-b', 'main');
  git('add', '-A', '--', '.', ':!src/module.js');
  git('commit', '-q', '-m', 'harness');
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('loop init --preset autoresearch, then loop run with no code', () => {
  it(
    'runs a function pass of shell commands: keeps each better edit, resumes ' +
      'without a new baseline, reports and shows its status',
    async () => {
      const init = await loop('init', '--preset', 'autoresearch');
      expect(init.code).toBe(0);
      expect(init.out).toContain('add .aid/ to .gitignore');
      edit({
        'proposer.command': "sed -i '0,/var /s//const /' src/module.js",
        maxIterations: 1,
        internalRounds: 1,
        kpiTarget: 10,
      });
      const first = await loop('run');
      expect(first.err).toBe('');
      expect(first.code).toBe(0);
      expect(first.out).toMatch(/iter 0 \| baseline \| 6\.00/);
      expect(first.out).toMatch(/iter 1 \| kept \| 8\.00/);
      const status = await loop('status', 'loop.config.yaml');
      expect(status.code).toBe(0);
      expect(status.out).toContain('(autoresearch task T-1)');
      expect(status.out).toContain('counts    keep 1  discard 0  crash 0');
      // the row's description (results.jsonl), not its status again
      expect(status.out).toMatch(/^ +1 +8 +kept +edit 1$/m);
      // no target: the config in the folder (second fresh-user trial: said "no run here yet")
      const bare = await loop('status');
      expect(bare.code).toBe(0);
      expect(bare.out).toContain('(autoresearch task T-1)');

      edit({ maxIterations: 3 });
      const resumed = await loop('resume');
      expect(resumed.code).toBe(0);
      expect(resumed.out).not.toMatch(/iter 0 \| baseline/);
      expect(resumed.out).toMatch(/iter 2 \| kept \| 10\.00/);
      expect(resumed.out).toContain('target-met');
      expect(readFileSync(join(ws, 'src', 'module.js'), 'utf8')).toBe(
        'const a = 1;\nconst b = 2;\nexport const sum = () => a + b;\n',
      );
      const json = JSON.parse((await loop('status', 'loop.config.yaml', '--json')).out) as {
        rows: Array<{ kind: string }>;
      };
      expect(json.rows.map((r) => r.kind)).toEqual(['baseline', 'keep', 'keep']);

      const report = await loop('report', '.aid/pipeline/autoresearch/T-1/results.tsv', '--out', 'plot.svg');
      expect(report.code).toBe(0);
      expect(readFileSync(join(ws, 'plot.svg'), 'utf8')).toContain('composite progress: 2 experiments, 2 kept');
    },
  );
  it(
    'logs what the proposer command says it did (its last output line) when ' + 'there is no planCommand, not "edit N"',
    async () => {
      expect((await loop('init', '--preset', 'autoresearch')).code).toBe(0);
      edit({
        'proposer.command': "sed -i '0,/var /s//const /' src/module.js && echo 'make the first var a const'",
        maxIterations: 1,
        internalRounds: 1,
        kpiTarget: 10,
      });
      const run = await loop('run');
      expect(run.code).toBe(0);
      const log = await loop('log', 'loop.config.yaml');
      expect(log.code).toBe(0);
      expect(log.out).toContain('make the first var a const');
      expect(log.out).not.toMatch(/\bedit 1\b/);
    },
  );

  it(
    'loop init --preset autoresearch writes the four harness files its ' +
      'config names (none hand-written), leaves existing ones as they are, and ' +
      'loop run works with only the module added (issue 32)',
    async () => {
      const before = readFileSync(join(ws, 'tools', 'reflect.mjs'), 'utf8');
      const kept = await loop('init', '--preset', 'autoresearch');
      expect(kept.out).toContain(
        'kept criteria/ar-function.yaml, .claude/agents/reflection-agent.md, ' +
          'test/run-tests.mjs, tools/reflect.mjs (they exist',
      );
      expect(readFileSync(join(ws, 'tools', 'reflect.mjs'), 'utf8')).toBe(before);

      // A fresh repository holding only the module.
      rmSync(ws, { recursive: true, force: true });
      ws = mkdtempSync(join(tmpdir(), 'loop-preset-ar-fresh-'));
      mkdirSync(join(ws, 'src'));
      writeFileSync(join(ws, 'src', 'module.js'), 'var a = 1;\nvar b = 2;\nexport const sum = () => a + b;\n');
      git('init', '-q', '-b', 'main');
      const init = await loop('init', '--preset', 'autoresearch');
      expect(init.code).toBe(0);
      for (const f of [
        'criteria/ar-function.yaml',
        '.claude/agents/reflection-agent.md',
        'test/run-tests.mjs',
        'tools/reflect.mjs',
      ])
        expect(init.out).toContain(`wrote ${join(ws, f)}`);
      writeFileSync(
        join(ws, 'test', 'module.test.mjs'),
        "import test from 'node:test';\nimport assert from " +
          "'node:assert/strict';\nimport { sum } from " +
          "'../src/module.js';\ntest('sum', () => assert.equal(sum(), 3));\n",
      );
      writeFileSync(join(ws, '.gitignore'), '.aid/\ncoverage/\n');
      edit({
        'proposer.command': "sed -i '0,/var /s//const /' src/module.js",
        maxIterations: 1,
        internalRounds: 1,
        kpiTarget: 10,
      });
      git('add', '-A', '--', '.', ':!src/module.js');
      git('commit', '-q', '-m', 'harness');
      const run = await loop('run');
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      expect(run.out).toMatch(/iter 0 \| baseline \| 7\.00/); // 10 - 1.5 per var
      expect(run.out).toMatch(/iter 1 \| kept \| 8\.50/);
    },
    120_000,
  );

  it(
    'a missing harness file is reported as missing, at its line of the ' +
      'config (exit 2, nothing run), not as HARNESS_TAMPERED (issue 32)',
    async () => {
      expect((await loop('init', '--preset', 'autoresearch')).code).toBe(0);
      rmSync(join(ws, 'criteria', 'ar-function.yaml'));
      rmSync(join(ws, 'tools', 'reflect.mjs'));
      const run = await loop('run');
      expect(run.code).toBe(2);
      expect(run.err).toMatch(/loop\.config\.yaml:\d+: rubricFiles\.0: criteria\/ar-function\.yaml is missing in /);
      expect(run.err).toMatch(/harnessFiles\.1: tools\/reflect\.mjs is missing in /);
      expect(run.err).toContain('loop init --preset autoresearch writes a starter one');
      expect(run.err).not.toContain('HARNESS_TAMPERED');
      expect(run.out).not.toContain('iter 0');
    },
  );
});

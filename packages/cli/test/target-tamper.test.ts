import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createAutoIterate, parseAutoIterateTsv } from '@loop/auto-iterate';
import { isLoopError } from '@loop/core';
import { evaluatorInvocation, evaluatorsPackageDir } from '@loop/evaluators';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// seed 001: "CANNOT 修改评估方法本身 (the evaluation is ground truth; ground truth is immutable)".
// The evaluator runs from its package, outside the workspace, and its files are in the harness
// fingerprint. A copy of the package (its node_modules linked) stands in for the installed one,
// so the test can edit it without touching the real source.
let tmp: string;
let ws: string;
let pkg: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, encoding: 'utf8' }).trim();

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'loop-tamper-'));
  ws = join(tmp, 'ws');
  pkg = join(tmp, 'evaluators');
  const real = evaluatorsPackageDir();
  cpSync(join(real, 'src'), join(pkg, 'src'), { recursive: true });
  cpSync(join(real, 'package.json'), join(pkg, 'package.json'));
  mkdirSync(join(pkg, 'node_modules'));
  const req = createRequire(join(real, 'package.json'));
  for (const m of ['minisearch', 'yaml'])
    symlinkSync(realpathSync(join(real, 'node_modules', m)), join(pkg, 'node_modules', m));
  symlinkSync(dirname(realpathSync(req.resolve('tsx/package.json'))), join(pkg, 'node_modules', 'tsx'));
  mkdirSync(ws);
  git('init', '-q', '-b', 'main');
  writeFileSync(
    join(ws, 'SKILL.md'),
    '---\nname: x\ndescription: A skill that does one thing for the user when asked to.\ntriggers: [x]\n---\n\n# X\n',
  );
  git('add', '.');
  git('commit', '-qm', 'skill');
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('the built-in evaluator is part of the fixed harness', () => {
  it(
    'a proposer that edits the evaluator (to score everything 10) stops the ' +
      'run with HARNESS_TAMPERED; nothing it did is kept',
    async () => {
      const { command, harnessFiles } = evaluatorInvocation('skill', 'SKILL.md', { packageDir: pkg });
      expect(harnessFiles).toContain(join(pkg, 'src', 'skill.ts'));
      const run = createAutoIterate({
        dir: ws,
        tag: 'tamper',
        files: { targetFiles: ['SKILL.md'], harnessFiles },
        run: { command },
        score: { metricName: 'score', direction: 'maximize', dimensionsFile: 'dimensions.tsv' },
        stop: { maxIterations: 3 },
        proposer: {
          name: 'cheater',
          propose: () => {
            appendFileSync(join(ws, 'SKILL.md'), '\nmore\n');
            const file = join(pkg, 'src', 'evaluation.ts');
            writeFileSync(
              file,
              readFileSync(file, 'utf8').replace(
                'return round2(dimensions.reduce((sum, d) => sum + d.weight * d.score, 0));',
                'return 10;',
              ),
            );
            return { description: 'make the evaluator kinder' };
          },
        },
      });
      const error = await run.run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isLoopError(error, 'HARNESS_TAMPERED')).toBe(true);
      const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      expect(rows.filter((r) => r.status === 'kept')).toEqual([]);
      expect(rows[0]!.score).toBeLessThan(10);
      expect(git('log', '--format=%s', 'main..HEAD')).toBe('');
      expect(readFileSync(join(ws, 'SKILL.md'), 'utf8')).not.toContain('more');
    },
  );
});

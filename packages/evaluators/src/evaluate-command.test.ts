import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evaluatorInvocation } from './command.js';
import { main } from './evaluate-command.js';

const fixture = (p: string) => fileURLToPath(new URL(`../test/fixtures/${p}`, import.meta.url));

async function run(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(
    argv,
    (s) => void (out += s),
    (s) => void (err += s),
  );
  return { code, out, err };
}

describe('loop-evaluate', () => {
  it('prints one dim.<name> line per dimension and score: <total> last', async () => {
    const r = await run('skill', fixture('skill-vague/SKILL.md'));
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines).toHaveLength(9);
    expect(lines[0]).toMatch(/^dim\.frontmatter: \d/);
    expect(lines.at(-1)).toMatch(/^score: \d+(\.\d+)?$/);
  });

  it('--json prints the per-dimension breakdown (name, weight, score, notes)', async () => {
    const r = await run('memory', fixture('memory-bad'), '--json', '--now', '2026-12-01');
    const e = JSON.parse(r.out) as {
      evaluator: string;
      score: number;
      dimensions: { name: string; weight: number; score: number; notes: string[] }[];
    };
    expect(e.evaluator).toBe('memory');
    expect(e.dimensions.map((d) => d.name)).toEqual(['retrieval', 'signal_noise', 'index']);
    expect(e.dimensions[0]).toMatchObject({ weight: 0.5, score: 5 });
    expect(e.score).toBe(3.25);
  });

  it('an unparseable target exits 2 without a score line; a bad command line exits 1', async () => {
    const bad = await run('skill', fixture('skill-badyaml/SKILL.md'));
    expect(bad).toMatchObject({ code: 2, out: '' });
    expect(bad.err).toMatch(/^error \[TARGET_UNPARSEABLE\]: invalid YAML/);
    expect((await run('nope', 'x')).code).toBe(1);
  });

  it(
    'evaluatorInvocation runs as a real process from this checkout and ' + 'names its own files for the fingerprint',
    () => {
      const { command, harnessFiles } = evaluatorInvocation('skill', fixture('skill-good/SKILL.md'));
      expect(execFileSync('/bin/sh', ['-c', command], { encoding: 'utf8' }).trim().split('\n').at(-1)).toBe(
        'score: 10',
      );
      expect(harnessFiles.some((f) => f.endsWith('/src/skill.ts'))).toBe(true);
      expect(harnessFiles.some((f) => f.includes('minisearch'))).toBe(true);
      expect(
        spawnSync('/bin/sh', ['-c', evaluatorInvocation('skill', fixture('skill-badyaml/SKILL.md')).command]).status,
      ).toBe(2);
    },
  );
});

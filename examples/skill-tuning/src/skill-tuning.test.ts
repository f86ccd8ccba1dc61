import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { evaluateSkill } from '@loop/evaluators';
import { describe, expect, it } from 'vitest';
import { runExample } from './example-run.js';

const EXAMPLE = fileURLToPath(new URL('..', import.meta.url));

describe('examples/skill-tuning', () => {
  it(
    'the scripted agent improves the real changelog SKILL.md end to end: ' +
      'four keeps, the padded intro discarded, every dimension at least as ' +
      'good',
    async () => {
      const run = await runExample(EXAMPLE, ['skill', 'loop.config.yaml', 'scripted-agent.mjs']);
      try {
        expect(run.code, run.output).toBe(0);
        const rows = parseAutoIterateTsv(readFileSync(join(run.dir, 'skill/changelog/results.tsv'), 'utf8'));
        expect(rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'kept', 'reverted', 'kept', 'kept']);
        const before = await evaluateSkill(join(EXAMPLE, 'skill/changelog/SKILL.md'));
        const after = await evaluateSkill(join(run.dir, 'skill/changelog/SKILL.md'));
        expect(rows[0]!.score).toBe(before.score);
        expect(rows.at(-1)!.score).toBe(after.score);
        expect(after.score).toBeGreaterThan(before.score + 1.5);
        for (const d of after.dimensions)
          expect(d.score).toBeGreaterThanOrEqual(before.dimensions.find((b) => b.name === d.name)!.score);
        expect(run.git('log', '--format=%s', 'main..HEAD').split('\n')).toHaveLength(4);
      } finally {
        rmSync(run.dir, { recursive: true, force: true });
      }
    },
  );
});

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evaluateSkillFull, SKILL_FULL_WEIGHTS } from './skill-full.js';

const fixture = (p: string) => fileURLToPath(new URL(`../test/fixtures/${p}`, import.meta.url));
const dims = async (p: string) =>
  Object.fromEntries((await evaluateSkillFull(fixture(p))).dimensions.map((d) => [d.name, d]));

describe('skill-full evaluator', () => {
  it('weights: definition 0.4, code 0.25, conventions 0.15, consistency 0.2', () => {
    expect(Object.values(SKILL_FULL_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
  });

  it('definition is the skill evaluator on SKILL.md; the good folder scores high on every dimension', async () => {
    const d = await dims('full-good');
    for (const name of Object.keys(SKILL_FULL_WEIGHTS)) expect(d[name]!.score).toBeGreaterThanOrEqual(9);
  });

  it('code: a script that does not parse fails its parse and its --help check', async () => {
    const d = await dims('full-bad');
    expect(d.code!.score).toBe(5);
    expect(d.code!.notes.join('\n')).toMatch(/scripts\/count\.mjs does not parse/);
  });

  it('conventions: a stray root file, no shebang and no executable bit each cost a check', async () => {
    const notes = (await dims('full-bad')).conventions!.notes.join('\n');
    expect(notes).toContain('notes.txt at the root is outside the layout');
    expect(notes).toContain('scripts/count.mjs has no shebang');
    expect(notes).toContain('scripts/count.mjs is not executable');
  });

  it(
    'consistency: a named script that is missing, an unnamed script and an ' + 'option --help does not list all fail',
    async () => {
      const d = await dims('full-bad');
      const notes = d.consistency!.notes.join('\n');
      expect(notes).toContain('SKILL.md names scripts/missing.sh, which does not exist');
      expect(notes).toContain('scripts/orphan.sh is never named in SKILL.md');
      expect(notes).toMatch(/uses --lines, which scripts\/count\.mjs --help does not list/);
      expect(d.consistency!.score).toBeLessThan(5);
      expect((await dims('full-good')).consistency!.notes.at(-1)).toBe('5/5 consistency checks pass');
    },
  );

  it('is deterministic, and a folder without SKILL.md is TARGET_UNPARSEABLE', async () => {
    expect(await evaluateSkillFull(fixture('full-bad'))).toEqual(await evaluateSkillFull(fixture('full-bad')));
    await expect(evaluateSkillFull(fixture('memory-good'))).rejects.toMatchObject({ code: 'TARGET_UNPARSEABLE' });
  });
});

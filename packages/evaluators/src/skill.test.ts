import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SKILL_WEIGHTS, evaluateSkill, evaluateSkillText } from './skill.js';
import { createTriggerMatcher, findTriggerExamples } from './skill-triggers.js';

const fixture = (p: string) => fileURLToPath(new URL(`../test/fixtures/${p}`, import.meta.url));
const good = readFileSync(fixture('skill-good/SKILL.md'), 'utf8');
const vague = readFileSync(fixture('skill-vague/SKILL.md'), 'utf8');
const dim = (text: string, name: string) => evaluateSkillText(text).dimensions.find((d) => d.name === name)!;

describe('skill evaluator: eight published dimensions', () => {
  it('the weights of the eight dimensions sum to 1 and the total is their weighted sum', () => {
    expect(Object.keys(SKILL_WEIGHTS)).toHaveLength(8);
    expect(Object.values(SKILL_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
    const e = evaluateSkillText(vague);
    expect(e.score).toBeCloseTo(
      e.dimensions.reduce((s, d) => s + d.weight * d.score, 0),
      1,
    );
  });

  it.each(Object.keys(SKILL_WEIGHTS))('%s: the good skill scores high, the vague one low', (name) => {
    expect(dim(good, name).score).toBeGreaterThanOrEqual(9);
    expect(dim(vague, name).score).toBeLessThanOrEqual(5);
  });

  it('frontmatter: name must be kebab-case, description 40-1024 characters, triggers a list', () => {
    expect(dim(vague, 'frontmatter').notes.join(' ')).toMatch(/not kebab-case.*17 characters.*triggers missing/);
    expect(dim('# no frontmatter\n', 'frontmatter').score).toBe(0);
  });

  it('trigger_quality: the lexical matcher must fire on every positive example and on no negative one', () => {
    const broken = good.replace(
      'Should not trigger: write a new feature',
      'Should not trigger: review pull request drafts',
    );
    expect(dim(broken, 'trigger_quality').score).toBeLessThan(dim(good, 'trigger_quality').score);
    expect(dim(broken, 'trigger_quality').notes).toContain('fires on negative "review pull request drafts"');
  });

  it('trigger examples come from labelled lines (inline lists or bullets) in English and Chinese', () => {
    expect(
      findTriggerExamples(
        '- 正例（should trigger）：/iterate skill ./SKILL.md、「帮我迭代改进这个 skill」\n- 负例：一次性编辑、普通代码 review',
      ),
    ).toEqual({
      positive: ['/iterate skill ./SKILL.md', '帮我迭代改进这个 skill'],
      negative: ['一次性编辑', '普通代码 review'],
    });
    expect(findTriggerExamples('Should trigger:\n- tune my skill\n- iterate on SKILL.md\n\nnext')).toEqual({
      positive: ['tune my skill', 'iterate on SKILL.md'],
      negative: [],
    });
    const fires = createTriggerMatcher('Iteratively improve a skill file. Not for one-off edits.', ['自动迭代']);
    expect(fires('请自动迭代这个文件')).toBe(true);
    expect(fires('improve skill file quality')).toBe(true);
    expect(fires('one-off edits please')).toBe(false);
  });

  it('workflow: numbered steps under a workflow heading; none scores 0', () => {
    expect(dim(good, 'workflow').notes[0]).toBe('4 numbered steps');
    expect(dim('## Workflow\n\nDo it.\n', 'workflow').score).toBe(2);
  });

  it('constraints: CANNOT/NEVER lines weigh most; CAN alone is not enough', () => {
    expect(dim('## Constraints\n- CAN read files\n', 'constraints').score).toBe(5);
    expect(dim('## Constraints\n- CAN read files\n- CANNOT write\n- NEVER push\n', 'constraints').score).toBe(10);
  });

  it('io_spec: input and output are five points each', () => {
    expect(dim('- Input: a path\n', 'io_spec').score).toBe(5);
    expect(dim('## Input\nx\n## Output\ny\n', 'io_spec').score).toBe(10);
  });

  it('examples: a heading and two code blocks', () => {
    expect(dim('## Examples\n\n```\na\n```\n', 'examples').score).toBe(7);
  });

  it('clarity: each vague word costs one point; words in code are not counted', () => {
    expect(dim('Handle things properly, etc.\n', 'clarity').score).toBe(7);
    expect(dim('```\nthings properly etc\n```\n', 'clarity').score).toBe(10);
  });

  it('size: over 500 lines loses points in proportion; under 80 words too', () => {
    expect(dim(`${good}\n${'- line\n'.repeat(700)}`, 'size').score).toBeLessThan(7);
    expect(dim('one two three\n', 'size').score).toBeLessThan(1);
  });

  it('is deterministic: the same text gets the same evaluation', async () => {
    expect(await evaluateSkill(fixture('skill-good/SKILL.md'))).toEqual(
      await evaluateSkill(fixture('skill-good/SKILL.md')),
    );
  });

  it('invalid YAML frontmatter is TARGET_UNPARSEABLE (seed 001: a crash row)', async () => {
    await expect(evaluateSkill(fixture('skill-badyaml/SKILL.md'))).rejects.toMatchObject({
      code: 'TARGET_UNPARSEABLE',
      message: expect.stringContaining('invalid YAML frontmatter'),
    });
    expect(() => evaluateSkillText('---\nname: x\n')).toThrow(/never closed/);
  });
});

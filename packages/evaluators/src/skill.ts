import { readFile } from 'node:fs/promises';
import {
  dimension,
  UnparseableTargetError,
  weightedTotal,
  type DimensionScore,
  type Evaluation,
} from './evaluation.js';
import { parseFrontmatter } from './frontmatter.js';
import { createTriggerMatcher, findTriggerExamples } from './skill-triggers.js';
import { codeBlocks, headings, proseLines, wordCount } from './text.js';

/**
 * The eight dimensions of the skill evaluator and their published weights (they sum to 1). The
 * frontmatter and the trigger examples weigh most (0.35 together) because the description is all
 * an agent reads before it decides to load a skill; the workflow and the constraints are what it
 * follows once loaded; input/output and examples make it checkable; vague words and size keep it
 * cheap to read. docs/auto-iterate.md explains each.
 */
export const SKILL_WEIGHTS = {
  frontmatter: 0.15,
  trigger_quality: 0.2,
  workflow: 0.15,
  constraints: 0.15,
  io_spec: 0.1,
  examples: 0.1,
  clarity: 0.1,
  size: 0.05,
} as const;

/** A dimension's name. */
export type SkillDimension = keyof typeof SKILL_WEIGHTS;

/**
 * The vague words the `clarity` dimension counts (case-insensitive, whole words in prose, not in
 * code blocks): each occurrence costs one point.
 */
export const VAGUE_WORDS: readonly string[] = [
  'etc',
  'and so on',
  'various',
  'some',
  'somehow',
  'something',
  'maybe',
  'perhaps',
  'probably',
  'possibly',
  'appropriate',
  'appropriately',
  'as needed',
  'if necessary',
  'properly',
  'correctly',
  'reasonable',
  'reasonably',
  'good',
  'nice',
  'stuff',
  'things',
  'try to',
  'kind of',
  'sort of',
  'usually',
  'generally',
  'often',
  'a lot',
  '等等',
  '适当',
  '尽量',
  '可能',
  '一些',
  '大概',
  '相关',
  '合理',
  '酌情',
  '之类',
];

/** The size budget of a SKILL.md: lines and words (an agent loads the whole file). */
export const SKILL_SIZE_BUDGET = { maxLines: 500, maxWords: 5000, minWords: 80 } as const;

const has = (hs: readonly { text: string }[], re: RegExp) => hs.some((h) => re.test(h.text));

function frontmatterDim(data: Record<string, unknown> | undefined): DimensionScore {
  const notes: string[] = [];
  if (!data)
    return dimension('frontmatter', SKILL_WEIGHTS.frontmatter, 0, [
      'no YAML frontmatter (--- name, description, triggers ---)',
    ]);
  let s = 0;
  const name = data.name;
  if (typeof name === 'string' && /^[a-z0-9][a-z0-9-]{0,63}$/.test(name)) s += 3;
  else
    notes.push(typeof name === 'string' ? `name "${name}" is not kebab-case of at most 64 characters` : 'name missing');
  const description = data.description;
  if (typeof description === 'string' && description.trim().length > 0) {
    s += 2;
    const n = description.trim().length;
    if (n >= 40 && n <= 1024) s += 2;
    else notes.push(`description is ${n} characters (40-1024 wanted)`);
  } else notes.push('description missing');
  const triggers = data.triggers;
  if (Array.isArray(triggers) && triggers.length > 0 && triggers.every((t) => typeof t === 'string' && t.trim() !== ''))
    s += 3;
  else notes.push('triggers missing (a list of phrases that should load the skill)');
  if (notes.length === 0) notes.push('name, description and triggers present');
  return dimension('frontmatter', SKILL_WEIGHTS.frontmatter, s, notes);
}

function triggerDim(data: Record<string, unknown> | undefined, body: string): DimensionScore {
  const { positive, negative } = findTriggerExamples(body);
  const notes: string[] = [];
  let s = positive.length >= 2 ? 2 : positive.length;
  if (positive.length < 2) notes.push(`${positive.length} positive trigger examples (2+ wanted)`);
  s += negative.length >= 1 ? 2 : 0;
  if (negative.length === 0) notes.push('no negative trigger examples ("should not trigger: ...")');
  const description = typeof data?.description === 'string' ? data.description : '';
  const triggers = Array.isArray(data?.triggers)
    ? (data.triggers as unknown[]).filter((t): t is string => typeof t === 'string')
    : [];
  const fires = createTriggerMatcher(description, triggers);
  const wrong = [
    ...positive.filter((p) => !fires(p)).map((p) => `does not fire on positive "${p}"`),
    ...negative.filter((n) => fires(n)).map((n) => `fires on negative "${n}"`),
  ];
  const total = positive.length + negative.length;
  if (total > 0) s += (6 * (total - wrong.length)) / total;
  notes.push(...wrong, `${total - wrong.length}/${total} examples classified right by the description and triggers`);
  return dimension('trigger_quality', SKILL_WEIGHTS.trigger_quality, s, notes);
}

function workflowDim(body: string): DimensionScore {
  const steps = proseLines(body).filter((l) => /^\s*\d+[.)、]\s*\S/.test(l)).length;
  const heading = has(headings(body), /workflow|steps?|process|procedure|setup|the loop|流程|步骤/i);
  const stepScore = steps === 0 ? 0 : steps === 1 ? 3 : steps === 2 ? 5 : steps <= 15 ? 8 : 6;
  const notes = [
    `${steps} numbered steps${steps > 15 ? ' (over 15: split the workflow)' : steps < 3 ? ' (3+ wanted)' : ''}`,
    heading ? 'a workflow heading' : 'no workflow/steps heading',
  ];
  return dimension('workflow', SKILL_WEIGHTS.workflow, stepScore + (heading ? 2 : 0), notes);
}

function constraintsDim(body: string): DimensionScore {
  const prose = proseLines(body);
  const cannot = prose.filter((l) =>
    /\b(CANNOT|CAN'T|MUST NOT|NEVER|DO NOT|DON'T)\b|不可|禁止|不得|不要/.test(l),
  ).length;
  const can = prose.filter((l) =>
    /\b(CAN|MUST|ALWAYS|MAY)\b|可以|必须/.test(l.replace(/\b(CANNOT|CAN'T|MUST NOT)\b/g, '')),
  ).length;
  const heading = has(headings(body), /constraints?|rules|boundar|limits|guardrails|约束|限制|规则/i);
  const notes = [
    `${can} CAN/MUST lines, ${cannot} CANNOT/NEVER lines`,
    heading ? 'a constraints heading' : 'no constraints heading',
  ];
  return dimension(
    'constraints',
    SKILL_WEIGHTS.constraints,
    (heading ? 2 : 0) + (can > 0 ? 3 : 0) + Math.min(cannot, 2) * 2.5,
    notes,
  );
}

function ioDim(body: string): DimensionScore {
  const hs = headings(body);
  const prose = proseLines(body).join('\n');
  const input =
    has(hs, /\binputs?\b|arguments|parameters|usage|输入|参数/i) ||
    /\*\*inputs?\*\*|^\s*[-*•]?\s*inputs?\s*[:：]|输入\s*[:：]/im.test(prose);
  const output =
    has(hs, /\boutputs?\b|returns|results?|输出|产出/i) ||
    /\*\*outputs?\*\*|^\s*[-*•]?\s*outputs?\s*[:：]|输出\s*[:：]/im.test(prose);
  return dimension('io_spec', SKILL_WEIGHTS.io_spec, (input ? 5 : 0) + (output ? 5 : 0), [
    input ? 'input specified' : 'no input specification',
    output ? 'output specified' : 'no output specification',
  ]);
}

function examplesDim(body: string): DimensionScore {
  const heading = has(headings(body), /examples?|sample|示例|例子|样例/i);
  const blocks = codeBlocks(body).filter((b) => b.trim().length > 0).length;
  const notes = [heading ? 'an examples heading' : 'no examples heading', `${blocks} code blocks`];
  return dimension(
    'examples',
    SKILL_WEIGHTS.examples,
    (heading ? 3 : 0) + (blocks >= 1 ? 4 : 0) + (blocks >= 2 ? 3 : 0),
    notes,
  );
}

/** Occurrences of each {@link VAGUE_WORDS} entry in the prose of `body`. */
export function vagueHits(body: string): Map<string, number> {
  const prose = proseLines(body)
    .join('\n')
    .replace(/`[^`\n]*`/g, ' ')
    .toLowerCase();
  const hits = new Map<string, number>();
  for (const w of VAGUE_WORDS) {
    const re = /^[a-z ]+$/.test(w) ? new RegExp(`\\b${w.replace(/ /g, '\\s+')}\\b`, 'g') : new RegExp(w, 'g');
    const n = prose.match(re)?.length ?? 0;
    if (n > 0) hits.set(w, n);
  }
  return hits;
}

function clarityDim(body: string): DimensionScore {
  const hits = vagueHits(body);
  const total = [...hits.values()].reduce((a, b) => a + b, 0);
  const notes =
    total === 0 ? ['no vague words'] : [`${total} vague words: ${[...hits].map(([w, n]) => `${w} ×${n}`).join(', ')}`];
  return dimension('clarity', SKILL_WEIGHTS.clarity, 10 - total, notes);
}

function sizeDim(text: string): DimensionScore {
  const lines = text.split(/\r?\n/).length;
  const words = wordCount(text);
  const { maxLines, maxWords, minWords } = SKILL_SIZE_BUDGET;
  let s = 10;
  const notes = [
    `${lines} lines, ${words} words (budget ${maxLines} lines, ${maxWords} words, at least ${minWords} words)`,
  ];
  if (lines > maxLines) s -= (10 * (lines - maxLines)) / maxLines;
  if (words > maxWords) s -= (10 * (words - maxWords)) / maxWords;
  if (words < minWords) s = (10 * words) / minWords;
  return dimension('size', SKILL_WEIGHTS.size, s, notes);
}

/**
 * Scores the text of a SKILL.md on the eight {@link SKILL_WEIGHTS} dimensions, each 0-10, and
 * their weighted total (0-10). Pure and deterministic: the same text always gets the same scores.
 *
 * @throws {UnparseableTargetError} `TARGET_UNPARSEABLE` for an unclosed or invalid YAML frontmatter.
 */
export function evaluateSkillText(text: string, target = 'SKILL.md'): Evaluation {
  const { data, body } = parseFrontmatter(text);
  const dimensions = [
    frontmatterDim(data),
    triggerDim(data, body),
    workflowDim(body),
    constraintsDim(body),
    ioDim(body),
    examplesDim(body),
    clarityDim(body),
    sizeDim(text),
  ];
  return { evaluator: 'skill', target, score: weightedTotal(dimensions), dimensions };
}

/**
 * Reads and scores a SKILL.md file (see {@link evaluateSkillText}).
 *
 * @throws {UnparseableTargetError} `TARGET_UNPARSEABLE` when the file cannot be read or parsed.
 */
export async function evaluateSkill(path: string): Promise<Evaluation> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UnparseableTargetError(`cannot read ${path}: ${error.code ?? error.message}`);
  });
  return evaluateSkillText(text, path);
}

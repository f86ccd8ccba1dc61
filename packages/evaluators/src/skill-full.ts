import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  dimension,
  round2,
  RUN_FILE_NAMES,
  UnparseableTargetError,
  weightedTotal,
  type DimensionScore,
  type Evaluation,
} from './evaluation.js';
import { checkScript, type ScriptCheck } from './script-check.js';
import { evaluateSkillText } from './skill.js';
import { codeBlocks } from './text.js';

/** The four dimensions of the skill-full evaluator and their weights (they sum to 1). */
export const SKILL_FULL_WEIGHTS = { definition: 0.4, code: 0.25, conventions: 0.15, consistency: 0.2 } as const;

/** Entries a skill folder may hold at its root (besides its scripts folder and the run's files). */
export const SKILL_LAYOUT: ReadonlySet<string> = new Set([
  'SKILL.md',
  'README.md',
  'LICENSE',
  'LICENSE.md',
  'LICENSE.txt',
  'scripts',
  'references',
  'assets',
  'templates',
  'examples',
  'tests',
]);

const SCRIPT_EXT = /\.(py|sh|bash|js|mjs|cjs)$/;

/** Options of {@link evaluateSkillFull}. */
export interface SkillFullOptions {
  /** Hard timeout of one script's `--help` in ms. @default 5000 */
  helpTimeoutMs?: number;
}

async function listScripts(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const e of (await readdir(join(dir, rel), { withFileTypes: true }).catch(() => [])).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      if (e.name.startsWith('.') || e.name === '__pycache__' || e.name === 'node_modules') continue;
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(path);
      else if (e.isFile()) out.push(path);
    }
  };
  await walk('scripts');
  for (const e of await readdir(dir, { withFileTypes: true }))
    if (e.isFile() && SCRIPT_EXT.test(e.name)) out.push(e.name);
  return out;
}

function codeDim(checks: readonly ScriptCheck[]): DimensionScore {
  if (checks.length === 0) return dimension('code', SKILL_FULL_WEIGHTS.code, 10, ['no scripts']);
  let passed = 0;
  let total = 0;
  const notes: string[] = [];
  for (const c of checks) {
    if (c.parses !== undefined) {
      total++;
      if (c.parses) passed++;
      else notes.push(`${c.path} does not parse: ${c.parseError}`);
    }
    total++;
    if (c.helpOk) passed++;
    else notes.push(`${c.path} --help failed: ${c.helpError}`);
  }
  notes.push(`${passed}/${total} parse and --help checks pass`);
  return dimension('code', SKILL_FULL_WEIGHTS.code, (10 * passed) / total, notes);
}

async function conventionsDim(dir: string, scripts: readonly string[], hasSkillMd: boolean): Promise<DimensionScore> {
  const notes: string[] = [];
  let passed = 0;
  let total = 1;
  if (hasSkillMd) passed++;
  else notes.push('no SKILL.md at the root (skill.md is read, SKILL.md is the convention)');
  for (const name of (await readdir(dir)).sort()) {
    if (name.startsWith('.') || RUN_FILE_NAMES.has(name) || SKILL_LAYOUT.has(name)) continue;
    total++;
    notes.push(`${name} at the root is outside the layout (SKILL.md, scripts/, references/, assets/, ...)`);
  }
  for (const s of scripts) {
    total += 3;
    if (s.startsWith('scripts/')) passed++;
    else notes.push(`${s} is not under scripts/`);
    const text = await readFile(join(dir, s), 'utf8').catch(() => '');
    if (text.startsWith('#!')) passed++;
    else notes.push(`${s} has no shebang`);
    if (((await stat(join(dir, s))).mode & 0o111) !== 0) passed++;
    else notes.push(`${s} is not executable`);
  }
  notes.push(`${passed}/${total} layout checks pass`);
  return dimension('conventions', SKILL_FULL_WEIGHTS.conventions, (10 * passed) / total, notes);
}

function consistencyDim(skillText: string, scripts: readonly string[], checks: readonly ScriptCheck[]): DimensionScore {
  const notes: string[] = [];
  let passed = 0;
  let total = 0;
  const named = new Set([...skillText.matchAll(/(?:^|[\s`'"(/])(scripts\/[\w./-]*\w)/g)].map((m) => m[1]!));
  for (const n of [...named].sort()) {
    total++;
    if (scripts.includes(n)) passed++;
    else notes.push(`SKILL.md names ${n}, which does not exist`);
  }
  for (const s of scripts) {
    total++;
    if (named.has(s) || skillText.includes(basename(s))) passed++;
    else notes.push(`${s} is never named in SKILL.md`);
  }
  for (const block of codeBlocks(skillText)) {
    for (const line of block.split('\n')) {
      const script = scripts.find(
        (s) => line.includes(s) || new RegExp(`(^|[\\s/])${basename(s).replace(/\./g, '\\.')}(\\s|$)`).test(line),
      );
      if (!script) continue;
      const help = checks.find((c) => c.path === script)?.helpText ?? '';
      for (const opt of new Set(line.match(/(?<=\s)--?[A-Za-z][\w-]*/g) ?? [])) {
        total++;
        if (new RegExp(`(^|[\\s,\\[|])${opt.replace(/-/g, '\\-')}(?![\\w-])`).test(help)) passed++;
        else notes.push(`the example "${line.trim()}" uses ${opt}, which ${script} --help does not list`);
      }
    }
  }
  if (total === 0)
    return dimension('consistency', SKILL_FULL_WEIGHTS.consistency, 10, ['no scripts named and none present']);
  notes.push(`${passed}/${total} consistency checks pass`);
  return dimension('consistency', SKILL_FULL_WEIGHTS.consistency, (10 * passed) / total, notes);
}

/**
 * Scores a whole skill folder: `definition` is the skill evaluator's total on its SKILL.md;
 * `code`: each script parses (`node --check`, `bash -n`, Python's `ast.parse`) and its `--help`
 * exits 0 within the timeout; `conventions`: SKILL.md at the root, nothing outside the layout,
 * scripts under `scripts/` with a shebang and the executable bit; `consistency`: every
 * `scripts/...` path SKILL.md names exists, every script is named, and every option an example
 * command passes to a script appears in that script's `--help`. Deterministic as long as the
 * scripts' `--help` output is.
 *
 * @throws {UnparseableTargetError} `TARGET_UNPARSEABLE` when `dir` is not a folder, has no SKILL.md
 *   (or skill.md), or its frontmatter is invalid YAML.
 */
export async function evaluateSkillFull(dir: string, options: SkillFullOptions = {}): Promise<Evaluation> {
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    throw new UnparseableTargetError(`cannot read the skill folder ${dir}: ${error.code ?? error.message}`);
  });
  const skillName = entries.includes('SKILL.md') ? 'SKILL.md' : entries.includes('skill.md') ? 'skill.md' : undefined;
  if (!skillName) throw new UnparseableTargetError(`${dir} has no SKILL.md`);
  const skillText = await readFile(join(dir, skillName), 'utf8');
  const definition = evaluateSkillText(skillText, join(dir, skillName));
  const scripts = await listScripts(dir);
  const checks: ScriptCheck[] = [];
  for (const s of scripts) checks.push(await checkScript(dir, s, options.helpTimeoutMs ?? 5000));
  const dimensions = [
    dimension(
      'definition',
      SKILL_FULL_WEIGHTS.definition,
      definition.score,
      definition.dimensions.filter((d) => d.score < 10).map((d) => `${d.name} ${d.score}: ${d.notes[0] ?? ''}`),
    ),
    codeDim(checks),
    await conventionsDim(dir, scripts, skillName === 'SKILL.md'),
    consistencyDim(skillText, scripts, checks),
  ];
  return { evaluator: 'skill-full', target: dir, score: round2(weightedTotal(dimensions)), dimensions };
}

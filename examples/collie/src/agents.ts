// Scripted agents for the example: no language model, but each one does its job on the real
// repository. The observer parses the real trigger log, triage reasons over the observations,
// deep verify reproduces each failure in the run's worktree before writing a FIX record, and the
// flow pipeline's sub-agents (tdd, implement, review, simplify, final review) read the FIX record
// and the working copy named in their prompt and really edit or inspect it. The only scripted
// knowledge is FIXES below: what a maintainer would know about each function's bug.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createScriptedAgent, type AgentRequest, type FixRecord, type ScriptedAgent } from '@loop/collie';
import { DEFAULT_TEST_FILE, parseFixRecord } from '@loop/collie/rules';

/**
 * What the scripted maintainer knows about each buggy function: the buggy expression `from` and
 * the fix `to`. `draft`, when set, is the implementer's first attempt: it fixes the failing check
 * but has a flaw the reviewer catches, so that FIX goes through a changes_requested review round.
 */
export const FIXES: Record<
  string,
  { root_cause: string; fix_outline: string; from: string; to: string; draft?: string }
> = {
  mean: {
    root_cause: 'mean() divides the sum by xs.length - 1 (the sample-variance denominator) instead of xs.length',
    fix_outline: 'mean: divide by xs.length in src/stats.js',
    from: 's / (xs.length - 1)',
    to: 's / xs.length',
  },
  median: {
    root_cause: 'median() sorts with the default comparator, which orders numbers as strings (10 before 9)',
    fix_outline: 'median: sort numerically with (a, b) => a - b in src/stats.js',
    from: '[...xs].sort()',
    to: '[...xs].sort((a, b) => a - b)',
    draft: 'xs.sort((a, b) => a - b)',
  },
};

/** Stage 3 observer: one ISSUE per FAIL line of the real log, a severity-1 ISSUE per WARN line. */
export function observe(r: AgentRequest): string {
  const log = r.inputs['raw.log (last 200 lines)'] ?? '';
  const sections: string[] = [];
  for (const line of log.split('\n')) {
    if (!line.startsWith('FAIL ') && !line.startsWith('WARN ')) continue;
    const n = String(sections.length + 1).padStart(3, '0');
    sections.push(
      [
        `## ISSUE-${n}`,
        `title: ${JSON.stringify(line.replace(/^(FAIL|WARN) /, ''))}`,
        `evidence: ${JSON.stringify(line)}`,
        `severity: ${line.startsWith('FAIL') ? 3 : 1}`,
        `first_seen_ts: "${n}"`,
        'blocking: false',
      ].join('\n'),
    );
  }
  return sections.length > 0 ? sections.join('\n\n') : 'NO ISSUES';
}

/**
 * Stage 4a triage: a wrong result is Real; a second failure of the same function is a duplicate; timing noise is
 * Discarded.
 */
export function triage(r: AgentRequest): string {
  const obs = r.inputs['observations.md'] ?? '';
  const seen = new Set<string>();
  const out: string[] = [];
  for (const [, id, body] of obs.matchAll(/^## (ISSUE-\d+)\n([\s\S]*?)(?=^## |(?![\s\S]))/gm)) {
    const title = /- title: (".*")/.exec(body ?? '')?.[1];
    const text = title ? (JSON.parse(title) as string) : '';
    const fn = /^(\w+)\(/.exec(text)?.[1];
    let verdict = 'Discarded';
    let confidence = 5;
    let rationale = 'timing line of the scorecard itself, not a behaviour of the library';
    if (fn && !seen.has(fn)) {
      seen.add(fn);
      verdict = 'Real';
      confidence = 4;
      rationale =
        `tried to explain "${text}" by a wrong expectation; the expected value ` +
        `is the textbook one, so the result is wrong`;
    } else if (fn) {
      rationale = `duplicate: another failure of ${fn}() is already triaged as Real`;
    }
    out.push(`## ${id}\nverdict: ${verdict}\nconfidence: ${confidence}\nrationale: ${JSON.stringify(rationale)}`);
  }
  return out.join('\n\n');
}

/** Stage 4b deep verify: reproduces the failure in the worktree (falsification attempt) before writing the FIX. */
export function deepVerify(worktree: () => string) {
  return (r: AgentRequest): string => {
    const fixId = /^id: (FIX-\d+)$/m.exec(r.prompt)![1]!;
    const obs = Object.entries(r.inputs).find(([k]) => k.startsWith('observations.md'))?.[1] ?? '';
    const text = JSON.parse(/- title: (".*")/.exec(obs)![1]!) as string;
    const m = /^(\w+)\((.*)\): expected (.+), got (.+)$/.exec(text);
    if (!m) throw new Error(`deep verify cannot read ${text}`);
    const [, fn, args, expected] = m as unknown as [string, string, string, string];
    const src = `import * as s from './src/stats.js'; console.log(JSON.stringify(s.${fn}(${args})));`;
    const actual = execFileSync(process.execPath, ['--input-type=module', '-e', src], {
      cwd: worktree(),
      encoding: 'utf8',
    }).trim();
    const falsified = actual === expected;
    const known = FIXES[fn!];
    const reproTest = `test/repro-${fixId}.test.js`;
    // JSON is YAML: the record parses with collie's parseFixRecord.
    return JSON.stringify(
      {
        id: fixId,
        kind: 'correctness',
        severity: 3,
        fix_confidence: falsified || !known ? 1 : 4,
        root_cause: known?.root_cause ?? '',
        reproduction_test: [
          `// ${fixId}: ${text}`,
          `import assert from 'node:assert/strict';`,
          `import { test } from 'node:test';`,
          `import { ${fn} } from '../src/stats.js';`,
          '',
          `test(${JSON.stringify(`${fn}(${args}) is ${expected}`)}, () => {`,
          `  assert.deepEqual(${fn}(${args}), ${expected}); // ${actual} before the fix`,
          '});',
          '',
        ].join('\n'),
        fix_outline: known?.fix_outline ?? '',
        why_root_cause: falsified
          ? `could not reproduce: ${fn}(${args}) = ${actual}`
          : `reproduced in the worktree: ${fn}(${args}) = ${actual}, expected ${expected}`,
        dependencies: [],
        uncertainty_tag: 'none',
        key_files: ['src/stats.js', reproTest],
      },
      null,
      2,
    );
  };
}

// ── Stage 5.1 flow pipeline sub-agents ───────────────────────────────────────────────────────
// Each reads what a real sub-agent gets: the working copy named in its prompt ("... in the working
// copy at <path>. You are a fresh agent ...") and the inputs (FIX-nnn.yaml, changed-files.md,
// review-comments.md, regression.md).

/** The working copy named in a flow prompt. */
export function worktreeOf(r: AgentRequest): string {
  const m = /in the working copy at (.+?)\. You are a fresh agent/.exec(r.prompt);
  if (!m) throw new Error(`${r.role}: the prompt names no working copy`);
  return m[1]!;
}

/** The FIX record a flow step works on (input `FIX-nnn.yaml`). */
export function fixOf(r: AgentRequest): FixRecord {
  const key = Object.keys(r.inputs).find((k) => /^FIX-\d+\.yaml$/.test(k));
  if (!key) throw new Error(`${r.role}: no FIX record among the inputs`);
  return parseFixRecord(r.inputs[key]!);
}

const knownFix = (fix: FixRecord) => {
  const fn = /^(\w+):/.exec(fix.fix_outline)?.[1] ?? '';
  const known = FIXES[fn];
  if (!known) throw new Error(`no scripted knowledge for ${fix.id} (${fix.fix_outline})`);
  return { fn, known };
};

/** flow-tdd: writes the FIX's reproduction_test as the new test file among its key files. */
export function flowTdd(r: AgentRequest): string {
  const wt = worktreeOf(r);
  const fix = fixOf(r);
  const file = fix.key_files.find((f) => DEFAULT_TEST_FILE.test(f) && !existsSync(join(wt, f)));
  if (!file) throw new Error(`${fix.id}: no new test file among the key files ${fix.key_files.join(', ')}`);
  mkdirSync(dirname(join(wt, file)), { recursive: true });
  writeFileSync(join(wt, file), fix.reproduction_test);
  return `${file}`;
}

/**
 * flow-implement: patches src/stats.js. The first attempt is the maintainer's `draft` when there is
 * one; with review comments (or a regression log) it writes the final fix `to`.
 */
export function flowImplement(r: AgentRequest): string {
  const wt = worktreeOf(r);
  const { fn, known } = knownFix(fixOf(r));
  const file = join(wt, 'src', 'stats.js');
  const src = readFileSync(file, 'utf8');
  const feedback = r.inputs['review-comments.md'] ?? r.inputs['regression-log.md'];
  const target = feedback === undefined && known.draft ? known.draft : known.to;
  const current = [known.from, known.draft, known.to].find((x) => x !== undefined && src.includes(x));
  if (current === undefined) throw new Error(`src/stats.js contains none of the known forms of ${fn}()`);
  if (current === target) return `src/stats.js: ${fn}() already has ${target}, nothing to change`;
  writeFileSync(file, src.replace(current, target));
  return (
    `src/stats.js: ${fn}(): ${current} ` +
    `→ ${target}${feedback === undefined ? '' : ' (addressing the review comments)'}`
  );
}

/** Runs `expr` against the worktree's src/stats.js (`s` is the module) and returns its JSON output. */
function probe(wt: string, expr: string): unknown {
  const src = `import * as s from './src/stats.js'; console.log(JSON.stringify(${expr}));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', src], { cwd: wt, encoding: 'utf8' }));
}

/** The `path (status)` entries of a changed-files.md input. */
const changedList = (changed: string) =>
  [...changed.matchAll(/^### (\S+) \((\w+)[,)]/gm)].map((m) => `${m[1]} (${m[2]})`);

/** What the reviewers find wrong with the change of `fix` in the working copy (empty = nothing). */
function findings(wt: string, fix: FixRecord, changed: string): string[] {
  const { fn, known } = knownFix(fix);
  const out: string[] = [];
  if (changed.includes(known.from)) out.push(`src/stats.js still contains the root cause \`${known.from}\``);
  // The function must not modify its argument: call it on a list and compare the list afterwards.
  const arg = [10, 9, 1];
  const after = probe(wt, `(() => { const a = ${JSON.stringify(arg)}; s.${fn}(a); return a; })()`);
  if (JSON.stringify(after) !== JSON.stringify(arg)) {
    const sortHint = /\bxs\.sort\(/.test(changed)
      ? '; `xs.sort(...)` sorts in place, sort a copy (`[...xs].sort(...)`)'
      : '';
    out.push(
      `${fn}() now modifies its argument: after ${fn}(${JSON.stringify(arg)}) ` +
        (`the caller's list is ` + `${JSON.stringify(after)}${sortHint}`),
    );
  }
  const files = changedList(changed);
  for (const t of fix.key_files.filter((f) => DEFAULT_TEST_FILE.test(f)))
    if (!files.includes(`${t} (added)`)) out.push(`the reproduction test ${t} is not among the added files`);
  for (const f of files)
    if (!fix.key_files.includes(f.replace(/ \(\w+\)$/, ''))) out.push(`${f} is outside the key files of ${fix.id}`);
  return out;
}

/** flow-review: reads the changed files, checks the root cause is gone and the function has no new side effect. */
export function flowReview(r: AgentRequest): string {
  const fix = fixOf(r);
  const problems = findings(worktreeOf(r), fix, r.inputs['changed-files.md'] ?? '');
  if (problems.length > 0)
    return [`Review of ${fix.id}:`, ...problems.map((p) => `- ${p}`), '', 'verdict: changes_requested'].join('\n');
  return [
    `Review of ${fix.id}: the root cause is gone, ${knownFix(fix).fn}() ` +
      `leaves its argument alone, changed ` +
      `files ${changedList(r.inputs['changed-files.md'] ?? '').join(', ')}: all ` +
      `key files.`,
    '',
    'verdict: approve',
  ].join('\n');
}

/** flow-simplify: the fixes are one expression each; nothing to simplify (it says what it looked at). */
export function flowSimplify(r: AgentRequest): string {
  return (
    `nothing: the change (${changedList(r.inputs['changed-files.md'] ?? '').join(', ') || 'no file'}) ` +
    `is one expression plus its test`
  );
}

/** flow-final-review (deep tier): the regression log must be green and the reviewers' checks must hold. */
export function flowFinalReview(r: AgentRequest): string {
  const fix = fixOf(r);
  const regression = r.inputs['regression.md'] ?? '';
  const problems = findings(worktreeOf(r), fix, r.inputs['changed-files.md'] ?? '');
  if (!/^result: exit 0$/m.test(regression) || !/^# fail 0$/m.test(regression))
    problems.push('the regression log is not green');
  if (problems.length > 0)
    return [`Final review of ${fix.id}:`, ...problems.map((p) => `- ${p}`), '', 'verdict: changes_requested'].join(
      '\n',
    );
  const command = /^command: (.*)$/m.exec(regression)?.[1] ?? '?';
  const pass = /^# pass (\d+)$/m.exec(regression)?.[1] ?? '?';
  return [
    `Final review of ${fix.id}: root cause fixed, minimal change, the last ` +
      `regression command is green (\`${command}\`: ${pass} passing).`,
    '',
    'verdict: approve',
  ].join('\n');
}

/** The scripted agents (discovery ranks the one trigger the project has). */
export function scriptedAgents(worktree: () => string): ScriptedAgent {
  return createScriptedAgent(
    {
      discovery: [
        '1. node scripts/scorecard.js (shell, 5): evaluates every check of test/checks.js; scalar = passed checks',
      ],
      observe: [observe],
      triage: [triage],
      'deep-verify': [deepVerify(worktree)],
      'flow-tdd': [flowTdd],
      'flow-implement': [flowImplement],
      'flow-review': [flowReview],
      'flow-simplify': [flowSimplify],
      'flow-final-review': [flowFinalReview],
    },
    { repeatLast: true },
  );
}

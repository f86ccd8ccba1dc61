// Scripted agents for the example: no language model, but each one does its job on the real
// repository. The observer parses the real trigger log, triage reasons over the observations,
// deep verify reproduces each failure in the run's worktree before writing a FIX record, and the
// flow executor patches the real source. The only scripted knowledge is FIXES below: what a
// maintainer would know about each function's bug.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedAgent, type AgentRequest, type FlowExecutor, type ScriptedAgent } from '@loop/collie';

/** What the scripted maintainer knows about each buggy function. */
export const FIXES: Record<string, { root_cause: string; fix_outline: string; from: string; to: string }> = {
  mean: { root_cause: 'mean() divides the sum by xs.length - 1 (the sample-variance denominator) instead of xs.length', fix_outline: 'mean: divide by xs.length in src/stats.js', from: 's / (xs.length - 1)', to: 's / xs.length' },
  median: { root_cause: 'median() sorts with the default comparator, which orders numbers as strings (10 before 9)', fix_outline: 'median: sort numerically with (a, b) => a - b in src/stats.js', from: '[...xs].sort()', to: '[...xs].sort((a, b) => a - b)' },
};

const FAIL = /^FAIL (\w+)\((.*)\): expected (.+), got (.+)$/;

/** Stage 3 observer: one ISSUE per FAIL line of the real log, a severity-1 ISSUE per WARN line. */
export function observe(r: AgentRequest): string {
  const log = r.inputs['raw.log (last 200 lines)'] ?? '';
  const sections: string[] = [];
  for (const line of log.split('\n')) {
    if (!line.startsWith('FAIL ') && !line.startsWith('WARN ')) continue;
    const n = String(sections.length + 1).padStart(3, '0');
    sections.push([`## ISSUE-${n}`, `title: ${JSON.stringify(line.replace(/^(FAIL|WARN) /, ''))}`, `evidence: ${JSON.stringify(line)}`, `severity: ${line.startsWith('FAIL') ? 3 : 1}`, `first_seen_ts: "${n}"`, 'blocking: false'].join('\n'));
  }
  return sections.length > 0 ? sections.join('\n\n') : 'NO ISSUES';
}

/** Stage 4a triage: a wrong result is Real; a second failure of the same function is a duplicate; timing noise is Discarded. */
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
      rationale = `tried to explain "${text}" by a wrong expectation; the expected value is the textbook one, so the result is wrong`;
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
    const actual = execFileSync(process.execPath, ['--input-type=module', '-e', src], { cwd: worktree(), encoding: 'utf8' }).trim();
    const falsified = actual === expected;
    const known = FIXES[fn!];
    const reproTest = `test/repro-${fixId}.test.js`;
    // JSON is YAML: the record parses with collie's parseFixRecord.
    return JSON.stringify({
      id: fixId,
      kind: 'correctness',
      severity: 3,
      fix_confidence: falsified || !known ? 1 : 4,
      root_cause: known?.root_cause ?? '',
      reproduction_test: `import assert from 'node:assert/strict';\nimport { ${fn} } from '../src/stats.js';\nassert.deepEqual(${fn}(${args}), ${expected}); // got ${actual} before the fix\n`,
      fix_outline: known?.fix_outline ?? '',
      why_root_cause: falsified ? `could not reproduce: ${fn}(${args}) = ${actual}` : `reproduced in the worktree: ${fn}(${args}) = ${actual}, expected ${expected}`,
      dependencies: [],
      uncertainty_tag: 'none',
      key_files: ['src/stats.js', reproTest],
    }, null, 2);
  };
}

/** The scripted agents (discovery ranks the one trigger the project has). */
export function scriptedAgents(worktree: () => string): ScriptedAgent {
  return createScriptedAgent(
    {
      discovery: ['1. node scripts/scorecard.js (shell, 5): evaluates every check of test/checks.js; scalar = passed checks'],
      observe: [observe],
      triage: [triage],
      'deep-verify': [deepVerify(worktree)],
    },
    { repeatLast: true },
  );
}

/** Stage 5.1: applies the FIX's patch to src/stats.js and adds its reproduction test as a new file. */
export function scriptedFlow(): FlowExecutor & { applied: string[] } {
  const applied: string[] = [];
  return {
    name: 'scripted-flow',
    applied,
    apply: ({ fix, worktree }) => {
      const fn = /^(\w+):/.exec(fix.fix_outline)?.[1] ?? '';
      const known = FIXES[fn];
      if (!known) throw new Error(`no scripted patch for ${fix.id} (${fix.fix_outline})`);
      const file = join(worktree, 'src', 'stats.js');
      const before = readFileSync(file, 'utf8');
      if (!before.includes(known.from)) throw new Error(`${fix.id}: src/stats.js does not contain ${known.from}`);
      writeFileSync(file, before.replace(known.from, known.to));
      const test = fix.key_files.find((f) => f.startsWith('test/'));
      if (test) writeFileSync(join(worktree, test), fix.reproduction_test);
      applied.push(fix.id);
      return `${fn}: ${known.from} → ${known.to}`;
    },
  };
}

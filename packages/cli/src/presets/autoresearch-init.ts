import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * The commented starter config of `loop init --preset autoresearch`: an AR-2 function pass over
 * `src/module.js`, every piece a shell command. It validates as written.
 */
export function autoresearchStarterConfig(): string {
  return `# loop config, preset autoresearch: one seed 002 pass (snapshot, one focused edit, score, keep
# only if strictly better, else restore). Run it with "loop run"; "loop resume" (or a second
# "loop run") continues from results.tsv; "loop status" and "loop report" read
# .aid/pipeline/autoresearch/<taskId>/results.tsv. Nothing is committed: the mutable files are the
# task's uncommitted change (git status), snapshotted before every edit. Add .aid/ and coverage/
# to .gitignore. "loop init --preset autoresearch" also wrote starter versions of the four harness
# files named below (those that did not exist): edit them for your module, then commit them.
preset: autoresearch
dir: .
taskId: T-1
# function (AR-2): the test gate, then the reflection's quality; design (AR-1): the reflection's dimensions.
mode: function
# The mutable files (default: the uncommitted files from git status).
files: [src/module.js]

# The harness, fingerprinted: an edit to any of these halts the pass (rubric- or harness-tampered).
rubricFiles: [criteria/ar-function.yaml, .claude/agents/reflection-agent.md]
harnessFiles: [test/run-tests.mjs, tools/reflect.mjs]

# Tier-1 gate: prints a "Tests  N passed (M)" line; coverage from coverage/coverage-summary.json.
gate:
  command: node test/run-tests.mjs
  minCoveragePct: 0
  timeoutS: 600

# Reflection: gets promptFile's text on stdin, prints one JSON line {"scores": {"quality": <0-10>}}.
reflection:
  command: node tools/reflect.mjs
  promptFile: .claude/agents/reflection-agent.md
  timeoutS: 600

# The proposer: makes ONE focused edit per call (prompt on stdin; LOOP_IDEA, LOOP_ITERATION,
# LOOP_ROUND in its environment). planCommand (optional) prints the idea as its last line.
proposer:
  command: claude -p --permission-mode acceptEdits
  goal: Raise the quality of src/module.js without changing its behaviour.
  timeoutS: 600

# Seed 002 bounds (defaults 10 iterations, 5 reverts in a row, 2 rounds, target 9.5).
maxIterations: 10
maxConsecutiveReverts: 5
internalRounds: 2
kpiTarget: 9.5
`;
}

/** The starter harness files of `loop init --preset autoresearch`, relative to the config's folder: path → content. */
export const AUTORESEARCH_STARTER_FILES: Readonly<Record<string, string>> = {
  'criteria/ar-function.yaml':
    `# AR-2 (function) rubric for src/module.js. Fixed for the whole pass: its SHA-256 ` +
    `is the rubric
# fingerprint, so an edit mid-pass halts it (rubric-tampered). Edit it before the first run.
quality:
  scale: 0-10
  start: 10
  penalties:
    - { rule: "each \`var\` (use const or let)", points: 1.5 }
    - { rule: "each line over 100 characters", points: 1 }
    - { rule: "each TODO or FIXME left in the code", points: 0.5 }
`,
  '.claude/agents/reflection-agent.md': `# reflection agent (AR-2)

Score the function the task changed (\`src/module.js\`) against \`criteria/ar-function.yaml\`.
Answer with one JSON line: \`{"scores":{"quality":<0-10>}}\`.
The starter's reflection command, \`tools/reflect.mjs\`, is a deterministic stand-in that applies the
rubric's penalties itself; set \`reflection.command\` to an agent (e.g. \`claude -p\`) to use this prompt.
`,
  'test/run-tests.mjs':
    `// The Tier-1 test gate: \`node test/run-tests.mjs\` from the workspace root. Runs every
// test/*.test.mjs with node's test runner, prints a vitest-style \`Tests  N passed (M)\` line and exits 1
// on any failure. Coverage: the gate reads coverage/coverage-summary.json (istanbul json-summary) only
// when gate.minCoveragePct is above 0; write that file here before raising it.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const files = existsSync('test') ? readdirSync('test').filter((f) => f.endsWith('.test.mjs')).map((f) => ` +
    `\`test/\${f}\`) : [];
if (files.length === 0) {
  console.log('no test/*.test.mjs yet: add tests of src/module.js (node:test); the gate is green meanwhile');
  process.exit(0);
}
const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', ...files], { encoding: 'utf8' });
process.stdout.write(run.stdout ?? '');
process.stderr.write(run.stderr ?? '');
const count = (name) => Number(new RegExp(\`^# \${name} (\\\\d+)$\`, 'm').exec(run.stdout ?? '')?.[1] ?? 0);
const passed = count('pass');
const failed = count('fail');
console.log(\` Tests  \${failed ? \`\${failed} failed | \` : ''}\${passed} passed (\${passed + failed})\`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
`,
  'tools/reflect.mjs':
    `// The starter reflection command: gets the reflection agent's prompt on stdin and prints ` +
    `one JSON
// line {"scores":{"quality":<0-10>}}. A deterministic stand-in applying criteria/ar-function.yaml's
// penalties to src/module.js: 10 - 1.5 per \`var\` - 1 per line over 100 characters - 0.5 per TODO/FIXME.
import { readFileSync } from 'node:fs';

const src = readFileSync('src/module.js', 'utf8');
const vars = (src.match(/\\bvar\\b/g) ?? []).length;
const long = src.split('\\n').filter((l) => l.length > 100).length;
const todos = (src.match(/\\b(TODO|FIXME)\\b/g) ?? []).length;
const quality = Math.max(0, 10 - 1.5 * vars - long - 0.5 * todos);
console.log(\`vars \${vars}, lines over 100 chars \${long}, TODO/FIXME \${todos}\`);
console.log(JSON.stringify({ scores: { quality } }));
`,
};

/**
 * Writes {@link AUTORESEARCH_STARTER_FILES} into `dir` (the config's folder): each one that does not
 * exist yet, or every one with `force`. A file of yours is never overwritten without `force`.
 *
 * @returns the files written and the ones left as they were, relative to `dir`.
 */
export async function writeAutoresearchStarterFiles(
  dir: string,
  force = false,
): Promise<{ written: string[]; kept: string[] }> {
  const written: string[] = [];
  const kept: string[] = [];
  for (const [rel, text] of Object.entries(AUTORESEARCH_STARTER_FILES)) {
    const path = join(dir, rel);
    if (!force && existsSync(path)) {
      kept.push(rel);
      continue;
    }
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
    written.push(rel);
  }
  return { written, kept };
}

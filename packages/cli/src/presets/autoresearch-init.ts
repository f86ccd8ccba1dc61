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
# to .gitignore.
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

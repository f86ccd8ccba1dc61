// Test-only fixture (not exported by the package): a tiny node project with a Math.abs bug, FIX
// records for it, scripted flow agents that really edit the worktree, and the flow context.
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScriptedReply } from '../agent.js';
import type { FlowFixContext } from '../flow-executor.js';
import type { FlowPipelineOptions } from '../flow-pipeline.js';
import { fixRecordSchema, type FixRecord } from '../records.js';

export const BUGGY = 'function add(a, b) {\n  return Math.abs(a) + Math.abs(b);\n}\nmodule.exports = { add };\n';
export const FIXED = 'function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n';
export const WRONG = 'function add(a, b) {\n  return a - b;\n}\nmodule.exports = { add };\n';
export const testFile = (expr: string) =>
  `const test = require('node:test');\nconst assert = ` +
  `require('node:assert');\nconst { add } = ` +
  `require('../src/calc.js');\ntest('add', () => ` +
  `assert.strictEqual(${expr}));\n`;
export const EXISTING_TEST = testFile('add(1, 2), 3');
export const REPRO = 'test/calc-neg.test.js';
export const REPRO_TEST = testFile('add(-1, -2), -3');
export const PLAN = '# fix plan\n\n## FIX-001\nWhy: add uses Math.abs\n';

export const correctness: FixRecord = fixRecordSchema.parse({
  id: 'FIX-001',
  kind: 'correctness',
  severity: 3,
  fix_confidence: 4,
  root_cause: 'add takes Math.abs of its arguments',
  reproduction_test: `${REPRO}: add(-1, -2) === -3`,
  fix_outline: 'drop Math.abs in add',
  key_files: ['src/calc.js', REPRO],
});
export const optimization: FixRecord = fixRecordSchema.parse({
  id: 'FIX-002',
  kind: 'optimization',
  severity: 2,
  fix_confidence: 4,
  root_cause: 'slow add',
  fix_outline: 'inline',
  key_files: ['src/calc.js'],
});

const temps: string[] = [];
/** Removes every temp dir made since the last call (register it with `afterEach`). */
export async function removeTemps(): Promise<void> {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
}

export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

export async function makeWorktree(): Promise<string> {
  const root = await tempDir('collie-flow-wt-');
  await mkdir(join(root, 'src'));
  await mkdir(join(root, 'test'));
  await mkdir(join(root, '.git'));
  await writeFile(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  await writeFile(join(root, 'src', 'calc.js'), BUGGY);
  await writeFile(join(root, 'test', 'calc.test.js'), EXISTING_TEST);
  await writeFile(join(root, 'README.md'), '# calc\n');
  return root;
}

/** Every entry under root (including .git): path → `dir <mode>` or `<mode> <content>`. */
export async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of (await readdir(root, { recursive: true })).sort()) {
    const st = await lstat(join(root, path));
    out[path] = st.isDirectory() ? `dir ${st.mode}` : `${st.mode} ${await readFile(join(root, path), 'utf8')}`;
  }
  return out;
}

/** A reply that really edits the worktree: path → content, or null to delete. */
export function edits(root: string, files: Record<string, string | null>, reply: string): ScriptedReply {
  return async () => {
    for (const [path, content] of Object.entries(files)) {
      if (content === null) await rm(join(root, path), { force: true });
      else {
        await mkdir(join(root, path, '..'), { recursive: true });
        await writeFile(join(root, path), content);
      }
    }
    return reply;
  };
}

export function script(
  root: string,
  over: Record<string, readonly ScriptedReply[]> = {},
): Record<string, readonly ScriptedReply[]> {
  return {
    'flow-tdd': [edits(root, { [REPRO]: REPRO_TEST }, `wrote ${REPRO}`)],
    'flow-implement': [edits(root, { 'src/calc.js': FIXED }, 'dropped Math.abs')],
    'flow-review': ['Looks right.\nverdict: approve'],
    'flow-simplify': ['nothing'],
    'flow-final-review': ['Root cause fixed.\nverdict: approve'],
    ...over,
  };
}

/** The plan lives in `<root>.run/iter-1/` (outside the worktree, removed with it). */
export const ctxOf = (root: string, fix: FixRecord = correctness, signal?: AbortSignal): FlowFixContext => {
  temps.push(`${root}.run`);
  return {
    fix,
    iter: 1,
    worktree: root,
    planPath: join(`${root}.run`, 'iter-1', 'fix-plan.md'),
    planText: PLAN,
    ...(signal ? { signal } : {}),
  };
};
export const base = (agent: FlowPipelineOptions['agent']): FlowPipelineOptions => ({
  agent,
  testCommand: 'node --test',
  reproCommand: 'node --test {file}',
  timeoutMs: 30_000,
  graceMs: 100,
});

// Issue 12: the flow pipeline's commands (the regression / repro gates of Stage 5.1) run in core's
// sandbox by default and leave no process behind, a `setsid` daemon included.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapStatus, type SandboxMode } from '@loop/core/process';
import { pidsWithEnv } from '@loop/internal-test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFlowPipelineExecutor, createScriptedAgent, type FlowFixContext } from '../src/index.js';
import { fixRecordSchema } from '../src/records.js';

const bwrap = bwrapStatus();
let root: string;
let wt: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'collie-flow-sandbox-'));
  wt = join(root, 'wt');
  mkdirSync(join(wt, 'src'), { recursive: true });
  writeFileSync(join(wt, 'src', 'calc.js'), 'slow\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const fix = fixRecordSchema.parse({
  id: 'FIX-001',
  kind: 'optimization',
  severity: 2,
  fix_confidence: 4,
  root_cause: 'slow',
  fix_outline: 'make it fast',
  key_files: ['src/calc.js'],
});
const ctx = (): FlowFixContext => ({
  fix,
  iter: 1,
  worktree: wt,
  planPath: join(root, 'run', 'iter-1', 'fix-plan.md'),
  planText: '# plan\n',
});

/**
 * One FIX through the pipeline whose regression command writes `../outside.txt` (next to the
 * worktree) and starts a `setsid` daemon carrying `mark` in its environment, then exits 0.
 */
async function applyWithHostileGate(
  sandbox: SandboxMode | undefined,
  mark: string,
): Promise<{ note: string | void; transcript: string }> {
  const agent = createScriptedAgent({
    'flow-implement': [async () => (writeFileSync(join(wt, 'src', 'calc.js'), 'fast\n'), 'made it fast')],
    'flow-review': ['verdict: approve'],
    'flow-simplify': ['nothing'],
    'flow-final-review': ['verdict: approve'],
  });
  const testCommand = "echo leak > ../outside.txt; setsid sh -c 'exec sleep 300' </dev/null >/dev/null 2>&1 & true";
  const flow = createFlowPipelineExecutor({
    agent,
    testCommand,
    timeoutMs: 30_000,
    graceMs: 100,
    env: { COLLIE_TEST_MARK: mark },
    ...(sandbox ? { sandbox } : {}),
  });
  const note = await flow.apply(ctx());
  return { note, transcript: flow.transcriptOf('FIX-001') ?? '' };
}

describe.skipIf(!bwrap.available)(
  `the flow pipeline's commands in the bwrap sandbox (the default, ` +
    `auto)${bwrap.available ? '' : ` — skipped: ${bwrap.reason}`}`,
  () => {
    it(
      'a flow gate command that writes ../outside.txt is confined (the write ' +
        'fails, nothing appears outside the worktree) and its setsid daemon is ' +
        'gone when the step ends',
      async () => {
        const mark = randomBytes(6).toString('hex');
        const { note, transcript } = await applyWithHostileGate(undefined, mark);
        expect(note).toMatch(/regression green, final review approved$/);
        expect(transcript).toContain('Read-only file system');
        expect(existsSync(join(root, 'outside.txt'))).toBe(false);
        expect(pidsWithEnv(`COLLIE_TEST_MARK=${mark}`)).toEqual([]);
      },
    );
  },
);

describe("the flow pipeline's commands without a sandbox (sandbox: 'none')", () => {
  it(
    'a setsid daemon started by a flow gate command is gone when its step ' +
      'ends (process group, cgroup or run token); the outside write is not ' +
      'confined, which G6 audits',
    async () => {
      const mark = randomBytes(6).toString('hex');
      await applyWithHostileGate('none', mark);
      expect(pidsWithEnv(`COLLIE_TEST_MARK=${mark}`)).toEqual([]);
      expect(existsSync(join(root, 'outside.txt'))).toBe(true);
    },
  );
});

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapStatus } from '@loop/core/process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentCommand } from '../src/index.js';
import { runFlowCommand } from '../src/flow/run-command.js';

const bwrap = bwrapStatus();
let root: string;
let ws: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'collie-sandbox-'));
  ws = join(root, 'ws');
  mkdirSync(ws);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!bwrap.available)(
  `collie's commands in the bwrap sandbox${bwrap.available ? '' : ` — skipped: ${bwrap.reason}`}`,
  () => {
    it('a sandboxed agent-command writes in its working directory and cannot write ../outside.txt', async () => {
      const agent = createAgentCommand({
        command: 'echo in > inside.txt; echo out > ../outside.txt || echo refused',
        cwd: ws,
        logDir: join(root, 'logs'),
        sandbox: 'bwrap',
      });
      expect(await agent.run({ role: 'r', tier: 'fast', prompt: '', inputs: {} })).toMatch(
        /Read-only file system[\s\S]*refused/,
      );
      expect(readFileSync(join(ws, 'inside.txt'), 'utf8')).toBe('in\n');
      expect(existsSync(join(root, 'outside.txt'))).toBe(false);
    });

    it('a flow command given a sandbox spec cannot write outside its worktree', async () => {
      const outcome = await runFlowCommand({
        command: 'touch ../outside.txt',
        cwd: ws,
        env: process.env,
        logPath: join(root, 'flow.log'),
        timeoutMs: 10_000,
        graceMs: 100,
        sandbox: { writable: [ws] },
      });
      expect(outcome.passed).toBe(false);
      expect(outcome.tail).toContain('Read-only file system');
      expect(existsSync(join(root, 'outside.txt'))).toBe(false);
    });
  },
);

describe("collie's command exit codes", () => {
  it('a flow command killed by a signal inside its shell says so (killed by SIGSEGV), not exit 139', async () => {
    const outcome = await runFlowCommand({
      command: "sh -c 'kill -SEGV $$'; exit $?",
      cwd: ws,
      env: process.env,
      logPath: join(root, 'flow.log'),
      timeoutMs: 10_000,
      graceMs: 100,
    });
    expect(outcome.describe).toBe('killed by SIGSEGV (exit code 139)');
  });
});

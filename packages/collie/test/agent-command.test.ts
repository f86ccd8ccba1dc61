import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLoopError } from '@loop/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentCommand, createNotifyCommand } from '../src/index.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'collie-agent-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('agent-command and notify command (real processes)', () => {
  it(
    'agent-command: any CLI gets the prompt on stdin and role / tier / model ' +
      '/ COLLIE_AUTOITER_ACTIVE in its environment; its output is the reply',
    async () => {
      const agent = createAgentCommand({
        command: 'echo "$COLLIE_AGENT_ROLE $COLLIE_AGENT_TIER $COLLIE_AGENT_MODEL $COLLIE_AUTOITER_ACTIVE"; cat',
        cwd: dir,
        logDir: join(dir, 'logs'),
      });
      const out = await agent.run({
        role: 'triage',
        tier: 'deep',
        prompt: 'reverse suspicion',
        inputs: { 'run-spec.md': 'spec' },
      });
      expect(out).toBe('triage deep opus 1\nreverse suspicion\n\n## run-spec.md\n\nspec\n');
      expect(readFileSync(join(dir, 'logs', 'triage-1.log'), 'utf8')).toBe(out);
    },
  );

  it('agent-command: a per-tier command map picks the command by tier', async () => {
    const agent = createAgentCommand({
      command: { fast: 'echo fast', standard: 'echo std', deep: 'echo deep' },
      cwd: dir,
      logDir: dir,
    });
    expect(await agent.run({ role: 'r', tier: 'standard', prompt: '', inputs: {} })).toBe('std\n');
  });

  it(
    'agent-command: a non-zero exit or a timeout is PROPOSER_FAILED naming ' +
      'the log, and the whole process group is killed on timeout',
    async () => {
      const fail = createAgentCommand({ command: 'echo nope; exit 3', cwd: dir, logDir: dir });
      await expect(fail.run({ role: 'r', tier: 'fast', prompt: '', inputs: {} })).rejects.toSatisfy(
        (e) => isLoopError(e, 'PROPOSER_FAILED') && String(e).includes('exited with 3'),
      );
      const slow = createAgentCommand({
        command: 'echo $$ > pid; (sleep 30) & sleep 30',
        cwd: dir,
        logDir: dir,
        timeoutMs: 300,
        graceMs: 50,
        sandbox: 'none',
      }); // host pids (a sandboxed call has its own pid namespace)
      await expect(slow.run({ role: 'r', tier: 'fast', prompt: '', inputs: {} })).rejects.toSatisfy((e) =>
        String(e).includes('timed out after 300 ms'),
      );
      const group = Number(readFileSync(join(dir, 'pid'), 'utf8'));
      // Live (non-zombie) members of the group, from /proc (Linux): a zombie may wait for reaping.
      const alive = () =>
        readdirSync('/proc')
          .filter((p) => /^\d+$/.test(p))
          .some((p) => {
            const stat = (() => {
              try {
                return readFileSync(`/proc/${p}/stat`, 'utf8');
              } catch {
                return '';
              }
            })();
            const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
            return Number(pgrp) === group && state !== 'Z';
          });
      // SIGKILL delivery is asynchronous
      for (let i = 0; i < 100 && alive(); i += 1) await new Promise((r) => setTimeout(r, 20));
      expect(alive()).toBe(false);
    },
  );

  it('agent-command: invalid options are CONFIG_INVALID naming the field', () => {
    expect(() => createAgentCommand({ command: ' ', cwd: 'rel', logDir: dir })).toThrow(/command.*cwd|cwd/s);
  });

  it(
    '§14 notify: the notify command runs under bash with ' +
      'COLLIE_AUTOITER_EVENT, COLLIE_AUTOITER_RUN_ID and ' +
      'COLLIE_AUTOITER_STATUS_FILE',
    async () => {
      const out = join(dir, 'note.txt');
      await createNotifyCommand(
        `echo "$COLLIE_AUTOITER_EVENT $COLLIE_AUTOITER_RUN_ID $COLLIE_AUTOITER_STATUS_FILE" > ${out}`,
        { logFile: join(dir, 'n.log') },
      ).notify({ event: 'deadlock', runId: 'r1', statusFile: '/s/status.md' });
      expect(readFileSync(out, 'utf8')).toBe('deadlock r1 /s/status.md\n');
    },
  );
});

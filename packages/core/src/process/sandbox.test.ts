import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pidsWithEnv } from '@loop/internal-test-utils';
import { createAgentCommandProposer } from '../proposers/agent-command-proposer.js';
import { createCommandGuard } from '../policies/command-guard.js';
import { createCommandHarness } from '../harness/command-harness.js';
import { createFileArtifact } from '../artifacts/file-artifact.js';
import type { ProposalContext } from '../contracts/proposer.js';
import { bwrapStatus, resolveSandboxMode } from './bwrap-status.js';

const bwrap = bwrapStatus();
const skipped = bwrap.available ? '' : ` — skipped: ${bwrap.reason} (CI installs bubblewrap)`;

let root: string;
let ws: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'loop-sandbox-'));
  ws = join(root, 'ws');
  await mkdir(ws);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const signal = () => new AbortController().signal;

describe('resolving the sandbox mode', () => {
  it('bwrap asked for where it does not work is CONFIG_INVALID naming the field and the reason', () => {
    const missing = bwrapStatus('/nonexistent-dir');
    expect(missing).toMatchObject({ available: false, reason: expect.stringContaining('not installed') });
    expect(() => resolveSandboxMode('bwrap', 'command-harness', undefined, missing)).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringMatching(/sandbox: sandbox "bwrap" was asked for, but bwrap is not installed/),
      }),
    );
  });

  it('auto without a working bwrap runs unconfined and warns once through the injected logger', () => {
    const warnings: string[] = [];
    expect(
      resolveSandboxMode('auto', 'agent-command-proposer', (m) => warnings.push(m), {
        available: false,
        reason: 'bwrap is not installed',
      }),
    ).toBe('none');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/no sandbox: bwrap is not installed\. Commands run unconfined/);
    expect(resolveSandboxMode('none', 'x', (m) => warnings.push(m), { available: false })).toBe('none');
    expect(warnings).toHaveLength(1);
    const logger = (m: string) => void warnings.push(m);
    resolveSandboxMode('auto', 'command-harness', logger, { available: false, reason: 'bwrap is missing here' });
    resolveSandboxMode('auto', 'command-guard', logger, { available: false, reason: 'bwrap is missing here' });
    expect(warnings).toHaveLength(2); // one logger, one reason: told once
  });

  it('auto with a working bwrap is bwrap', () => {
    expect(resolveSandboxMode('auto', 'x', undefined, { available: true, path: '/usr/bin/bwrap' })).toBe('bwrap');
  });
});

describe.skipIf(!bwrap.available)(`the bwrap sandbox (real bubblewrap)${skipped}`, () => {
  it(
    'a sandboxed harness cannot write outside the workspace (../outside.txt ' +
      'fails, the file does not appear) but can write inside it',
    async () => {
      const harness = createCommandHarness({
        command: 'echo in > inside.txt; echo out > ../outside.txt || echo "outside write failed"',
        cwd: ws,
        sandbox: 'bwrap',
      });
      const run = await harness.run({ iteration: 1, signal: signal() });
      expect(run.exitCode).toBe(0);
      expect(await readFile(join(ws, 'inside.txt'), 'utf8')).toBe('in\n');
      expect(existsSync(join(root, 'outside.txt'))).toBe(false);
      expect(await readFile(join(ws, 'run.log'), 'utf8')).toMatch(/Read-only file system[\s\S]*outside write failed/);
    },
  );

  it.skipIf(!bwrap.available)(
    'a workspace link into the host /tmp (node_modules of a clone there) ' +
      'stays readable, read-only, under the private /tmp',
    async () => {
      const other = await mkdtemp(join(tmpdir(), 'loop-linked-'));
      try {
        await mkdir(join(other, 'pkg'));
        await writeFile(join(other, 'pkg', 'index.txt'), 'linked');
        await symlink(join(other, 'pkg'), join(ws, 'node_modules'));
        const harness = createCommandHarness({
          command: 'cat node_modules/index.txt; echo x > node_modules/new.txt || echo "write refused"',
          cwd: ws,
          sandbox: 'bwrap',
          readOnlyCwd: true,
          logFile: join(root, 'h.log'),
        });
        const run = await harness.run({ iteration: 1, signal: signal() });
        expect(run.exitCode).toBe(0);
        expect(await readFile(join(root, 'h.log'), 'utf8')).toMatch(/^linked[\s\S]*write refused/);
        expect(existsSync(join(other, 'pkg', 'new.txt'))).toBe(false);
      } finally {
        await rm(other, { recursive: true, force: true });
      }
    },
  );

  it('the rest of the system is read-only, /tmp is private, and the network is off unless allowed', async () => {
    const name = `loop-sandbox-probe-${randomBytes(4).toString('hex')}`;
    const command =
      `echo x > /tmp/${name} && echo tmp-ok; echo x > /etc/${name} || echo ` + `etc-refused; cat /proc/net/dev`;
    await createCommandHarness({ command, cwd: ws, sandbox: 'bwrap' }).run({ iteration: 1, signal: signal() });
    const log = await readFile(join(ws, 'run.log'), 'utf8');
    expect(log).toContain('tmp-ok');
    expect(log).toContain('etc-refused');
    expect(existsSync(join('/tmp', name))).toBe(false);
    const interfaces = (text: string) =>
      text
        .slice(text.indexOf('Inter-|'))
        .split('\n')
        .slice(2)
        .map((l) => l.split(':')[0]!.trim())
        .filter(Boolean);
    expect(interfaces(log)).toEqual(['lo']);
    await createCommandHarness({ command: 'cat /proc/net/dev', cwd: ws, sandbox: 'bwrap', network: true }).run({
      iteration: 1,
      signal: signal(),
    });
    expect(interfaces(await readFile(join(ws, 'run.log'), 'utf8'))).toEqual(
      interfaces(readFileSync('/proc/net/dev', 'utf8')),
    );
  });

  it(
    'the agent proposer is sandboxed by default: it can write its target, ' +
      'not another workspace file, not ../outside.txt, and its setsid daemon ' +
      'dies with it',
    async () => {
      await writeFile(join(ws, 'config.json'), '{}\n');
      await writeFile(join(ws, 'prepare.mjs'), '// evaluation\n');
      const marker = `LOOP_TEST_MARKER=${randomBytes(6).toString('hex')}`;
      const agent = [
        'setsid sleep 60 >/dev/null 2>&1 &',
        'echo \'{"lr":2}\' > config.json',
        'echo hacked > prepare.mjs || echo "prepare refused"',
        'echo out > ../outside.txt || echo "outside refused"',
        'echo "DESCRIPTION: lr 2"',
      ].join('\n');
      const proposer = createAgentCommandProposer({
        command: agent,
        cwd: ws,
        goal: 'g',
        env: Object.fromEntries([marker.split('=') as [string, string]]),
      });
      const context: ProposalContext = {
        iteration: 1,
        attempt: 0,
        history: [],
        baseline: 1,
        best: 1,
        direction: 'minimize',
        hints: [],
        artifact: createFileArtifact({ root: ws, mutable: ['config.json'], readOnly: ['prepare.mjs'] }),
        signal: signal(),
      };
      expect(await proposer.propose(context)).toEqual({ description: 'lr 2', changedFiles: ['config.json'] });
      expect(await readFile(join(ws, 'prepare.mjs'), 'utf8')).toBe('// evaluation\n');
      expect(existsSync(join(root, 'outside.txt'))).toBe(false);
      const log = await readFile(join(ws, '.loop', 'agent.log'), 'utf8');
      expect(log).toContain('prepare refused');
      expect(log).toContain('outside refused');
      const marked = pidsWithEnv(marker);
      expect(marked).toEqual([]);
    },
  );

  it(
    'a target that is a symlink to a file outside the workspace is not made ' + 'writable (the link is never followed)',
    async () => {
      await writeFile(join(root, 'secret.txt'), 'original\n');
      await symlink(join(root, 'secret.txt'), join(ws, 'config.json'));
      const proposer = createAgentCommandProposer({
        command: 'echo forged > config.json || echo refused',
        cwd: ws,
        goal: 'g',
      });
      const context: ProposalContext = {
        iteration: 1,
        attempt: 0,
        history: [],
        baseline: 1,
        best: 1,
        direction: 'minimize',
        hints: [],
        artifact: createFileArtifact({ root: ws, mutable: ['config.json'], readOnly: [] }),
        signal: signal(),
      };
      await proposer.propose(context);
      expect(await readFile(join(root, 'secret.txt'), 'utf8')).toBe('original\n');
      expect(await readFile(join(ws, '.loop', 'agent.log'), 'utf8')).toContain('refused');
    },
  );

  it('a failing sandboxed agent says it was confined and how to widen it', async () => {
    const proposer = createAgentCommandProposer({ command: 'echo x > ../notes.txt', cwd: ws, goal: 'g' });
    const context: ProposalContext = {
      iteration: 1,
      attempt: 0,
      history: [],
      baseline: 1,
      best: 1,
      direction: 'minimize',
      hints: [],
      artifact: createFileArtifact({ root: ws, mutable: ['config.json'], readOnly: [] }),
      signal: signal(),
    };
    await writeFile(join(ws, 'config.json'), '{}\n');
    await expect(proposer.propose(context)).rejects.toMatchObject({
      code: 'PROPOSER_FAILED',
      message: expect.stringContaining(`It ran in the bwrap sandbox, writable only: ${join(ws, 'config.json')}`),
    });
  });

  it('a sandboxed command guard sees the workspace writable and nothing else', async () => {
    const guard = createCommandGuard({ command: 'touch ok.txt && touch ../no.txt', cwd: ws, sandbox: 'bwrap' });
    const verdict = await guard.afterScore!({ iteration: 1, signal: signal() } as never);
    expect(verdict).toMatchObject({ action: 'reject', note: expect.stringContaining('Read-only file system') });
    expect(existsSync(join(ws, 'ok.txt'))).toBe(true);
    expect(existsSync(join(root, 'no.txt'))).toBe(false);
  });
});

import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInGroupToLog } from './process-group.js';
import { bwrapStatus } from './bwrap-status.js';
import { planSandboxBinds, sandboxBindArgs, sweepSandboxFolders } from './sandbox-folders.js';

let ws: string;
beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'loop-sandbox-folders-')));
  mkdirSync(join(ws, 'src'));
  for (const f of ['config.json', 'prepare.mjs', 'src/model.py']) writeFileSync(join(ws, f), 'x\n');
  symlinkSync('prepare.mjs', join(ws, 'link.mjs'));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('planning the binds of a sandboxed command', () => {
  it(
    "a target file's folder is bound writable with every other entry " +
      "read-only (symlinks recorded, not bound); a deeper folder's bind comes " +
      'after',
    () => {
      const binds = planSandboxBinds([join(ws, 'config.json'), join(ws, 'src', 'model.py')]);
      expect(binds.folders.map((f) => [f.dir, [...f.readOnly].sort(), [...f.links]])).toEqual([
        [ws, ['prepare.mjs', 'src'], [['link.mjs', 'prepare.mjs']]],
        [join(ws, 'src'), [], []],
      ]);
      const args = sandboxBindArgs(binds);
      expect(args.indexOf(`${ws}/src`)).toBeLessThan(args.lastIndexOf(`${ws}/src`));
      expect(args.slice(-3)).toEqual(['--bind', `${ws}/src`, `${ws}/src`]);
    },
  );

  it('a target inside a writable directory needs no folder bind (the directory covers it)', () => {
    const binds = planSandboxBinds([join(ws, 'src', 'model.py')], [join(ws, 'src')]);
    expect(binds).toMatchObject({ folders: [], paths: [join(ws, 'src')], notes: [] });
  });

  it(
    'a folder with more entries than maxFolderEntries binds the file alone ' +
      'and says so; a missing target there stays unwritable',
    () => {
      const binds = planSandboxBinds([join(ws, 'config.json'), join(ws, 'new.json')], [], 2);
      expect(binds.folders).toEqual([]);
      expect(binds.paths).toEqual([join(ws, 'config.json')]);
      expect(binds.notes).toEqual([
        expect.stringMatching(
          /config\.json: its folder has 3 other entries \(more than 2\), so only the file itself is writable, in place/,
        ),
        expect.stringMatching(/new\.json: .* it cannot be created/),
      ]);
    },
  );

  it('the sweep removes new entries (not the targets, not the spared paths) and puts back a replaced symlink', () => {
    const binds = planSandboxBinds([join(ws, 'config.json')]);
    writeFileSync(join(ws, 'config.json~'), 'old\n');
    writeFileSync(join(ws, 'agent.log'), 'log\n');
    mkdirSync(join(ws, 'build'));
    rmSync(join(ws, 'link.mjs'));
    writeFileSync(join(ws, 'link.mjs'), 'forged\n');
    expect(sweepSandboxFolders(binds, [join(ws, 'agent.log')])).toEqual({
      removed: [join(ws, 'build'), join(ws, 'config.json~')],
      restored: [join(ws, 'link.mjs')],
    });
    expect(readFileSync(join(ws, 'link.mjs'), 'utf8')).toBe('x\n');
    expect(readFileSync(join(ws, 'agent.log'), 'utf8')).toBe('log\n');
  });
});

const bwrap = bwrapStatus();
describe.skipIf(!bwrap.available)(
  `a folder too large for per-entry binds (real bwrap)${bwrap.available ? '' : ` — skipped: ${bwrap.reason}`}`,
  () => {
    it(
      'leaves the target writable in place only: echo > works, sed -i is ' + 'refused, the rest stays read-only',
      async () => {
        const logPath = join(tmpdir(), `loop-sandbox-folders-${process.pid}.log`);
        const command =
          "sed -i 's/x/y/' config.json || echo 'sed refused'; echo z > " +
          "config.json; echo w > prepare.mjs || echo 'prepare refused'";
        const result = await runInGroupToLog({
          logPath,
          command,
          cwd: ws,
          env: process.env,
          killTimeoutMs: 30_000,
          graceMs: 1000,
          sandbox: { writable: [join(ws, 'config.json')], maxFolderEntries: 2 },
        });
        const log = readFileSync(logPath, 'utf8');
        rmSync(logPath, { force: true });
        expect(result.exitCode).toBe(0);
        expect(log).toContain('sed refused');
        expect(log).toContain('prepare refused');
        expect(readFileSync(join(ws, 'config.json'), 'utf8')).toBe('z\n');
        expect(readFileSync(join(ws, 'prepare.mjs'), 'utf8')).toBe('x\n');
      },
    );
  },
);

import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bwrapStatus } from '@loop/core/process';
import { afterEach, describe, expect, it } from 'vitest';
import { holdoutFixture, hostileAgent } from '../../auto-iterate/test/holdout-fixture.js';
import { startDashboard } from '../src/dashboard/server.js';
import { readStatus } from '../src/workspace-status.js';

// Issue 33 through the real CLI: `holdout:` in a config, a hostile agent in bwrap, loop status and loop holdout.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const bwrap = bwrapStatus();
const skipped = bwrap.available ? '' : ` — skipped: ${bwrap.reason} (CI installs bubblewrap)`;

let f: ReturnType<typeof holdoutFixture>;
afterEach(() => rmSync(f.base, { recursive: true, force: true }));

const loop = (...args: string[]) => {
  const r = spawnSync(process.execPath, ['--import', TSX, '--conditions=source', MAIN, ...args], {
    cwd: f.base,
    env: { ...process.env, CI: '1' },
    encoding: 'utf8',
    timeout: 240_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

function configFile(extra = ''): string {
  writeFileSync(join(f.base, 'agent.sh'), hostileAgent(f).script);
  const file = join(f.base, 'loop.config.yaml');
  writeFileSync(
    file,
    `dir: ws
targetFiles: [model.json, loot.txt]
readOnlyFiles: [eval.mjs, val.txt]
runCommand: node eval.mjs
metricName: val_loss
timeBudgetS: 60
killTimeoutS: 120
maxIterations: 1
proposer: { type: agent, command: "sh ${join(f.base, 'agent.sh')}", goal: "lower val_loss", network: false }
holdout:
  command: node ${join(f.holdout, 'eval-test.mjs')}
  metricName: test_loss
  files: [../holdout]
  stateDir: ${f.state}
  gate: { budget: 5 }
${extra}`,
  );
  return file;
}

/** Every file of the workspace (.git included) and every git object: what the agent's sandbox can read of it. */
function workspaceText(): string {
  const parts: string[] = [];
  const walk = (p: string): void => {
    for (const name of readdirSync(p)) {
      const path = join(p, name);
      const s = statSync(path, { throwIfNoEntry: false });
      if (s?.isDirectory()) walk(path);
      else if (s?.isFile()) parts.push(readFileSync(path, 'latin1'));
    }
  };
  walk(f.ws);
  parts.push(
    execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
      cwd: f.ws,
      encoding: 'latin1',
      maxBuffer: 1 << 28,
    }),
  );
  return parts.join('\n');
}

describe.skipIf(!bwrap.available)(`loop run with a sealed holdout (real CLI, bwrap, git; issue 33)${skipped}`, () => {
  it(
    'the banner says sealed; the hostile agent finds nothing; no holdout ' +
      'score in the workspace or the run output; loop status and loop holdout ' +
      'show the scores',
    async () => {
      f = holdoutFixture();
      const cfg = configFile();
      const run = loop('run', cfg);
      expect(run.code, run.err).toBe(0);
      expect(run.out).toMatch(
        new RegExp(
          String.raw`holdout {3}sealed: its files and scores are masked in the agent's bwrap ` +
            String.raw`sandbox; gate on keeps, 5 uses, margin 0`,
        ),
      );
      // the terminal may be a file the agent reads: no score there
      expect(`${run.out}${run.err}`).not.toMatch(/\d\.\d54321/);
      expect(`${run.out}${run.err}`).toMatch(/gate use 2 of 5: iteration 1 passed/);
      const loot = f.git('show', 'HEAD:loot.txt');
      expect(loot).toContain('== git cat-file every object');
      expect(loot).not.toContain(f.mark);
      expect(loot).not.toMatch(/\d\.\d54321/);
      const report = loop('report', cfg); // the default plot goes into the workspace's .loop/: without the holdout
      expect(report.out).toMatch(
        new RegExp(
          String.raw`holdout {3}visible vs sealed holdout[^]*it {3}1 {2}gate +visible ` +
            String.raw`1\.000000 {2}holdout 8\.654321 {2}gap 7\.654321`,
        ),
      );
      expect(report.out).toContain(join(f.state, 'holdout-gap.svg'));
      const page = join(f.base, 'report.html');
      loop('report', cfg, '--html', page);
      expect(readFileSync(page, 'utf8')).toMatch(/<h2>Sealed holdout<\/h2>[^]*8\.654321/);
      expect(workspaceText()).not.toMatch(/\d\.\d54321|SEALED-MARK-[0-9a-f]{12}/);
      // The dashboard shows the holdout only when asked (--holdout): an agent with network on can reach 127.0.0.1.
      for (const holdout of [false, true]) {
        const dashboard = await startDashboard({ root: f.base, port: 0, holdout });
        try {
          await dashboard.refresh();
          const views = dashboard.runs();
          expect(views).toHaveLength(1);
          if (holdout)
            expect(views[0]!.holdout?.lines.join('\n')).toMatch(
              /visible 1\.000000 {2}holdout 8\.654321 {2}gap 7\.654321/,
            );
          else expect(JSON.stringify(views[0])).not.toMatch(/54321/);
        } finally {
          await dashboard.close();
        }
      }

      // What the MCP server's loop_status replies with (readStatus) holds no holdout score.
      expect(JSON.stringify(await readStatus(f.ws))).not.toMatch(/\d\.\d54321/);
      const status = loop('status', cfg);
      expect(status.out).toMatch(/holdout {3}sealed scores in .*state/);
      expect(status.out).toMatch(
        /final {3}iteration 1 \([0-9a-f]{7}\): holdout 8\.654321 {2}visible 1\.000000 {2}gap 7\.654321/,
      );
      expect(status.out).toMatch(/gate {4}2 of 5 uses; 0 keep\(s\) kept back/);

      const onDemand = loop('holdout', cfg);
      expect(onDemand.code, onDemand.err).toBe(0);
      expect(onDemand.out).toMatch(
        /holdout {3}test_loss 8\.654321 at [0-9a-f]{7} \(use 4 of run auto-iterate\/\S+; recorded in /,
      );
    },
    300_000,
  );

  it(
    'an agent without a working sandbox (sandbox: none) with a sealed ' +
      'holdout: loop run refuses to start (exit 2, HOLDOUT_NOT_SEALED); sealed: ' +
      'false runs and the banner says NOT sealed',
    async () => {
      f = holdoutFixture();
      const cfg = configFile();
      writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('network: false }', 'network: false, sandbox: none }'));
      const refused = loop('run', cfg);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(/HOLDOUT_NOT_SEALED.*no working sandbox.*holdout\.sealed: false/s);
      writeFileSync(cfg, `${readFileSync(cfg, 'utf8')}  sealed: false\n`);
      // Unconfined, a plain reader (the hostile script would write to the host's /tmp).
      writeFileSync(
        join(f.base, 'agent.sh'),
        `cat > /dev/null\ncat ${join(f.holdout, 'test.txt')} > loot.txt\necho '{"s":3,"memo":[]}' > model.json\n`,
      );
      const unsealed = loop('run', cfg);
      expect(unsealed.code, unsealed.err).toBe(0);
      expect(unsealed.out).toMatch(/holdout {3}NOT sealed/);
      expect(f.git('show', 'HEAD:loot.txt')).toContain(f.mark); // and indeed the agent read it
    },
    300_000,
  );

  it('a holdout block with an unknown key is a config error naming file:line and the allowed keys', async () => {
    f = holdoutFixture();
    const cfg = configFile('  budget: 3\n');
    const r = loop('run', cfg);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/loop\.config\.yaml:\d+.*holdout.*budget/s);
  }, 120_000);
});

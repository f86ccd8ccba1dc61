import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pidsWithEnv } from '@loop/internal-test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentCommandProposer } from '@loop/core/proposers';
import { bwrapStatus } from '@loop/core/process';
import { createAutoIterate, parseAutoIterateTsv } from '../src/index.js';

// The hostile proposer of issue 12 as a real agent command, in the default sandbox (bwrap: its targets only).
const bwrap = bwrapStatus();
let base: string;
let dir: string;
let outside: string;
let marker: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'loop-sandbox-e2e-'));
  dir = join(base, 'work');
  outside = join(base, 'outside');
  marker = `LOOP_TEST_MARKER=${randomBytes(6).toString('hex')}`;
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'original\n');
  writeFileSync(join(dir, 'src', 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(
    join(dir, 'eval.mjs'),
    "import { readFileSync } from 'node:fs';\nconst { x } = " +
      "JSON.parse(readFileSync('src/config.json', " +
      "'utf8'));\nconsole.log('score: ' + ((x - 3) ** 2 + 1));\n",
  );
  writeFileSync(join(dir, 'README.md'), 'keep me\n');
  // a tracked link in the target folder, pointing out
  symlinkSync(join(outside, 'secret.txt'), join(dir, 'src', 'secret-link'));
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  writeFileSync(
    join(base, 'agent.sh'),
    [
      'cat > /dev/null',
      'echo \'{"x":2}\' > src/config.json',
      'echo forged > ../outside.txt || echo "refused: ../outside.txt"',
      'echo forged > src/secret-link || echo "refused: write through src/secret-link"',
      'rm README.md || echo "refused: rm README.md"',
      'setsid sleep 60 >/dev/null 2>&1 &',
      'echo "DESCRIPTION: x 2"',
      '',
    ].join('\n'),
  );
});
afterEach(() => {
  for (const pid of pidsWithEnv(marker)) process.kill(Number(pid), 'SIGKILL');
  rmSync(base, { recursive: true, force: true });
});

describe.skipIf(!bwrap.available)(
  `a hostile agent in the default sandbox (real bwrap, git, ` +
    `processes)${bwrap.available ? '' : ` — skipped: ${bwrap.reason}`}`,
  () => {
    it(
      'writes ../outside.txt, through an outward symlink and deletes a ' +
        'non-target: all refused, nothing outside changes, its setsid daemon is ' +
        'gone, its real edit is kept',
      async () => {
        const proposer = createAgentCommandProposer({
          command: `sh ${join(base, 'agent.sh')}`,
          cwd: dir,
          goal: 'lower score',
          env: Object.fromEntries([marker.split('=') as [string, string]]),
        });
        await createAutoIterate({
          dir,
          tag: 't',
          files: { targetFiles: ['src/config.json'], readOnlyFiles: ['eval.mjs'] },
          run: { command: 'node eval.mjs', timeBudgetS: 5, killTimeoutS: 10 },
          score: { metricName: 'score' },
          stop: { maxIterations: 1 },
          proposer,
        }).run();
        const rows = parseAutoIterateTsv(readFileSync(join(dir, 'results.tsv'), 'utf8'));
        expect(rows.map((r) => r.status)).toEqual(['baseline', 'kept']);
        expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('original\n');
        expect(existsSync(join(base, 'outside.txt'))).toBe(false);
        expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('keep me\n');
        const log = readFileSync(join(dir, '.loop', 'agent.log'), 'utf8');
        expect(log).toContain('refused: ../outside.txt');
        expect(log).toContain('refused: write through src/secret-link');
        expect(log).toContain('refused: rm README.md');
        expect(pidsWithEnv(marker)).toEqual([]);
        expect(git('status', '--porcelain')).toBe('');
      },
    );

    it('an agent that edits its target with sed -i in the default sandbox is kept (issue 32)', async () => {
      writeFileSync(
        join(base, 'sed-agent.sh'),
        "cat > /dev/null\nsed -i 's/0/2/' src/config.json\necho 'DESCRIPTION: x 2 via sed'\n",
      );
      const proposer = createAgentCommandProposer({
        command: `sh ${join(base, 'sed-agent.sh')}`,
        cwd: dir,
        goal: 'lower score',
      });
      await createAutoIterate({
        dir,
        tag: 't',
        files: { targetFiles: ['src/config.json'], readOnlyFiles: ['eval.mjs'] },
        run: { command: 'node eval.mjs', timeBudgetS: 5, killTimeoutS: 10 },
        score: { metricName: 'score' },
        stop: { maxIterations: 1 },
        proposer,
      }).run();
      const rows = parseAutoIterateTsv(readFileSync(join(dir, 'results.tsv'), 'utf8'));
      expect(rows.map((r) => [r.status, r.description])).toEqual([
        ['baseline', 'baseline'],
        ['kept', 'x 2 via sed'],
      ]);
      expect(readFileSync(join(dir, 'src', 'config.json'), 'utf8')).toBe('{"x":2}');
      expect(git('status', '--porcelain')).toBe('');
    });

    it(
      'an agent whose every edit is refused stops the run after 5 rows in a ' +
        'row that changed nothing (the default), with reason no-file-changes ' +
        'quoting why (issue 32)',
      async () => {
        writeFileSync(
          join(base, 'refused-agent.sh'),
          "cat > /dev/null\nsed -i 's/score/points/' eval.mjs\necho 'DESCRIPTION: rename the metric'\n",
        );
        const heard: string[] = [];
        const proposer = createAgentCommandProposer({
          command: `sh ${join(base, 'refused-agent.sh')}`,
          cwd: dir,
          goal: 'lower score',
          onNoChange: (m) => heard.push(m),
        });
        const summary = await createAutoIterate({
          dir,
          tag: 't',
          files: { targetFiles: ['src/config.json'], readOnlyFiles: ['eval.mjs'] },
          run: { command: 'node eval.mjs', timeBudgetS: 5, killTimeoutS: 10 },
          score: { metricName: 'score' },
          stop: { maxIterations: 30 },
          proposer,
        }).run();
        const rows = parseAutoIterateTsv(readFileSync(join(dir, 'results.tsv'), 'utf8'));
        expect(rows).toHaveLength(6);
        for (const r of rows.slice(1))
          expect(r.description).toMatch(
            new RegExp(
              String.raw`^rename the metric \[agent exited 0 and changed no ` +
                String.raw`target; \.loop\/agent\.log ends: sed: .*; a write was refused ` +
                String.raw`by the sandbox\] \(no change: not evaluated\)$`,
            ),
          );
        expect(summary.stop).toMatchObject({
          reason: 'no-file-changes',
          message: expect.stringMatching(
            new RegExp(
              String.raw`^5 iterations in a row changed no file: the proposer has nothing left ` +
                String.raw`to try, or cannot write its targets; the last one: rename the ` +
                String.raw`metric \[agent exited 0`,
            ),
          ),
        });
        expect(heard).toHaveLength(5);
        expect(readFileSync(join(dir, 'eval.mjs'), 'utf8')).toContain("'score: '");
      },
    );
  },
);

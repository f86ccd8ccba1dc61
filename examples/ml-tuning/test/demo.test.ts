import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { lockPath, runCli } from '@loop/cli';
import { acquireLock } from '@loop/core/files';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo } from '../src/demo.js';

const parent = mkdtempSync(join(tmpdir(), 'loop-demo-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe('ml-tuning demo end to end (real training, real git)', () => {
  it(
    '--parallel 1 (one candidate at a time, in place): results.tsv holds the ' +
      'baseline and one row per iteration; keep commits are on the run branch, ' +
      'others are not; HEAD is the last keep; the tree is clean',
    async () => {
      const out = join(parent, 'run');
      const lines: string[] = [];
      const { summary, branch } = await runDemo({
        iterations: 3,
        steps: 100,
        budgetS: 1.5,
        seed: 3,
        parallel: 1,
        out,
        resume: false,
        print: (l) => lines.push(l),
      });
      const git = (...args: string[]) => execFileSync('git', args, { cwd: out, encoding: 'utf8' }).trim();
      const rows = parseAutoIterateTsv(readFileSync(join(out, 'results.tsv'), 'utf8'));
      expect(rows).toHaveLength(4);
      expect(rows[0]!.status).toBe('baseline');
      expect(rows[0]!.score).toBeGreaterThan(2);
      expect(rows[0]!.score).toBeLessThan(Math.log2(27) + 0.5);
      const kept = rows.filter((r) => r.status === 'baseline' || r.status === 'kept');
      for (const r of rows) {
        const onBranch = (() => {
          try {
            execFileSync('git', ['merge-base', '--is-ancestor', r.candidateId, branch], { cwd: out });
            return true;
          } catch {
            return false;
          }
        })();
        expect(onBranch).toBe(kept.includes(r));
      }
      expect(git('rev-parse', '--short=7', 'HEAD')).toBe(kept.at(-1)!.candidateId);
      expect(git('rev-parse', '--abbrev-ref', 'HEAD')).toBe(branch);
      expect(git('status', '--porcelain')).toBe('');
      expect(git('rev-list', '--count', branch)).toBe(String(kept.length)); // the template commit + one per keep
      expect(summary.iterations).toBe(3);
      expect(lines.filter((l) => /^iter +\d/.test(l))).toHaveLength(4); // one line per iteration
      expect(lines.join('\n')).toContain('val_bpc: baseline');
      // The test split is the sealed holdout: outside the workspace, scored on the best state at the end (issue 33).
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            String.raw`^test {6}best state: val_bpc \d\.\d{6} \(validation\) vs ` +
              String.raw`test_bpc \d\.\d{6} \(sealed holdout, .*\); gap [+-]\d\.\d{6}$`,
          ),
        ),
      );
      expect(
        readFileSync(join(`${out}.holdout`, 'test-names.txt'), 'utf8')
          .split('\n')
          .filter(Boolean),
      ).toHaveLength(420);
      // `loop status` in the workspace shows the holdout's score (its state folder is in the run's config).
      let status = '';
      const io = { stdout: new PassThrough(), stderr: new PassThrough(), cwd: out };
      io.stdout.on('data', (d: Buffer) => (status += d.toString()));
      await runCli(['status'], io);
      expect(status).toMatch(new RegExp(String.raw`holdout +sealed scores in ${out}\.holdout-state`));
      expect(status).toMatch(/final +iteration \d+ .*: holdout \d\.\d{6} +visible \d\.\d{6}/);
      // the live line after each run
      expect(lines.filter((l) => /^progress  iteration \d of 3 \| elapsed \d+s/.test(l))).toHaveLength(4);
      expect(
        lines.at(
          -1 -
            lines
              .slice()
              .reverse()
              .findIndex((l) => l.startsWith('progress')),
        ),
      ).toMatch(/iteration 3 of 3 .* best val_bpc \d\.\d{6}$/);
    },
  );

  it('a resume while a run holds the workspace lock is LOCK_HELD before it prints or writes anything', async () => {
    const out = join(parent, 'run');
    const configFile = join(out, '.loop', 'loop.config.json');
    const before = readFileSync(configFile, 'utf8');
    const lock = await acquireLock({ path: lockPath(out) });
    try {
      const lines: string[] = [];
      await expect(runDemo({ out, resume: true, iterations: 5, print: (l) => lines.push(l) })).rejects.toMatchObject({
        code: 'LOCK_HELD',
      });
      expect(lines).toEqual([]);
      expect(readFileSync(configFile, 'utf8')).toBe(before);
    } finally {
      await lock.release();
    }
  });

  it("--cost-aware is the run's own on resume (demo.json), and refused with a proposer other than tpe", async () => {
    const out = join(parent, 'cost');
    const lines: string[] = [];
    const base = { steps: 100, budgetS: 1.5, seed: 3, parallel: 1, out, print: (l: string) => lines.push(l) };
    await runDemo({ ...base, iterations: 1, resume: false, costAware: true });
    const config = () => JSON.parse(readFileSync(join(out, '.loop', 'loop.config.json'), 'utf8'));
    expect(config().proposer.costMetric).toBe('training_seconds');
    lines.length = 0;
    await runDemo({ out, resume: true, iterations: 2, print: (l) => lines.push(l) }); // no --cost-aware given
    expect(config().proposer.costMetric).toBe('training_seconds');
    expect(lines.some((l) => l.includes('proposer tpe (per training second)'))).toBe(true);
    await expect(
      runDemo({
        ...base,
        out: join(parent, 'cost-mutator'),
        iterations: 1,
        resume: false,
        costAware: true,
        proposer: 'mutator',
      }),
    ).rejects.toThrow('--cost-aware needs the tpe proposer');
  });

  it('refuses to create a workspace in a non-empty directory', async () => {
    await expect(
      runDemo({ iterations: 1, budgetS: 1, seed: 1, out: join(parent, 'run'), resume: false, print: () => {} }),
    ).rejects.toThrow(/is not empty; pass --resume/);
  });
});

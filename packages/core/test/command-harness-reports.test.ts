import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAlive } from '@loop/internal-test-utils';
import { createCommandHarness } from '../src/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loop-reports-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const pattern = '^step (\\d+) val ([\\w.+-]+)$';

describe("intermediate reports from a command's log (issue 27, real processes)", () => {
  it(
    'reports each matching line live, while the command still runs (it waits ' +
      'for a file the report callback writes)',
    async () => {
      // Without live reports the script would wait until the kill timeout and the run would time out.
      const script =
        'echo "step 100 val 3.5"\necho "noise"\necho "step 200 val 3.2"\nwhile [ ' +
        '! -f go ]; do sleep 0.05; done\necho "step 300 val 3.0"\n';
      await writeFile(join(dir, 'train.sh'), script);
      const harness = createCommandHarness({
        command: 'sh train.sh',
        cwd: dir,
        timeBudgetMs: 60_000,
        intermediate: { pattern, pollMs: 20 },
      });
      const reports: [number, number][] = [];
      const run = await harness.run({
        iteration: 1,
        signal: new AbortController().signal,
        report: (step, value) => {
          reports.push([step, value]);
          if (step === 200) void writeFile(join(dir, 'go'), '');
        },
      });
      expect(run.timedOut).toBe(false);
      expect(run.exitCode).toBe(0);
      expect(reports).toEqual([
        [100, 3.5],
        [200, 3.2],
        [300, 3],
      ]);
    },
  );

  it(
    "a report that aborts the run (a pruner's verdict) kills the whole tree, " +
      'a grandchild included, like a timeout',
    async () => {
      const script =
        'sleep 60 &\necho $! > grandchild.pid\ni=1\nwhile true; do echo "step ' +
        '$((i*100)) val 9"; i=$((i+1)); sleep 0.05; done\n';
      await writeFile(join(dir, 'train.sh'), script);
      const harness = createCommandHarness({
        command: 'sh train.sh',
        cwd: dir,
        timeBudgetMs: 60_000,
        graceMs: 200,
        intermediate: { pattern, pollMs: 20 },
      });
      const controller = new AbortController();
      const run = await harness.run({
        iteration: 1,
        signal: controller.signal,
        report: (step) => step >= 300 && controller.abort(),
      });
      expect(run.timedOut).toBe(false);
      expect(run.error).toBe('aborted');
      const pid = Number(await readFile(join(dir, 'grandchild.pid'), 'utf8'));
      expect(isAlive(pid)).toBe(false);
    },
  );

  it(
    'the last line without a newline is still read when the run ends, and a ' +
      'run without the option reports nothing',
    async () => {
      await writeFile(join(dir, 'train.sh'), 'printf "step 100 val nan"\n');
      const seen: number[] = [];
      await createCommandHarness({ command: 'sh train.sh', cwd: dir, intermediate: { pattern } }).run({
        iteration: 1,
        signal: new AbortController().signal,
        report: (_s, v) => seen.push(v),
      });
      expect(seen).toEqual([Number.NaN]);
      const none: number[] = [];
      await createCommandHarness({ command: 'sh train.sh', cwd: dir }).run({
        iteration: 1,
        signal: new AbortController().signal,
        report: (_s, v) => none.push(v),
      });
      expect(none).toEqual([]);
      expect(existsSync(join(dir, 'run.log'))).toBe(true);
    },
  );
});

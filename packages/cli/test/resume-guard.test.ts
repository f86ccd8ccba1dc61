// loop resume refuses to reset a config file (or a harness file) the user changed inside the
// workspace: in-process CLI on a real git repository, in the state an interrupted run leaves.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMutatorWorkspace, gitIn } from './fixtures/mutator-workspace.js';
import { runCliCaptured } from './fixtures/run-cli.js';
import { loadConfig } from '../src/load-config.js';
import { prepareRun } from '../src/prepare-run.js';

let ws: string;
const git = (...args: string[]) => gitIn(ws, ...args);
const loop = (...args: string[]) => runCliCaptured(ws, args);
const config = () => readFileSync(join(ws, 'loop.config.yaml'), 'utf8');
const rows = () => parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));

/** What a loop killed mid-iteration leaves: a candidate committed on the run branch, not in results.tsv. */
function interruptMidIteration(): void {
  writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: 7 }));
  git('commit', '-qam', 'auto-iterate: x 0 -> 7');
}

/** Everything a refused resume must leave as it was: HEAD, the branch, the working tree, no rescue ref. */
const snapshot = () => ({
  head: git('rev-parse', 'HEAD'),
  branch: git('rev-parse', '--abbrev-ref', 'HEAD'),
  status: git('status', '--porcelain'),
  config: config(),
  target: readFileSync(join(ws, 'config.json'), 'utf8'),
  refs: git('for-each-ref', 'refs/loop/discarded/'),
});

beforeEach(async () => {
  ws = await createMutatorWorkspace('loop-resume-guard-', { maxIterations: 1 });
  expect((await loop('run')).code).toBe(0);
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('loop resume: a changed config inside the workspace is never reset', () => {
  it(
    'an uncommitted edit of the config is refused with exit 2 naming the ' +
      'file and both ways on; nothing is reset; the config copied outside the ' +
      'workspace then resumes with the edit',
    async () => {
      interruptMidIteration();
      writeFileSync(join(ws, 'loop.config.yaml'), config().replace(/^maxIterations: 1$/m, 'maxIterations: 3'));
      const before = snapshot();
      const refused = await loop('resume');
      expect(refused.code).toBe(2);
      expect(refused.err).toContain(
        'error [CONFIG_INVALID]: [loop] [cli] loop resume would reset the config ' +
          'file loop.config.yaml: it differs from the last kept commit',
      );
      expect(refused.err).toContain(`set its dir: to ${ws}, then loop resume <the copy>`);
      expect(refused.err).toContain('git stash push -- loop.config.yaml');
      expect(refused.out).not.toContain('(resuming)');
      expect(snapshot()).toEqual(before);
      expect(config()).toContain('maxIterations: 3');

      // Way one: the config outside the workspace (dir: pointing at it) resumes with the edit.
      const outside = join(dirname(ws), `${ws.split('/').at(-1)}.yaml`);
      try {
        writeFileSync(outside, config().replace(/^dir: \.$/m, `dir: ${ws}`));
        const resumed = await runCliCaptured(dirname(ws), ['resume', outside]);
        expect(resumed.code).toBe(0);
        expect(git('for-each-ref', '--format=%(refname)', 'refs/loop/discarded/recovered')).toBe(
          'refs/loop/discarded/recovered',
        ); // the candidate was repaired
        expect(rows()).toHaveLength(4);
        expect(readFileSync(outside, 'utf8')).toContain('maxIterations: 3');
      } finally {
        rmSync(outside, { force: true });
      }
    },
  );

  it("a host's open() with resume (loop mcp) is refused the same way before it touches anything", async () => {
    interruptMidIteration();
    writeFileSync(join(ws, 'loop.config.yaml'), config().replace(/^maxIterations: 1$/m, 'maxIterations: 3'));
    const before = snapshot();
    const configured = prepareRun(await loadConfig(join(ws, 'loop.config.yaml')), {
      resume: true,
      onWarning: () => {},
    });
    await expect(configured.run.open()).rejects.toThrow('would reset the config file loop.config.yaml');
    expect(snapshot()).toEqual(before);
  });

  it(
    'an edit committed on the run branch after the last keep is refused too ' +
      '(the repair would reset that commit as an orphan)',
    async () => {
      writeFileSync(join(ws, 'loop.config.yaml'), config().replace(/^maxIterations: 1$/m, 'maxIterations: 3'));
      git('commit', '-qam', 'more iterations');
      const before = snapshot();
      const refused = await loop('resume');
      expect(refused.code).toBe(2);
      expect(refused.err).toContain('loop resume would reset the config file loop.config.yaml');
      expect(refused.err).toContain('committing it on the run branch is not enough');
      expect(snapshot()).toEqual(before);

      // Way two: the committed config, the change as a flag.
      git('reset', '-q', '--hard', 'HEAD~1');
      const resumed = await loop('resume', '--max-iterations', '3');
      expect(resumed.err).toBe('');
      expect(resumed.code).toBe(0);
      expect(rows()).toHaveLength(4);
    },
  );

  it(
    'a changed harness (read-only) file is refused the same way (exit 2), ' +
      'naming it and how to resume or start anew; nothing is reset',
    async () => {
      interruptMidIteration();
      writeFileSync(join(ws, 'eval.mjs'), `${readFileSync(join(ws, 'eval.mjs'), 'utf8')}// a fix\n`);
      const before = snapshot();
      const refused = await loop('resume');
      expect(refused.code).toBe(2);
      expect(refused.err).toContain(
        'loop resume would reset the harness (read-only) file(s) eval.mjs: it differs from the last kept commit',
      );
      expect(refused.err).toContain('git stash push -- eval.mjs; then loop resume');
      expect(snapshot()).toEqual(before);
      expect(readFileSync(join(ws, 'eval.mjs'), 'utf8')).toContain('// a fix');
    },
  );

  it(
    'an unchanged config and harness resume as before: the interrupted ' + 'candidate is repaired, the run goes on',
    async () => {
      interruptMidIteration();
      const resumed = await loop('resume', '--max-iterations', '2');
      expect(resumed.code).toBe(0);
      expect(git('for-each-ref', '--format=%(refname)', 'refs/loop/discarded/recovered')).toBe(
        'refs/loop/discarded/recovered',
      ); // the orphan candidate, saved
      expect(rows()).toHaveLength(3);
    },
  );
});

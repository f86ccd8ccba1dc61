// Issue 32 item 13: `loop run --new` starts a new run in a used workspace, archiving the earlier
// one under .loop/runs/<its tag>/; in-process on a real git repository with real processes.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { acquireLock } from '@loop/core/files';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMutatorWorkspace, gitIn } from './fixtures/mutator-workspace.js';
import { runCliCaptured } from './fixtures/run-cli.js';

let ws: string;
const git = (...args: string[]) => gitIn(ws, ...args);
const loop = (...args: string[]) => runCliCaptured(ws, args);
const tagOf = () => (JSON.parse(readFileSync(join(ws, '.loop', 'cli.json'), 'utf8')) as { tag: string }).tag;
/** Every file under `.loop/` and the results file, with its content, for "nothing was touched". */
const snapshot = () => {
  const files = [
    'results.tsv',
    ...readdirSync(join(ws, '.loop'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(ws.length + 1)),
  ];
  return Object.fromEntries(
    files.sort().map((f) => [f, existsSync(join(ws, f)) ? readFileSync(join(ws, f), 'utf8') : null]),
  );
};

beforeEach(async () => {
  ws = await createMutatorWorkspace('loop-new-', { maxIterations: 2 });
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('loop run --new (issue 32 item 13)', () => {
  it(
    'a second loop run in a used workspace is refused with RESUME_MISMATCH ' +
      'naming loop resume and loop run --new (not the API option)',
    async () => {
      expect((await loop('run')).code).toBe(0);
      const again = await loop('run');
      expect(again.code).toBe(1);
      expect(again.err).toContain('[RESUME_MISMATCH]');
      expect(again.err).toContain('continue it with "loop resume", or start a new run with "loop run --new"');
      expect(again.err).not.toContain('API: resume: true');
    },
    60_000,
  );

  it(
    'archives the finished run (results.tsv, state.json, cli.json, run.log) ' +
      'under .loop/runs/<its tag>/ and starts a new run with its own baseline ' +
      'and branch from the best kept commit',
    async () => {
      expect((await loop('run')).code).toBe(0);
      const first = tagOf();
      const firstRows = readFileSync(join(ws, 'results.tsv'), 'utf8');
      const firstState = readFileSync(join(ws, '.loop', 'state.json'), 'utf8');
      const best = git('rev-parse', 'HEAD');

      const second = await loop('run', '--new', '--max-iterations', '1');
      expect(second.err).toBe('');
      expect(second.code).toBe(0);
      expect(second.out).toMatch(
        new RegExp(
          `^archived the earlier run to \\.loop/runs/${first}/ \\(results\\.tsv, ` +
            `run\\.log, \\.loop/cli\\.json, .*\\.loop/state\\.json\\); starting a new ` +
            `run$`,
          'm',
        ),
      );
      const archive = join(ws, '.loop', 'runs', first);
      expect(readFileSync(join(archive, 'results.tsv'), 'utf8')).toBe(firstRows);
      expect(readFileSync(join(archive, 'state.json'), 'utf8')).toBe(firstState);
      expect(JSON.parse(readFileSync(join(archive, 'cli.json'), 'utf8'))).toMatchObject({ tag: first });
      // The new run: its own tag and branch, started from the earlier run's best kept commit.
      const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
      expect(rows).toHaveLength(2);
      expect(rows[0]!.status).toBe('baseline');
      expect(tagOf()).not.toBe(first);
      expect(git('merge-base', '--is-ancestor', best, 'HEAD')).toBe('');
      expect(git('branch', '--list', `auto-iterate/${first}`)).toContain(first); // the earlier branch stays
      expect(git('status', '--porcelain')).toBe('');
      // The new run resumes as itself.
      const resumed = await loop('resume', '--max-iterations', '2');
      expect(resumed.code).toBe(0);
      expect(parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'))).toHaveLength(3);
    },
    90_000,
  );

  it('refused with LOCK_HELD (exit 3) while a run holds the workspace: nothing is moved or changed', async () => {
    expect((await loop('run')).code).toBe(0);
    const before = snapshot();
    const head = git('rev-parse', 'HEAD');
    const lock = await acquireLock({ path: join(ws, '.git', 'loop-workspace') });
    try {
      const refused = await loop('run', '--new');
      expect(refused.code).toBe(3);
      expect(refused.err).toContain('[LOCK_HELD]');
    } finally {
      await lock.release();
    }
    expect(snapshot()).toEqual(before);
    expect(existsSync(join(ws, '.loop', 'runs'))).toBe(false);
    expect(git('rev-parse', 'HEAD')).toBe(head);
  }, 60_000);

  it(
    'refused, nothing moved, when the new run could not start: its branch ' +
      'exists (BRANCH_EXISTS) or the tree is dirty (DIRTY_WORKTREE)',
    async () => {
      expect((await loop('run')).code).toBe(0);
      const before = snapshot();
      const taken = await loop('run', '--new', '--tag', tagOf());
      expect(taken.code).toBe(1);
      expect(taken.err).toContain('[BRANCH_EXISTS]');
      expect(taken.err).toContain('Nothing was moved');
      writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: 2 }));
      const dirty = await loop('run', '--new');
      expect(dirty.err).toContain('[DIRTY_WORKTREE]');
      expect(snapshot()).toEqual(before);
    },
    60_000,
  );

  it(
    'refused, nothing moved, when the earlier run was killed mid-iteration ' +
      '(its branch tip is an unevaluated candidate): resume it first',
    async () => {
      expect((await loop('run')).code).toBe(0);
      writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: -9 }));
      git('commit', '-qam', 'auto-iterate: a candidate a kill left unevaluated');
      const before = snapshot();
      const refused = await loop('run', '--new');
      expect(refused.code).toBe(1);
      expect(refused.err).toContain('[RESUME_MISMATCH]');
      expect(refused.err).toContain('Run "loop resume" to put the last kept commit back');
      expect(snapshot()).toEqual(before);
    },
    60_000,
  );

  it(
    '--new on a workspace with no earlier run just starts one; --new on a ' + 'collie config is a usage error',
    async () => {
      const run = await loop('run', '--new');
      expect(run.code).toBe(0);
      expect(run.out).not.toContain('archived');
      writeFileSync(join(ws, 'collie.config.yaml'), 'x: 1\n');
      const usage = await loop('run', 'collie.config.yaml', '--new');
      expect(usage.code).toBe(2);
      expect(usage.err).toContain('--new applies to an auto-iterate config');
    },
    60_000,
  );
});

describe('loop run --new in the second the earlier run started', () => {
  it(
    "the new run's default tag (one-second resolution) gets -2 instead of " + "colliding with the earlier run's branch",
    async () => {
      const { prepareRun } = await import('../src/prepare-run.js');
      const { loadConfig } = await import('../src/load-config.js');
      const loaded = await loadConfig(join(ws, 'loop.config.yaml'));
      const now = Date.UTC(2026, 11, 4, 22, 1, 44);
      const earlier = prepareRun(loaded, { resume: false, now });
      expect((await earlier.run.run()).iterations).toBe(2);
      const again = prepareRun(loaded, { resume: false, now, startNew: true });
      expect(again.tag).toBe(`${earlier.tag}-2`);
      expect(await again.run.run()).toMatchObject({ iterations: 2 });
      expect(existsSync(join(ws, '.loop', 'runs', earlier.tag, 'results.tsv'))).toBe(true);
    },
    60_000,
  );
});

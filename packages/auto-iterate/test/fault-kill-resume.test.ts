// Issue 12 "Done when", at the auto-iterate level: a real auto-iterate run (baseline, a keep, a
// discard whose evaluation saves a user's file, a keep) in a child process is SIGKILLed at fs
// writes its git rollback makes (the write torn first), then `resume` in a fresh process
// finishes the run. Each time results.tsv and git agree: the rows are those of an uninterrupted
// run (each iteration once), HEAD is the last keep row's commit, git status and git fsck are
// clean, no lock file is left, and the user's file is in a commit under refs/loop/discarded/.
// A run makes about 90 such writes and each point costs a run and a resume (harness processes
// included), so this test kills at POINTS of them spread evenly over the run (the first and last
// included); packages/rollback-git/test/fault-injection.test.ts tries every write of the cycle.
//
// The child (test/fault-child.ts) is bundled once (tsup) so each child is a plain `node` start.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundleFixture, inPool, runChild, type ChildResult } from '@loop/internal-test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const POINTS = 16;
const packageDir = fileURLToPath(new URL('..', import.meta.url));
// On tmpfs where there is one: a SIGKILL keeps the page cache, so real fsyncs prove nothing more here.
const root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'loop-auto-iterate-faults-'));
let bundle = '';
let template = '';
afterAll(() => rmSync(root, { recursive: true, force: true }), 60_000);

const git = async (dir: string, ...args: string[]): Promise<string> =>
  (await run('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir })).stdout.trim();

const EVAL = `import { readFileSync, writeFileSync } from 'node:fs';
const { x } = JSON.parse(readFileSync('config.json', 'utf8'));
if (x === 9) writeFileSync('notes.txt', 'the user saved this while a discarded iteration ran\\n');
console.log('score: ' + ((x - 3) ** 2 + 1));
`;

beforeAll(async () => {
  const bundling = bundleFixture(join(packageDir, 'test/fault-child.ts'), join(root, 'bundle'), 'fault-child');
  template = join(root, 'template');
  await run('mkdir', ['-p', template]);
  writeFileSync(join(template, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(join(template, 'eval.mjs'), EVAL);
  await git(template, 'init', '-q', '-b', 'main');
  await git(template, 'add', '.');
  await git(template, 'commit', '-q', '-m', 'init');
  bundle = await bundling;
}, 120_000);

let counter = 0;
const workspace = (): string => {
  const dir = join(root, `ws-${(counter += 1)}`);
  cpSync(template, dir, { recursive: true });
  return dir;
};

const node = (args: string[]): Promise<ChildResult> =>
  runChild(process.execPath, [bundle, ...args], { cwd: packageDir });

const rowsOf = (dir: string): string[][] =>
  readFileSync(join(dir, 'results.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'));

function locksIn(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && (entry.name.endsWith('.lock') || entry.name.startsWith('tmp_obj_'))) out.push(entry.name);
  }
  return out;
}

/** How the resumed workspace disagrees with the uninterrupted run and with git; empty when it agrees. */
async function problems(dir: string, expected: string[][]): Promise<string[]> {
  const wrong: string[] = [];
  const rows = rowsOf(dir);
  const shape = (r: string[][]) => r.map(([, , status, description]) => `${status} ${description}`);
  if (shape(rows).join('|') !== shape(expected).join('|')) wrong.push(`rows ${shape(rows).join(' | ')}`);
  const lastKeep = [...rows].reverse().find((r) => r[2] === 'keep')?.[0];
  const head = (await git(dir, 'rev-parse', 'HEAD')).slice(0, 7);
  if (head !== lastKeep) wrong.push(`HEAD ${head}, last keep row ${lastKeep}`);
  const branch = await git(dir, 'symbolic-ref', 'HEAD');
  if (branch !== 'refs/heads/auto-iterate/fault') wrong.push(`HEAD on ${branch}`);
  const status = await git(dir, 'status', '--porcelain', '--untracked-files=all');
  if (status !== '') wrong.push(`git status: ${status}`);
  const fsck = await run('git', ['fsck', '--no-progress', '--no-dangling'], { cwd: dir }).then(
    (r) => r.stdout.trim() + r.stderr.trim(),
    (e: Error) => `fsck: ${e.message}`,
  );
  if (fsck !== '') wrong.push(fsck);
  const locks = locksIn(join(dir, '.git'));
  if (locks.length > 0) wrong.push(`left in .git: ${locks.join(', ')}`);
  const notes = await git(dir, 'log', '--all', '--format=%H', '--', 'notes.txt');
  if (notes === '') wrong.push('notes.txt is in no commit');
  return wrong;
}

describe('auto-iterate: a SIGKILL at every git write of a run, then resume in a fresh process', () => {
  it(
    '0 unrecoverable workspaces: results.tsv and git agree, each iteration ' +
      'recorded once, the tree clean, the user file kept',
    async () => {
      const cleanDir = workspace();
      const counted = await node(['count', cleanDir]);
      expect(counted.code, counted.stderr).toBe(0);
      const total = (JSON.parse(counted.stdout) as { writes: number }).writes;
      const expected = rowsOf(cleanDir);
      expect(expected.map((r) => r[2])).toEqual(['keep', 'keep', 'discard', 'keep']);
      expect(await problems(cleanDir, expected)).toEqual([]);

      const stride = Math.max(1, Math.ceil(total / (POINTS - 1)));
      const ats = [
        ...new Set([
          ...Array.from({ length: POINTS - 1 }, (_, i) => 1 + i * stride).filter((at) => at <= total),
          total,
        ]),
      ];
      const points = ats.map((at) => ({ at, dir: workspace() }));
      const outcomes = await inPool(
        3,
        points.map((p) => () => node(['kill', p.dir, String(p.at)])),
      );
      const killed = outcomes.filter((o) => o.signal === 'SIGKILL').length;
      // Not killed: the run made fewer writes than its point (the count varies by a few between runs).
      const shorter = outcomes.filter(
        (o, i) =>
          o.signal !== 'SIGKILL' &&
          o.code === 0 &&
          (JSON.parse(o.stdout || '{}') as { writes: number }).writes < points[i]!.at,
      ).length;
      const dirs = points.map((p) => p.dir);
      const resumed = (
        await Promise.all([0, 1, 2].map((k) => node(['resume', ...dirs.filter((_, i) => i % 3 === k)])))
      ).flatMap(
        (r) => JSON.parse(r.stdout || '[]') as Array<{ dir: string; ok: boolean; error?: string; repaired: string }>,
      );
      expect(resumed).toHaveLength(dirs.length);
      const byDir = new Map(resumed.map((r) => [r.dir, r]));
      const checks = await inPool(
        6,
        dirs.map((dir) => async () => {
          const r = byDir.get(dir)!;
          return r.ok ? problems(dir, expected) : [`resume failed: ${r.error}`];
        }),
      );
      const unrecoverable = points.map((p, i) => ({ at: p.at, wrong: checks[i]! })).filter((r) => r.wrong.length > 0);
      const repaired = resumed.filter((r) => r.repaired.includes('resume repaired:')).length;
      console.info(
        `[fault-injection] auto-iterate: ${total} git writes per run; SIGKILL ` +
          `at ${killed} of them (every ${stride}th: ${ats.join(', ')}); ${unrecoverable.length} ` +
          `unrecoverable; ${repaired} resumes printed a repair line`,
      );
      expect(unrecoverable).toEqual([]);
      expect(killed + shorter).toBe(points.length);
      expect(killed).toBeGreaterThanOrEqual(points.length - 2);
    },
    240_000,
  );
});

// `loop init --preset autotune`, then `loop run` and `loop status` on a real app repository: two
// tasks checked by an instant evaluate command; the improve command (a node script) fixes `add` at
// once and only ever writes wrong versions of `hard`, which is parked after 2 failed attempts.
// No code: the round worker is the config's two shell commands.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { runCliCaptured } from './fixtures/run-cli.js';

let ws: string;

const loop = (...args: string[]) => runCliCaptured(ws, args);

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, encoding: 'utf8' });

const EVAL =
  `import { readFileSync } from 'node:fs';
const load = async (id) => (await import(new URL('../tasks/' + id + '.mjs?' + Date.now(), ` +
  `import.meta.url).href)).default;
const tasks = [];
for (const [id, ok] of [['add', (f) => f(1, 2) === 3], ['hard', (f) => f() === 42]]) {
  let passed = false;
  try { passed = ok(await load(id)); } catch {}
  tasks.push({ id, passed, ...(passed ? {} : { detail: id + ' is wrong' }) });
}
console.log(JSON.stringify({ tasks, rationales: { hard: 'the answer is unknowable' } }));
`;
const FIX = `import { readFileSync, writeFileSync } from 'node:fs';
const { round, failing } = JSON.parse(readFileSync(0, 'utf8'));
if (failing.includes('add')) writeFileSync('tasks/add.mjs', 'export default (a, b) => a + b;\\n');
if (failing.includes('hard')) writeFileSync('tasks/hard.mjs', 'export default () => ' + round + ';\\n');
console.log(JSON.stringify({ summary: 'patch ' + failing.join(', '), targets: failing }));
`;

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'loop-preset-tune-'));
  mkdirSync(join(ws, 'tasks'));
  mkdirSync(join(ws, 'eval'));
  writeFileSync(join(ws, 'tasks', 'add.mjs'), 'export default (a, b) => a - b;\n');
  writeFileSync(join(ws, 'tasks', 'hard.mjs'), 'export default () => 0;\n');
  writeFileSync(join(ws, 'eval', 'run.mjs'), EVAL);
  writeFileSync(join(ws, 'fix.mjs'), FIX);
  writeFileSync(join(ws, '.gitignore'), 'projects/\n');
  git('init', '-q', '-b', 'main');
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('loop init --preset autotune, then loop run with no code', () => {
  it(
    'runs rounds of the two worker commands until the unfixable task is ' +
      'parked (stop_exhausted), one code commit per round',
    async () => {
      const init = await loop('init', '--preset', 'autotune');
      expect(init.code).toBe(0);
      const doc = parseDocument(readFileSync(join(ws, 'loop.config.yaml'), 'utf8'));
      doc.setIn(['worker', 'improveCommand'], 'node fix.mjs');
      doc.setIn(['maxFailedAttempts'], 2);
      writeFileSync(join(ws, 'loop.config.yaml'), doc.toString());
      git('add', '-A');
      git('commit', '-q', '-m', 'tasks and eval');

      const run = await loop('run');
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      expect(run.out).toMatch(/^round 1: /m);
      expect(run.out).toMatch(/^round 2: autotune loop complete after round 2: stop_exhausted/m);
      expect(run.out).toContain('status: complete (stop_exhausted');
      expect(readFileSync(join(ws, 'tasks', 'add.mjs'), 'utf8')).toBe('export default (a, b) => a + b;\n');
      expect(readFileSync(join(ws, 'eval', 'config', 'cannot_handle_group.txt'), 'utf8')).toContain('hard');
      expect(git('log', '--format=%s')).toMatch(/feat\(agent\): autotune round 1/);
      expect(git('status', '--porcelain', '--', 'tasks')).toBe('');

      const status = await loop('status', 'loop.config.yaml');
      expect(status.code).toBe(0);
      expect(status.out).toContain('status    complete (stop_exhausted');
      const again = await loop('resume');
      expect(again.code).toBe(0);
      expect(again.out).toContain('autotune loop complete');
    },
  );
});

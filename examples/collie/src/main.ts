import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { runExample } from './run-example.js';

const i = process.argv.indexOf('--dir');
const dir =
  i > 0 && process.argv[i + 1] ? resolve(process.argv[i + 1]!) : mkdtempSync(join(tmpdir(), 'collie-example-'));
if (existsSync(dir) && readdirSync(dir).length > 0) {
  console.error(
    `--dir ${dir} is not empty: the example starts a new repository and run ` +
      `there each time; pass a new or empty directory (or omit --dir for a temp ` +
      `one)`,
  );
  process.exit(2);
}
const t0 = Date.now();
const r = await runExample(dir);
const wall = ((Date.now() - t0) / 1000).toFixed(1);
const show = (title: string, text: string) => console.log(`\n── ${title}\n${text.trimEnd()}`);
show('status.md', readFileSync(join(r.runDir, 'status.md'), 'utf8'));
show('iter-1/triage.md', readFileSync(join(r.runDir, 'iter-1', 'triage.md'), 'utf8'));
show('iter-1/fix-plan.md', readFileSync(join(r.runDir, 'iter-1', 'fix-plan.md'), 'utf8'));
show(
  'iter-1/flow/FIX-001.flow.md (steps; full transcript in the file)',
  [
    ...readFileSync(join(r.runDir, 'iter-1', 'flow', 'FIX-001.flow.md'), 'utf8').matchAll(
      /^## .+$|^verdict: .+$|^exit code: .+$|^flow: .+$/gm,
    ),
  ]
    .map((m) => m[0])
    .join('\n'),
);
show('iter-1/audit.md', readFileSync(join(r.runDir, 'iter-1', 'audit.md'), 'utf8'));
show('iter-1/summary.md', readFileSync(join(r.runDir, 'iter-1', 'summary.md'), 'utf8'));
show(`git log ${r.worktree}`, execFileSync('git', ['log', '--format=%h %s'], { cwd: r.worktree, encoding: 'utf8' }));
show(
  'scorecard in the worktree',
  execFileSync(process.execPath, ['scripts/scorecard.js'], { cwd: r.worktree, encoding: 'utf8' }),
);
console.log(`\nrun wall time ${wall}s (${r.outcomes.length} steps); files in ${dir}`);

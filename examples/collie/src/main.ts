import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { runExample } from './run-example.js';

const i = process.argv.indexOf('--dir');
const dir = i > 0 && process.argv[i + 1] ? resolve(process.argv[i + 1]!) : mkdtempSync(join(tmpdir(), 'collie-example-'));
const r = await runExample(dir);
const show = (title: string, text: string) => console.log(`\n── ${title}\n${text.trimEnd()}`);
show('status.md', readFileSync(join(r.runDir, 'status.md'), 'utf8'));
show('iter-1/triage.md', readFileSync(join(r.runDir, 'iter-1', 'triage.md'), 'utf8'));
show('iter-1/fix-plan.md', readFileSync(join(r.runDir, 'iter-1', 'fix-plan.md'), 'utf8'));
show('iter-1/audit.md', readFileSync(join(r.runDir, 'iter-1', 'audit.md'), 'utf8'));
show('iter-1/summary.md', readFileSync(join(r.runDir, 'iter-1', 'summary.md'), 'utf8'));
show(`git log ${r.worktree}`, execFileSync('git', ['log', '--format=%h %s'], { cwd: r.worktree, encoding: 'utf8' }));
show('scorecard in the worktree', execFileSync(process.execPath, ['scripts/scorecard.js'], { cwd: r.worktree, encoding: 'utf8' }));
console.log(`\nfiles in ${dir}`);

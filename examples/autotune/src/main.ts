// The autotune example: `pnpm --filter @loop/example-autotune start [-- --dir <empty dir>]`.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { resolveAutotunePaths } from '@loop/autotune';
import { git, runExample } from './run-example.js';

const at = process.argv.indexOf('--dir');
const root =
  at >= 0 && process.argv[at + 1]
    ? resolve(process.argv[at + 1]!)
    : mkdtempSync(join(tmpdir(), 'loop-autotune-example-'));
console.log(`workspace: ${root}`);

const { dir, artifactDir, results } = await runExample(root, (r) => console.log(`[iteration] ${r.report}`));
const last = results[results.length - 1]!;
const paths = resolveAutotunePaths(dir, artifactDir);
console.log(`\nfinal status: ${last.state.status} (${last.state.last_round?.recommended_action})`);
console.log(`parked tasks: ${last.state.last_round?.parked.join(', ') || '(none)'}`);
console.log(`\n--- ${paths.exclusions}\n${readFileSync(paths.exclusions, 'utf8')}`);
console.log(`--- ${paths.issues}\n${readFileSync(paths.issues, 'utf8')}`);
console.log(`--- app repository commits\n${await git(dir, 'log', '--format=%s')}\n`);
console.log(`--- artifact workspace commits\n${await git(artifactDir, 'log', '--format=%s')}\n`);

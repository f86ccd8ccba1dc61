// The autoresearch example: `npx -y pnpm@12.4.2 --filter @loop/example-autoresearch start [-- --dir <new dir>]`.
// Each run gets a fresh workspace (default: examples/autoresearch/.runs/<UTC stamp>/); the template is never touched.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MODULE, runExample } from './run-example.js';

const at = process.argv.indexOf('--dir');
const stamp = new Date()
  .toISOString()
  .replace(/[-:]/g, '')
  .replace(/\.\d+Z$/, 'Z');
const workspace =
  at >= 0 && process.argv[at + 1] ? resolve(process.argv[at + 1]!) : join(import.meta.dirname, '..', '.runs', stamp);
console.log(`workspace: ${workspace}\n`);

const { result } = await runExample(workspace, { output: (line) => console.log(line) });
console.log(`\n--- ${result.resultsPath}\n${readFileSync(result.resultsPath, 'utf8')}`);
console.log(
  `--- ${MODULE} (best kept version, restored: ${result.bestId})\n${readFileSync(join(workspace, MODULE), 'utf8')}`,
);

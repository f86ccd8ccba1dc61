// Runs the example: a fresh git workspace in a temp folder, then 20 iterations of a host that makes
// its own edits through ask/tell. Usage: main.ts [iterations] (default 20).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { edit } from './edits.js';
import { hostLoop } from './host.js';
import { createWorkspace } from './workspace.js';

const iterations = Number(process.argv[2] ?? 20);
const dir = createWorkspace(mkdtempSync(join(tmpdir(), 'loop-agent-host-')));
const summary = await hostLoop(dir, iterations, (iteration) => edit(dir, iteration));
console.log(
  `stopped: ${summary.stop.reason}; best ${summary.best} after ${summary.iterations} iterations; workspace ${dir}`,
);

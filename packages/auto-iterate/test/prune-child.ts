// The child process of the pruning kill test (prune-kill-resume.test.ts).
//   node prune-child.mjs kill <dir>     runs with pruning and SIGKILLs itself at the first `pruned` event
//   node prune-child.mjs resume <dir>   resumes the run (a fresh process) and prints {"ok": true}
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFunctionProposer } from '@loop/core';
import { incumbentCurvePruner } from '@loop/core/policies';
import { createAutoIterate } from '../src/index.js';

const [command, dir] = process.argv.slice(2) as [string, string];
const RATES = [2, 0.1, 3];
const run = createAutoIterate({
  dir,
  tag: 'prune-kill',
  files: { targetFiles: ['config.json'], readOnlyFiles: ['train.mjs'] },
  run: {
    command: `${JSON.stringify(process.execPath)} train.mjs`,
    timeBudgetS: 30,
    killTimeoutS: 60,
    intermediate: { pattern: '^step (\\d+) val ([\\w.+-]+)$', pollMs: 10 },
  },
  score: { metricName: 'score', direction: 'minimize' },
  stop: { maxIterations: RATES.length },
  recovery: { resume: command === 'resume' },
  prune: { pruners: [incumbentCurvePruner({ margin: 0.1, warmupSteps: 200 })], steps: 1000 },
  proposer: createFunctionProposer('scripted', ({ iteration }) => {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ rate: RATES[iteration - 1] }));
    return { description: `rate -> ${RATES[iteration - 1]}` };
  }),
});
if (command === 'kill') run.loop.on('pruned', () => process.kill(process.pid, 'SIGKILL'));
await run.run();
process.stdout.write(JSON.stringify({ ok: true }));

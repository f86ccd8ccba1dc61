// The host process of kill-resume.test.ts: drives the example's host loop on <dir> and, at
// iteration <at>, asks, makes its edit, prints `READY <at>` and waits (between ask and tell) for
// the test to SIGKILL it.   node --import tsx --conditions=source host-child.ts <dir> <at>
import { edit } from '../src/edits.js';
import { hostLoop } from '../src/host.js';

const [dir, at] = [process.argv[2]!, Number(process.argv[3])];
setInterval(() => {}, 60_000); // stay alive while the trial is open
await hostLoop(
  dir,
  20,
  (iteration) => {
    const description = edit(dir, iteration);
    if (iteration < at) return description;
    process.stdout.write(`READY ${iteration}\n`);
    return new Promise<string>(() => {});
  },
  { onRow: () => {} },
);

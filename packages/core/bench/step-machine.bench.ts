/**
 * Step machine benchmark: what exactly-once costs. The same three-step pipeline (three whole-file
 * atomic writes, one per step) run two ways in the same process, on the same disk:
 *
 * - baseline: the three `writeTextAtomic` calls in a row (durable writes, no recovery);
 * - machine: the same writes as effects of a `createStepMachine` run (plus the lock, the journal
 *   reset, an fsynced intent and done line per effect and a cursor write per transition).
 *
 * Reported: median (min-max) time per pipeline and the machine / baseline ratio per cycle (the two
 * interleaved), with the load. Run:
 * `tsx --conditions=source packages/core/bench/step-machine.bench.ts` (BENCH_DIR picks the disk).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatRatio, formatTime, interleave, loadLine, pairRatios, timeOf } from '@loop/internal-test-utils/bench';
import { writeTextAtomic } from '../src/files.js';
import { createStepMachine } from '../src/step-machine.js';

const root = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'loop-step-bench-'));
const files = ['a.txt', 'b.txt', 'c.txt'].map((f) => join(root, f));
let n = 0;

const machine = createStepMachine<{ n: number }>({
  name: 'bench',
  dir: join(root, '.machine'),
  start: 's0',
  steps: {
    s0: async (ctx) => (
      await ctx.effect('w', () => writeTextAtomic(files[0]!, `${ctx.data.n}\n`), { idempotent: true }),
      { next: 's1' }
    ),
    s1: async (ctx) => (
      await ctx.effect('w', () => writeTextAtomic(files[1]!, `${ctx.data.n}\n`), { idempotent: true }),
      { next: 's2' }
    ),
    s2: async (ctx) => (
      await ctx.effect('w', () => writeTextAtomic(files[2]!, `${ctx.data.n}\n`), { idempotent: true }),
      { finish: true }
    ),
  },
});

// Interleaved (issue 31): each cycle runs both once; the ratio is per cycle.
const result = await interleave(
  {
    'baseline: 3 atomic writes': async () => {
      n += 1;
      for (const f of files) await writeTextAtomic(f, `${n}\n`);
    },
    'machine: 3 steps, 1 effect each': async () => {
      n += 1;
      await machine.run(() => ({ n }));
    },
  },
  { cycles: 50, warmup: 5 },
);
console.log(loadLine(result.load));
console.log(
  `baseline ${formatTime(timeOf(result, 'baseline: 3 atomic writes'), 2)}, ` +
    `machine ${formatTime(timeOf(result, 'machine: 3 steps, 1 effect each'), 2)} ` +
    `per pipeline: ratio per ` +
    `cycle ${formatRatio(pairRatios(result, 'machine: 3 steps, 1 effect each', 'baseline: 3 atomic writes'))}`,
);
rmSync(root, { recursive: true, force: true });

// A small durable pipeline over real files, shared by the in-process fault tests and the kill -9
// child process (kill-child.ts). Three steps, four effects:
//   prepare: `ledger` (append a line: not idempotent, reconciled by reading the ledger),
//            `config` (overwrite a file with the same bytes: idempotent)
//   publish: `counter` (read-increment-write a counter: reconciled by the ledger),
//            `ledger-2` (append a second line: reconciled)
//   close:   `summary` (write summary.txt from the data: idempotent), then finish.
// ledger.txt gets one line per real run of a non-idempotent effect, so "exactly once" is countable.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createStepMachine, type EffectOptions, type StepMachine, type StepMachineHooks } from '../step-machine.js';

/** The data the steps carry. */
export interface WorldData {
  readonly label: string;
  readonly results: readonly string[];
}

const ledgerLines = (world: string): string[] =>
  existsSync(join(world, 'ledger.txt'))
    ? readFileSync(join(world, 'ledger.txt'), 'utf8').split('\n').filter(Boolean)
    : [];

/** Appends `line` to the ledger once; reconciled by looking for it. */
function ledgerEffect(world: string, line: string): [() => string, EffectOptions<string>] {
  return [
    () => {
      appendFileSync(join(world, 'ledger.txt'), `${line}\n`);
      return `logged ${line}`;
    },
    {
      reconcile: () => (ledgerLines(world).includes(line) ? { done: true, result: `logged ${line}` } : { done: false }),
    },
  ];
}

/** The machine over the world directory `world`, its state in `<world>/.machine`. */
export function createWorldMachine(world: string, hooks?: StepMachineHooks): StepMachine<WorldData> {
  return createStepMachine<WorldData>({
    name: 'world',
    dir: join(world, '.machine'),
    start: 'prepare',
    hooks,
    steps: {
      prepare: async (ctx) => {
        const a = await ctx.effect('ledger', ...ledgerEffect(world, `prepare ${ctx.data.label}`));
        const b = await ctx.effect(
          'config',
          () => (
            writeFileSync(join(world, 'config.json'), JSON.stringify({ label: ctx.data.label })),
            'config written'
          ),
          { idempotent: true },
        );
        return { next: 'publish', data: { ...ctx.data, results: [...ctx.data.results, a, b] } };
      },
      publish: async (ctx) => {
        const counterPath = join(world, 'counter.txt');
        const c = await ctx.effect(
          'counter',
          () => {
            const n = existsSync(counterPath) ? Number(readFileSync(counterPath, 'utf8')) : 0;
            writeFileSync(counterPath, String(n + 1));
            appendFileSync(join(world, 'ledger.txt'), 'counter\n');
            return n + 1;
          },
          {
            reconcile: () =>
              ledgerLines(world).includes('counter')
                ? { done: true as const, result: Number(readFileSync(counterPath, 'utf8')) }
                : { done: false as const },
          },
        );
        const d = await ctx.effect('ledger-2', ...ledgerEffect(world, `publish ${c}`));
        return { next: 'close', data: { ...ctx.data, results: [...ctx.data.results, `counter ${c}`, d] } };
      },
      close: async (ctx) => {
        await ctx.effect(
          'summary',
          () => writeFileSync(join(world, 'summary.txt'), `${ctx.data.results.join('\n')}\n`),
          { idempotent: true },
        );
        return { finish: true };
      },
    },
  });
}

/** The world's files (the machine's own state excluded), for comparing end states. */
export function worldFiles(world: string): Record<string, string | null> {
  const names = ['ledger.txt', 'config.json', 'counter.txt', 'summary.txt'];
  return Object.fromEntries(
    names.map((n) => [n, existsSync(join(world, n)) ? readFileSync(join(world, n), 'utf8') : null]),
  );
}

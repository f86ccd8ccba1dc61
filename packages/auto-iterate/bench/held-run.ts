// An auto-iterate run held at each `propose` call (the change-detection bench).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFunctionProposer } from '@loop/core';
import { createAutoIterate, type AutoIterate } from '../src/index.js';

/** A held run: `step(n)` lets one iteration that edits `n` of its target files through. */
export interface HeldRun {
  readonly rollback: AutoIterate['rollback'];
  step(count: number): Promise<void>;
  stop(): Promise<void>;
}

let counter = 0;

/**
 * Starts an auto-iterate run over `targets` in `dir` (an instant `echo` harness, no stop) and holds it at its
 * first `propose`.
 */
export async function startHeldRun(
  dir: string,
  targets: readonly string[],
  options: { watch?: boolean } = {},
): Promise<HeldRun> {
  let go: ((count: number) => void) | undefined;
  let arrived: (() => void) | undefined;
  let arrival = new Promise<void>((resolve) => (arrived = resolve));
  const controller = new AbortController();
  const proposer = createFunctionProposer('bench', async () => {
    const count = await new Promise<number>((resolve) => {
      go = resolve;
      arrived!();
    });
    counter += 1;
    for (const t of targets.slice(0, count)) writeFileSync(join(dir, t), `edit ${counter}\n`);
    return { description: `edit ${count}` };
  });
  const run = createAutoIterate({
    dir,
    tag: 'bench',
    files: { targetFiles: [...targets], ...(options.watch !== undefined ? { watch: options.watch } : {}) },
    run: { command: 'echo "score: 1"', timeBudgetS: 60, killTimeoutS: 90 },
    score: { metricName: 'score', direction: 'minimize' },
    stop: { maxIterations: 0 },
    proposer,
    signal: controller.signal,
  });
  const done = run.run();
  await arrival;
  return {
    rollback: run.rollback,
    step: async (count) => {
      arrival = new Promise<void>((resolve) => (arrived = resolve));
      go!(count);
      await arrival;
    },
    stop: async () => {
      controller.abort();
      go!(0);
      await done.catch(() => undefined);
    },
  };
}

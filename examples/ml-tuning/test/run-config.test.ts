import { describe, expect, it } from 'vitest';
import { demoLoopConfig } from '../src/run-config.js';

const settings = {
  tag: 't',
  iterations: 2,
  steps: 100,
  budgetS: 1,
  seed: 1,
  proposer: 'tpe' as const,
  space: { lr: { min: 0.001, max: 0.1, scale: 'log' } },
  keep: 'strict' as const,
  repeats: 10,
  parallel: 1,
};

describe('the demo as a loop config (issue 28)', () => {
  it(
    'records the parameter count and the training seconds as metrics of ' +
      'every row; --max-params adds the blocking constraint params <= N',
    () => {
      expect(demoLoopConfig(settings)).toMatchObject({ metrics: ['params', 'training_seconds'], constraints: [] });
      expect(demoLoopConfig({ ...settings, maxParams: 5000 }).constraints).toEqual(['params <= 5000']);
    },
  );
});

import type { KeepPolicy, StopPolicy } from '@loop/core';
import { describe, expect, it } from 'vitest';
import type { AutoiterOptions } from './autoiter-options.js';
import { normalizeAutoiterOptions } from './deprecated-options.js';

const base = {
  projectId: 'p',
  sessionId: 's',
  projectDir: '/p',
  task: 't',
  agent: { name: 'a', run: async () => ({ text: '' }) },
  asker: { name: 'q', ask: () => ({ Q1: '', Q2: '', Q3: '', Q4: '', Q5: '' }) },
} as unknown as AutoiterOptions;

describe('normalizeAutoiterOptions (the one place the flat names of 0.1 are read)', () => {
  it('moves every deprecated flat name into its group and leaves the rest alone', () => {
    const keepPolicy: KeepPolicy = { name: 'k', decide: () => ({ keep: true }) } as unknown as KeepPolicy;
    const stop: StopPolicy = { name: 's', check: () => undefined };
    const createHarness = () => ({}) as never;
    const flat: AutoiterOptions = {
      ...base,
      stateRoot: '/state',
      scalarExtraction: 'x',
      maxIterations: 2,
      maxTokens: 10,
      maxWallclockMin: 3,
      createHarness,
      deepVerifyConcurrency: 1,
      blockingPatterns: ['boom'],
      monitorIntervalMs: 50,
      killGraceMs: 10,
      guards: [],
      keepPolicy,
      stop,
      userStopStatus: 'escalated',
      triggerSandbox: { sandbox: 'none' },
      lockStaleMs: 5000,
    };
    expect(normalizeAutoiterOptions(flat)).toEqual({
      ...base,
      files: { stateRoot: '/state' },
      score: { scalarExtraction: 'x' },
      stop: { maxIterations: 2, maxTokens: 10, maxWallclockMin: 3, policy: stop, policyStatus: 'escalated' },
      run: {
        createHarness,
        blockingPatterns: ['boom'],
        monitorIntervalMs: 50,
        killGraceMs: 10,
        sandbox: { sandbox: 'none' },
      },
      parallel: { deepVerify: 1 },
      keep: { guards: [], policy: keepPolicy },
      recovery: { lockStaleMs: 5000 },
    });
  });

  it('merges a flat name into a group given for other fields, and keeps grouped options as they are', () => {
    expect(normalizeAutoiterOptions({ ...base, maxIterations: 2, stop: { maxTokens: 5 } })).toEqual({
      ...base,
      stop: { maxTokens: 5, maxIterations: 2 },
    });
    const grouped: AutoiterOptions = { ...base, run: { killGraceMs: 1 }, stop: { maxIterations: 1 } };
    expect(normalizeAutoiterOptions(grouped)).toEqual(grouped);
  });

  it('names every clash at once: each flat name with its grouped place', () => {
    expect(() =>
      normalizeAutoiterOptions({
        ...base,
        stateRoot: '/a',
        files: { stateRoot: '/b' },
        lockStaleMs: 1,
        recovery: { lockStaleMs: 2 },
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringMatching(
          /stateRoot and files\.stateRoot are both set.*lockStaleMs and recovery\.lockStaleMs/,
        ),
      }),
    );
  });
});

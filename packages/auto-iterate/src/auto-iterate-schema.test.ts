import { describe, expect, it } from 'vitest';
import { ConfigError, maxIterations, strictImprovement } from '@loop/core';
import type { AutoIterateOptions } from './auto-iterate-options.js';
import { normalizeAutoIterateOptions } from './auto-iterate-schema.js';

const dir = '/tmp/workspace';
const required = {
  dir,
  files: { targetFiles: ['config.json'] },
  run: { command: 'node train.mjs' },
  score: { metricName: 'val_bpc' },
} satisfies AutoIterateOptions;

const configError = (options: AutoIterateOptions): ConfigError => {
  try {
    normalizeAutoIterateOptions(options);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('AutoIterateOptions groups', () => {
  it('files: targets, read-only and harness files, results.tsv, the run log and its copies, their defaults', () => {
    expect(normalizeAutoIterateOptions(required).options.files).toEqual({
      targetFiles: ['config.json'],
      readOnlyFiles: [],
      harnessFiles: [],
      fingerprintPaths: [],
      resultsFile: 'results.tsv',
      logFile: 'run.log',
      keepLogs: 100,
      watch: true,
      allowDirty: false,
    });
    const files = {
      targetFiles: ['a.json'],
      readOnlyFiles: ['b.mjs'],
      resultsFile: 'r.tsv',
      keepLogs: 0,
      watch: false,
    };
    expect(normalizeAutoIterateOptions({ ...required, files }).options.files).toMatchObject(files);
    expect(configError({ ...required, files: { targetFiles: ['a'], readOnlyFiles: ['a'] } }).issues).toEqual([
      { path: 'files.readOnlyFiles', message: 'a file cannot be both a target and read-only' },
    ]);
  });

  it('run: the command, its time budget and kill timeout in seconds, env, baseline repeats', () => {
    expect(normalizeAutoIterateOptions(required).options.run).toEqual({
      command: 'node train.mjs',
      timeBudgetS: 300,
      killTimeoutS: 600,
      env: {},
    });
    const run = { command: 'make', timeBudgetS: 60, killTimeoutS: 90, env: { A: '1' }, baselineRepeats: 3 };
    expect(normalizeAutoIterateOptions({ ...required, run }).options.run).toEqual(run);
    expect(configError({ ...required, run: { command: 'make', timeBudgetS: 60, killTimeoutS: 30 } }).issues[0]).toEqual(
      {
        path: 'run.killTimeoutS',
        message: 'killTimeoutS must be at least timeBudgetS',
      },
    );
  });

  it("score: direction is 'minimize' | 'maximize', and the seed's 'lower' | 'higher' mean the same", () => {
    expect(normalizeAutoIterateOptions(required).options.score).toEqual({
      metricName: 'val_bpc',
      direction: 'minimize',
      match: 'last',
    });
    const direction = (d: 'minimize' | 'maximize' | 'lower' | 'higher') =>
      normalizeAutoIterateOptions({ ...required, score: { metricName: 'acc', direction: d } }).options.score.direction;
    expect([direction('minimize'), direction('lower'), direction('maximize'), direction('higher')]).toEqual([
      'minimize',
      'minimize',
      'maximize',
      'maximize',
    ]);
  });

  it('keep: policy, constraints, guards, checks and seed-only detection (on by default)', () => {
    expect(normalizeAutoIterateOptions(required).options.keep).toEqual({
      constraints: [],
      guards: [],
      seedOnly: { seedKeys: [] },
    });
    const policy = strictImprovement();
    const keep = normalizeAutoIterateOptions({
      ...required,
      keep: { policy, checks: { command: 'npm test' }, seedOnly: false },
    }).options.keep;
    expect(keep).toMatchObject({
      policy,
      checks: { command: 'npm test', timeoutS: 300, onFail: 'reject' },
      seedOnly: false,
    });
  });

  it('stop: max iterations (0: until interrupted), no-change stop at 5, budgets and a policy of your own', () => {
    expect(normalizeAutoIterateOptions(required).options.stop).toEqual({ maxIterations: 0, stopAfterNoChange: 5 });
    const policy = maxIterations(3);
    const stop = {
      maxIterations: 20,
      plateau: 4,
      targetScore: 1,
      wallClockS: 60,
      costBudget: 2,
      tokenBudget: 1000,
      policy,
    };
    expect(normalizeAutoIterateOptions({ ...required, stop }).options.stop).toEqual({ ...stop, stopAfterNoChange: 5 });
  });

  it('recovery: resume, repair attempts and the circuit breaker thresholds (seed 001 / 003 defaults)', () => {
    expect(normalizeAutoIterateOptions(required).options.recovery).toEqual({
      resume: false,
      maxRepairAttempts: 2,
      pauseAfterCrashes: 3,
      cooldownAfterDiscards: 5,
      notifyAfterDiscards: 10,
    });
    const recovery = {
      resume: true,
      maxRepairAttempts: 0,
      pauseAfterCrashes: 1,
      cooldownAfterDiscards: 2,
      notifyAfterDiscards: 3,
    };
    expect(normalizeAutoIterateOptions({ ...required, recovery }).options.recovery).toEqual(recovery);
  });

  it('a missing required field is CONFIG_INVALID naming its grouped place', () => {
    const paths = configError({ dir } as AutoIterateOptions).issues.map((i) => i.path);
    expect(paths).toEqual(['files.targetFiles', 'run.command', 'score.metricName']);
  });
});

describe('deprecated flat AutoIterateOptions names', () => {
  it('the flat names of earlier versions still work: they normalise to the same grouped options', () => {
    const policy = strictImprovement();
    const stopPolicy = maxIterations(9);
    const flat: AutoIterateOptions = {
      dir,
      targetFiles: ['config.json'],
      readOnlyFiles: ['prepare.mjs'],
      runCommand: 'node train.mjs',
      timeBudgetS: 60,
      killTimeoutS: 120,
      harnessSandbox: { sandbox: 'none' },
      metricName: 'val_bpc',
      direction: 'higher',
      keepPolicy: policy,
      maxIterations: 20,
      stop: stopPolicy,
      resume: true,
      notifyAfterDiscards: 4,
    };
    const grouped: AutoIterateOptions = {
      dir,
      files: { targetFiles: ['config.json'], readOnlyFiles: ['prepare.mjs'] },
      run: { command: 'node train.mjs', timeBudgetS: 60, killTimeoutS: 120, sandbox: { sandbox: 'none' } },
      score: { metricName: 'val_bpc', direction: 'maximize' },
      keep: { policy },
      stop: { maxIterations: 20, policy: stopPolicy },
      recovery: { resume: true, notifyAfterDiscards: 4 },
    };
    expect(normalizeAutoIterateOptions(flat).options).toEqual(normalizeAutoIterateOptions(grouped).options);
  });

  it('a flat name and its grouped place at once is CONFIG_INVALID naming both', () => {
    const error = configError({
      ...required,
      runCommand: 'make',
      timeBudgetS: 5,
      run: { command: 'node x.mjs', timeBudgetS: 5 },
    });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.issues.map((i) => i.path)).toEqual(['run.command', 'run.timeBudgetS']);
    expect(error.message).toMatch(/as run\.command and as runCommand \(deprecated\)/);
  });

  it('pathOf names a grouped path the way it was given (the CLI maps a missing target file to its config line)', () => {
    const flat = { dir, targetFiles: ['a.json'], runCommand: 'make', metricName: 'm' };
    expect(normalizeAutoIterateOptions(flat).pathOf('files.targetFiles.0')).toBe('targetFiles.0');
    expect(normalizeAutoIterateOptions(required).pathOf('files.targetFiles.0')).toBe('files.targetFiles.0');
  });

  it('an invalid value under a flat name is reported under the flat name (the CLI maps it to its config line)', () => {
    const error = configError({
      dir,
      targetFiles: ['.git/config'],
      runCommand: 'make',
      metricName: 'm',
      timeBudgetS: -1,
    });
    expect(error.issues.map((i) => i.path).sort()).toEqual(['targetFiles.0', 'timeBudgetS']);
  });
});

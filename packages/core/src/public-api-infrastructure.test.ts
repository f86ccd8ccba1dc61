// The public names of each of core's entries: a change to a list is a deliberate change of the API.
import { fileURLToPath } from 'node:url';
import { undocumentedExports } from '@loop/internal-test-utils';
import { describe, expect, it } from 'vitest';

const entry = (name: string): string => fileURLToPath(new URL(`./${name}.ts`, import.meta.url));

describe("core's process, file, statistics and step-machine entries", () => {
  it('@loop/core/process exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(entry('process'));
    expect([...exports].sort()).toEqual([
      'BwrapStatus',
      'DEFAULT_MAX_FOLDER_ENTRIES',
      'GroupRunOptions',
      'GroupRunResult',
      'RUN_TOKENS_ENV',
      'RUN_TOKEN_ENV',
      'SandboxBinds',
      'SandboxFolder',
      'SandboxMode',
      'SandboxOptions',
      'SandboxPlan',
      'SandboxSpec',
      'SandboxSweep',
      'bwrapArgv',
      'bwrapStatus',
      'describeExit',
      'killGroup',
      'killOrphanGroup',
      'killOrphanGroups',
      'pidsWithToken',
      'planSandbox',
      'planSandboxBinds',
      'resolveSandboxMode',
      'runInGroup',
      'runInGroupToLog',
      'sandboxMaskArgs',
      'sandboxOptionsFields',
      'sweepSandboxFolders',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
  it('@loop/core/files exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(entry('files'));
    expect([...exports].sort()).toEqual([
      'AcquireLockOptions',
      'RecordDataOptions',
      'WorkspaceLock',
      'acquireLock',
      'appendDurable',
      'isLocked',
      'readJson',
      'readRecordData',
      'sanitizeCell',
      'syncDirectory',
      'withRecordData',
      'writeJsonAtomic',
      'writeTextAtomic',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
  it('@loop/core/stats exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(entry('stats'));
    expect([...exports].sort()).toEqual([
      'ComparisonResult',
      'RandomSource',
      'SampleSummary',
      'WilcoxonResult',
      'bootstrapMeanDifference',
      'createSeededRandom',
      'median',
      'normalCdf',
      'regularizedIncompleteBeta',
      'studentTCdf',
      'studentTQuantile',
      'summarizeSamples',
      'welchTest',
      'wilcoxonSignedRank',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
  it('@loop/core/step-machine exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(entry('step-machine'));
    expect([...exports].sort()).toEqual([
      'EffectOptions',
      'JournalRecord',
      'StepContext',
      'StepCursor',
      'StepFunction',
      'StepMachine',
      'StepMachineHooks',
      'StepMachineOptions',
      'StepRunResult',
      'StepTransition',
      'StepWritePoint',
      'createStepMachine',
      'journalRecordSchema',
      'readJournal',
      'readStepCursor',
      'stepCursorSchema',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
});

// The public names of @loop/workers-bullmq: adding or removing one is a deliberate change (issue 30).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { undocumentedExports } from '@loop/internal-test-utils';

describe('@loop/workers-bullmq public entries', () => {
  it(
    '@loop/workers-bullmq: the entry exports exactly these names, each with ' + 'TSDoc (a change here is deliberate)',
    () => {
      const { exports, undocumented } = undocumentedExports(fileURLToPath(new URL('./index.ts', import.meta.url)));
      expect([...exports].sort()).toEqual([
        'CandidateJob',
        'CreateWorkerOptions',
        'DEFAULT_QUEUE',
        'EvaluationOutcome',
        'EvaluationQueue',
        'EvaluationQueueEvent',
        'EvaluationQueueOptions',
        'HarnessSpec',
        'JOB_FORMAT',
        'JobResult',
        'LoopWorker',
        'RemoteHarnessOptions',
        'RemoteWorkingCopiesOptions',
        'WorkerEvent',
        'WorkerIdentity',
        'WorkerSeen',
        'createEvaluationQueue',
        'createRemoteHarness',
        'createRemoteWorkingCopies',
        'createWorker',
        'evaluationQueueOptionsSchema',
        'remoteHarnessOptionsSchema',
        'runWorkerCommand',
        'workerOptionsSchema',
      ]);
      expect(undocumented).toEqual([]);
    },
    120_000,
  );
});

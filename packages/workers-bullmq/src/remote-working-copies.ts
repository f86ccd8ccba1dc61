import { type WorkingCopyProvider } from '@loop/core';
import { createDirectoryWorkingCopies, type DirectoryWorkingCopiesOptions } from '@loop/core/artifacts';
import { createRemoteHarness, type RemoteHarnessOptions } from './remote-harness.js';

/** Options of {@link createRemoteWorkingCopies}. */
export interface RemoteWorkingCopiesOptions
  extends Omit<DirectoryWorkingCopiesOptions, 'harness'>, Omit<RemoteHarnessOptions, 'root' | 'k' | 'repository'> {
  /** Absolute path of the coordinator's git repository (HEAD = the incumbent). @default root */
  repository?: string;
}

/**
 * Parallel candidates evaluated on remote workers: core's directory working copies (the proposer
 * edits a local temporary copy of the workspace, the winner is adopted back), each with a
 * {@link createRemoteHarness} over its copy, so `parallel: { candidates: K, workingCopies }`
 * sends each of the K candidates as one job and up to K workers evaluate them at once. The
 * engine, the keep policy, the rows and the git history stay on the coordinator.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options (names the field).
 * @example
 * const queue = createEvaluationQueue({ redis: 'redis://127.0.0.1:6379' });
 * const workingCopies = createRemoteWorkingCopies({ root, mutable: ['train.py'], queue, runId: 'nov30',
 *   harness: { command: 'python train.py', timeBudgetMs: 300_000, fingerprintFiles: ['prepare.py'] } });
 * createLoop({ ..., parallel: { candidates: 4, workingCopies } });
 */
export function createRemoteWorkingCopies(options: RemoteWorkingCopiesOptions): WorkingCopyProvider {
  const { queue, remote, harness, runId, configDigest, clock, repository, keepLogs, ...copies } = options;
  const provider = createDirectoryWorkingCopies({
    ...copies,
    harness: (dir, { k }) =>
      createRemoteHarness({
        queue,
        root: dir,
        repository: repository ?? copies.root,
        mutable: copies.mutable,
        harness,
        runId,
        k,
        ...(remote ? { remote } : {}),
        ...(configDigest ? { configDigest } : {}),
        ...(clock ? { clock } : {}),
        ...(keepLogs ? { keepLogs } : {}),
      }),
  });
  return { ...provider, name: `remote-copies(${queue.name})` };
}

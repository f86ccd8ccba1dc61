import { join } from 'node:path';

/** Where a collie run keeps its files (the seed's `~/.collie/...` layout under `stateRoot`). */
export interface ColliePaths {
  /** `<stateRoot>/autoiter/<projectId>` */
  readonly projectDir: string;
  /** `<projectDir>/current-run`: holds the runId of the active run. */
  readonly currentRun: string;
  /** `<stateRoot>/state/<sessionId>/last-plan.json`: `{ planFile, runId }`, written by Stage 0. */
  readonly lastPlan: string;
  /** `<stateRoot>/plans`: where Stage 0 writes plan files. */
  readonly planDir: string;
  /** A run's directory and files. */
  readonly run: (runId: string) => RunPaths;
}

/** One run's files. */
export interface RunPaths {
  readonly dir: string;
  readonly runSpec: string;
  readonly state: string;
  readonly worktreePath: string;
  readonly prepareReport: string;
  readonly status: string;
  readonly userLog: string;
  readonly progress: string;
  readonly iter: (n: number) => IterPaths;
}

/** One iteration's files. */
export interface IterPaths {
  readonly dir: string;
  readonly fixes: string;
  readonly kickoff: string;
  readonly rawLog: string;
  readonly rerunLog: string;
  readonly summary: string;
}

/** Resolves the layout. */
export function resolveColliePaths(stateRoot: string, projectId: string, sessionId: string): ColliePaths {
  const projectDir = join(stateRoot, 'autoiter', projectId);
  return {
    projectDir,
    currentRun: join(projectDir, 'current-run'),
    lastPlan: join(stateRoot, 'state', sessionId, 'last-plan.json'),
    planDir: join(stateRoot, 'plans'),
    run: (runId) => {
      const dir = join(projectDir, runId);
      return {
        dir,
        runSpec: join(dir, 'run-spec.md'),
        state: join(dir, 'state.json'),
        worktreePath: join(dir, 'worktree-path'),
        prepareReport: join(dir, 'prepare-report.md'),
        status: join(dir, 'status.md'),
        userLog: join(dir, 'user-log.md'),
        progress: join(dir, 'progress.md'),
        iter: (n) => {
          const d = join(dir, `iter-${n}`);
          return { dir: d, fixes: join(d, 'fixes'), kickoff: join(d, 'kickoff.md'), rawLog: join(d, 'raw.log'), rerunLog: join(d, 'rerun.log'), summary: join(d, 'summary.md') };
        },
      };
    },
  };
}

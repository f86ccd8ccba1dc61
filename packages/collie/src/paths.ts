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
  /**
   * `<projectDir>/controller`: the controller lock (`controller.lock`, proper-lockfile) held while a controller steps.
   */
  readonly lock: string;
  /**
   * `<projectDir>/steps`: the core step machine of `step()` (`cursor.json`: the step() call in
   * progress; `journal.jsonl`: the side effects it already ran, so a step() redone after a kill runs
   * each once).
   */
  readonly steps: string;
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
  /** tokens.jsonl: one line per agent dispatch (SC4's tokens_used is their sum). */
  readonly tokens: string;
  /** tasks.json: the default Stage 1 task-anchor tracker. */
  readonly tasks: string;
  /**
   * pids/: `*.pgid` files of running agent and flow commands (orphans of a killed controller are killed at the next
   * step).
   */
  readonly pids: string;
  /** trigger.pgid: the running trigger's process group (so a restarted controller kills an orphaned one). */
  readonly triggerPid: string;
  /**
   * loop-results.jsonl: the core engine's rows (one JSON IterationRecord per Stage 5.3 candidate, baseline not stored).
   */
  readonly loopResults: string;
  /** loop-state.json: the core engine's state store (its last write says whether and why it stopped). */
  readonly loopState: string;
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
  /** observations.md (Stage 3.1). */
  readonly observations: string;
  /** triage.md (Stage 4a). */
  readonly triage: string;
  /** fix-plan.md (Stage 5.0). */
  readonly fixPlan: string;
  /** flow.json: the Stage 5.1 ledger (base commit, one commit per FIX with its changed files). */
  readonly flow: string;
  /** audit.md (Stage 5.2, G6 and G1). */
  readonly audit: string;
  /** fixes/FIX-nnn.md (Stage 4b). */
  readonly fix: (fixId: string) => string;
}

/** Resolves the layout. */
export function resolveColliePaths(stateRoot: string, projectId: string, sessionId: string): ColliePaths {
  const projectDir = join(stateRoot, 'autoiter', projectId);
  return {
    projectDir,
    currentRun: join(projectDir, 'current-run'),
    lastPlan: join(stateRoot, 'state', sessionId, 'last-plan.json'),
    planDir: join(stateRoot, 'plans'),
    lock: join(projectDir, 'controller'),
    steps: join(projectDir, 'steps'),
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
        tokens: join(dir, 'tokens.jsonl'),
        tasks: join(dir, 'tasks.json'),
        triggerPid: join(dir, 'trigger.pgid'),
        pids: join(dir, 'pids'),
        loopResults: join(dir, 'loop-results.jsonl'),
        loopState: join(dir, 'loop-state.json'),
        iter: (n) => {
          const d = join(dir, `iter-${n}`);
          return {
            dir: d,
            fixes: join(d, 'fixes'),
            kickoff: join(d, 'kickoff.md'),
            rawLog: join(d, 'raw.log'),
            rerunLog: join(d, 'rerun.log'),
            summary: join(d, 'summary.md'),
            observations: join(d, 'observations.md'),
            triage: join(d, 'triage.md'),
            fixPlan: join(d, 'fix-plan.md'),
            flow: join(d, 'flow.json'),
            audit: join(d, 'audit.md'),
            fix: (fixId) => join(d, 'fixes', `${fixId}.md`),
          };
        },
      };
    },
  };
}

// Test-only fixture (not exported by the package): a controller over temp dirs with scripted tools.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createAutoiter, type AutoiterOptions } from '../autoiter.js';
import { createScriptedAgent, type ScriptedAgent } from '../agent.js';
import type { RunEndNotice } from '../run-end-notifier.js';
import type { Answers, RunSpecAsker } from '../run-spec-asker.js';

/** The runId every fixture controller gets (clock 2026-01-02T03:04:05Z, hex abcdef). */
export const FIXTURE_RUN = '20260102-030405-abcdef';
/** A trigger whose scalar rises by one per run, from 1. */
export const RISING_TRIGGER = 'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; echo "score: $n"';

/** Temp dirs: `root`, `project` (exists), `stateRoot`; `cleanup()` removes them. */
export function fixtureDirs() {
  const root = mkdtempSync(join(tmpdir(), 'collie-fx-'));
  const project = join(root, 'project');
  mkdirSync(project);
  return {
    root,
    project,
    stateRoot: join(root, 'collie'),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** An asker with fixed answers (Q5 yes = skip prepare). */
export function fixedAsker(
  over: Partial<Answers> = {},
  choose?: RunSpecAsker['choose'],
): RunSpecAsker & { asked: number } {
  const a = {
    name: 'fixed',
    asked: 0,
    ask: () => (
      (a.asked += 1),
      { Q1: RISING_TRIGGER, Q2: 'scalar_threshold 100', Q3: 'optimization', Q4: 'kind_aware', Q5: 'yes', ...over }
    ),
    ...(choose ? { choose } : {}),
  };
  return a;
}

/** A controller over `dirs` with a scripted agent (discovery + NO ISSUES observer) and recorders. */
export function fixtureAutoiter(
  dirs: { project: string; stateRoot: string },
  over: Partial<AutoiterOptions> & { agent?: ScriptedAgent } = {},
) {
  const lines: string[] = [];
  const notes: RunEndNotice[] = [];
  const escalations: string[] = [];
  const agent =
    over.agent ??
    createScriptedAgent(
      { discovery: ['1. sh test.sh (shell, 5): runs the suite'], observe: ['NO ISSUES'] },
      { repeatLast: true },
    );
  const options: AutoiterOptions = {
    stateRoot: dirs.stateRoot,
    projectId: 'proj',
    sessionId: 'sess',
    projectDir: dirs.project,
    task: 'make it faster',
    maxIterations: 3,
    agent,
    asker: fixedAsker(),
    clock: { now: () => Date.UTC(2026, 0, 2, 3, 4, 5) },
    randomHex: () => 'abcdef',
    env: {},
    output: (l) => lines.push(l),
    notifier: { name: 'rec', notify: (n) => void notes.push(n) },
    escalate: (reason, id) => void escalations.push(`${reason} ${id}`),
    ...over,
  };
  return { a: createAutoiter(options), lines, notes, escalations, agent, options };
}

/**
 * Every file under `root` (relative path → text, `root` itself replaced by `<root>`), skipping the
 * directory names in `skip`: the "same files as an uninterrupted run" comparison of the restart tests.
 */
export function snapshotFiles(root: string, skip: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (skip.includes(e.name)) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(root, p)] = readFileSync(p, 'utf8').split(root).join('<root>');
    }
  };
  walk(root);
  return out;
}

/**
 * The restart comparison at every step boundary, each prefix built once: `first` (one controller)
 * takes the steps of an uninterrupted run one at a time; after step k (1 ≤ k < `total`) the whole
 * `root` is saved (`cp -a`, timestamps kept), `rest()` (a fresh controller's `run()`, as after a
 * restart) runs to the end and `check` compares, then `root` is put back as it was after step k and
 * `first` takes step k + 1. What it proves equals building every prefix from scratch (k steps of
 * one controller, then a fresh one), at about half the controller steps.
 */
export async function atEveryRestartPoint<T>(
  root: string,
  total: number,
  first: { step: () => Promise<unknown> },
  rest: () => Promise<T>,
  check: (rest: T, k: number) => void,
): Promise<void> {
  const saved = `${root}.saved`;
  const copy = (from: string, to: string) =>
    cpSync(from, to, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  try {
    for (let k = 1; k < total; k += 1) {
      await first.step();
      rmSync(saved, { recursive: true, force: true });
      copy(root, saved);
      check(await rest(), k);
      rmSync(root, { recursive: true, force: true });
      copy(saved, root);
    }
  } finally {
    rmSync(saved, { recursive: true, force: true });
  }
}

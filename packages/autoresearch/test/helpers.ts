import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  resolvePassConfig,
  type AutoresearchConfig,
  type AutoresearchMode,
  type AutoresearchProposer,
  type PassHarness,
  type PassScore,
  type RunPassOptions,
} from '../src/index.js';

export const OLD_MS = Date.UTC(2020, 0, 1);

/** A real temp workspace with one mutable file `src/score.ts` holding a number, and the rubric files. */
export function makeWorkspace() {
  const dir = mkdtempSync(join(tmpdir(), 'loop-autoresearch-'));
  const write = (p: string, c: string, mtimeMs?: number) => {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
    if (mtimeMs !== undefined) utimesSync(join(dir, p), new Date(mtimeMs), new Date(mtimeMs));
  };
  write('src/score.ts', 'export const value = 5;\n', OLD_MS);
  write('criteria/ar-function.yaml', 'quality: readable\n');
  write('.claude/agents/reflection-agent.md', 'You are the reflection agent.\n');
  return {
    dir,
    write,
    read: (p: string) => readFileSync(join(dir, p), 'utf8'),
    runDir: join(dir, '.aid/pipeline/autoresearch/T-1'),
    resultsPath: join(dir, '.aid/pipeline/autoresearch/T-1/results.tsv'),
    statePath: join(dir, '.aid/pipeline/state.json'),
    rubricFiles: [join(dir, 'criteria/ar-function.yaml'), join(dir, '.claude/agents/reflection-agent.md')],
    value: () => Number(/value = (-?[\d.]+)/.exec(readFileSync(join(dir, 'src/score.ts'), 'utf8'))?.[1]),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
export type Workspace = ReturnType<typeof makeWorkspace>;

/** A step of the scripted proposer: set the value to `to`, optionally crash while applying. */
export interface Step {
  to: number;
  description?: string;
  applyThrows?: boolean;
}

/** A proposer that sets `src/score.ts` to each step's value in turn. */
export function scriptedProposer(ws: Workspace, steps: Step[], log: string[] = []): AutoresearchProposer {
  let i = 0;
  return {
    name: 'scripted',
    plan: () => {
      const step = steps[i++ % steps.length]!;
      return {
        description: step.description ?? `set value to ${step.to}`,
        files: ['src/score.ts'],
        slug: `to ${step.to}`,
        step,
      } as never;
    },
    apply: (idea, ctx) => {
      const step = (idea as unknown as { step: Step }).step;
      log.push(`apply ${ctx.iteration} round ${ctx.round}/${ctx.rounds}`);
      if (step.applyThrows) throw new Error('agent could not apply the edit');
      ws.write('src/score.ts', `export const value = ${step.to};\n`);
    },
  };
}

/**
 * A harness whose composite is the value in src/score.ts (function mode: quality = value, tests red
 * when value < 0, crash when value is 666). Design mode: four dimensions all equal to the value.
 */
export function valueHarness(ws: Workspace, mode: 'design' | 'function' = 'function'): PassHarness {
  if (mode === 'design') {
    const ids = ['structural_health', 'loudness_of_failures', 'naming_clarity', 'docs_traceability'];
    return {
      name: 'value-design',
      dimensions: ids,
      score: (): PassScore => {
        const v = ws.value();
        if (v === 666) throw new Error('reflection agent timed out');
        return { composite: v, dimensions: Object.fromEntries(ids.map((d) => [d, v])) };
      },
    };
  }
  return {
    name: 'value-function',
    dimensions: ['quality', 'pass_rate', 'coverage'],
    score: (): PassScore => {
      const v = ws.value();
      if (v === 666) throw new Error('could not run tests');
      const green = v >= 0;
      return {
        composite: green ? v : 0,
        dimensions: { quality: Math.abs(v), pass_rate: green ? 1 : 0.5, coverage: 90 },
        gates: { testsGreen: green, coverageOk: true, coveragePct: 90 },
      };
    },
  };
}

/** A clock advancing one second per call. */
export function steppingClock(startMs = Date.UTC(2026, 10, 30, 4, 0, 0)) {
  let t = startMs - 1000;
  return { now: () => (t += 1000) };
}

/** Options for runPass over `ws` with the scripted proposer and value harness. */
export function passOptions(
  ws: Workspace,
  steps: Step[],
  extra: Partial<RunPassOptions> & { mode?: AutoresearchMode; autoresearch?: AutoresearchConfig } = {},
): RunPassOptions & { lines: string[] } {
  const lines: string[] = [];
  const mode = extra.mode ?? 'function';
  const { mode: _m, autoresearch, ...rest } = extra;
  return {
    workspace: ws.dir,
    taskId: 'T-1',
    config: resolvePassConfig(
      mode,
      autoresearch ?? {
        ar_function: { max_iterations: 10, max_consecutive_reverts: 3 },
        ar_design: { max_iterations: 10, max_consecutive_reverts: 3 },
      },
    ),
    harness: valueHarness(ws, mode === 'design' ? 'design' : 'function'),
    proposer: scriptedProposer(ws, steps),
    rubricFiles: ws.rubricFiles,
    files: ['src/score.ts'],
    clock: steppingClock(),
    output: (l) => lines.push(l),
    lines,
    ...rest,
  };
}

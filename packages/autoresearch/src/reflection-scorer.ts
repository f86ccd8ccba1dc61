import { readFile } from 'node:fs/promises';
import { runCaptured } from './run-captured.js';
import { join } from 'node:path';
import { z } from 'zod';
import { parseOptions } from '@loop/core';
import type { DimensionScorer } from './pass-harness.js';

/** Options of {@link createReflectionScorer}. */
export interface ReflectionScorerOptions {
  /** Absolute workspace ({{WORKSPACE}}); the command runs there. */
  workspace: string;
  /** The agent command and its arguments (argv, no shell), e.g. `['claude', '-p']`. */
  command: string[];
  /** The exact dimension ids the pass needs; each must come back as a number. */
  dimensions: string[];
  /** The agent prompt, relative to workspace. Never a user-level path. @default '.claude/agents/reflection-agent.md' */
  promptFile?: string;
  /** Hard timeout in ms; the command is killed and the iteration is a crash. @default 600000 */
  timeoutMs?: number;
  /** Lowest and highest valid score. @default [0, 10] */
  range?: [number, number];
}

/** zod schema of {@link ReflectionScorerOptions}. */
export const reflectionScorerOptionsSchema = z.object({
  workspace: z.string().min(1),
  command: z
    .array(z.string())
    .min(1)
    .refine((a) => (a[0] ?? '').length > 0, 'command[0] must be the program to run'),
  dimensions: z.array(z.string().min(2)).min(1),
  promptFile: z
    .string()
    .refine(
      (p) => !p.startsWith('/') && !p.startsWith('~'),
      'promptFile must be relative to the workspace (never a user-level path)',
    )
    .default('.claude/agents/reflection-agent.md'),
  timeoutMs: z.number().int().positive().default(600_000),
  range: z.tuple([z.number(), z.number()]).default([0, 10]),
});

/**
 * Parses an agent's output: the last line that is a JSON object, either `{ "scores": { id: n } }`
 * or `{ id: n }`. Every id in `dimensions` must be a finite number within `range`.
 *
 * @throws {Error} naming the missing or invalid dimension (the runner records a `crash`).
 */
export function parseReflectionOutput(
  stdout: string,
  dimensions: readonly string[],
  range: readonly [number, number] = [0, 10],
): Record<string, number> {
  const line = stdout
    .split('\n')
    .map((l) => l.trim())
    .reverse()
    .find((l) => l.startsWith('{') && l.endsWith('}'));
  if (!line) throw new Error('the reflection agent printed no JSON object line');
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    throw new Error(`the reflection agent printed invalid JSON: ${(error as Error).message}`);
  }
  const obj = (parsed as { scores?: unknown }).scores ?? parsed;
  const out: Record<string, number> = {};
  for (const id of dimensions) {
    const v = (obj as Record<string, unknown>)[id];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < range[0] || v > range[1]) {
      throw new Error(
        `the reflection agent gave no valid score for ${id} ` +
          `(got ${JSON.stringify(v)}; expected a number ` +
          `in ${range[0]}-${range[1]})`,
      );
    }
    out[id] = v;
  }
  return out;
}

/**
 * The reflection-agent harness piece (seed 002 loop step 5): runs `command` in the workspace with the
 * prompt from `{{WORKSPACE}}/.claude/agents/reflection-agent.md` on stdin followed by a line asking
 * for the pass's dimension ids as JSON, and parses the per-dimension scores from its output.
 * A non-zero exit, a timeout or a missing dimension throws (a `crash` iteration).
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options (an absolute or `~` prompt path).
 */
export function createReflectionScorer(options: ReflectionScorerOptions): DimensionScorer {
  const o = parseOptions(reflectionScorerOptionsSchema, options, 'reflection-scorer');
  return {
    name: `reflection(${o.command[0]})`,
    score: async ({ signal }) => {
      const prompt = await readFile(join(o.workspace, o.promptFile), 'utf8');
      const request =
        `${prompt}\n\nReturn one JSON line {"scores": ` +
        `{${o.dimensions.map((d) => `"${d}": <${o.range[0]}-${o.range[1]}>`).join(', ')}}}.\n`;
      const run = await runCaptured({
        command: o.command,
        cwd: o.workspace,
        timeoutMs: o.timeoutMs,
        signal,
        input: request,
        env: { AUTORESEARCH_DIMENSIONS: o.dimensions.join(',') },
      });
      if (run.code !== 0)
        throw new Error(
          `reflection command exited ${run.code ?? run.ended}: ${run.output.trim().split('\n').slice(-3).join(' ')}`,
        );
      const stdout = run.output;
      return parseReflectionOutput(stdout, o.dimensions, o.range);
    },
  };
}

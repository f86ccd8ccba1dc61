import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import {
  buildMemorySections,
  discardedRowsForPrompt,
  NOTES_LIMITS,
  type DiscardedDiff,
  type NotesLimits,
} from './agent-memory.js';
import { parseAgentUsage, parseUsageFile, type AgentUsage } from './agent-usage.js';
import type { CandidateData } from '../contracts/iteration-record.js';
import type { ProposalContext } from '../contracts/proposer.js';

/** zod fields of the agent proposer's memory options (`memoryDir`, `notesLimits`, `discardedDiffs`, `earlierRuns`). */
export const agentMemoryOptionsFields = {
  memoryDir: z.union([z.literal(false), z.string().min(1)]).default('.loop/memory'),
  notesLimits: z
    .object({ maxLines: z.number().int().positive(), maxBytes: z.number().int().positive() })
    .strict()
    .default(NOTES_LIMITS),
  discardedDiffs: z
    .object({
      read: z.custom<(i: readonly number[]) => Promise<readonly DiscardedDiff[]>>(
        (f) => typeof f === 'function',
        'discardedDiffs.read must be a function',
      ),
      count: z.number().int().positive().default(3),
      maxBytes: z.number().int().positive().default(4000),
    })
    .strict()
    .optional(),
  earlierRuns: z
    .custom<() => readonly string[]>(
      (f) => f === undefined || typeof f === 'function',
      'earlierRuns must be a function',
    )
    .optional(),
};

/** The memory options of the agent proposer, resolved (see `AgentCommandProposerOptions`). */
export interface AgentMemoryFiles {
  readonly memoryDir: string | false;
  readonly notesLimits: NotesLimits;
  readonly discardedDiffs?:
    | { read: (iterations: readonly number[]) => Promise<readonly DiscardedDiff[]>; count: number; maxBytes: number }
    | undefined;
  readonly earlierRuns?: (() => Promise<readonly string[]> | readonly string[]) | undefined;
}

/** The files of one agent call's memory folder (absolute), or none without a folder. */
export interface AgentCallFiles {
  readonly dir?: string;
  readonly notes?: string;
  readonly usage?: string;
  /** `LOOP_NOTES_FILE` and `LOOP_USAGE_FILE` for the agent's environment. */
  readonly env: Record<string, string>;
}

/**
 * Makes the memory folder under the main workspace `root` before a call: `notes.md` exists (empty
 * when new), the last call's `usage.json` is gone.
 */
export async function prepareCallFiles(o: AgentMemoryFiles, root: string): Promise<AgentCallFiles> {
  if (o.memoryDir === false) return { env: {} };
  const dir = resolve(root, o.memoryDir);
  const notes = join(dir, 'notes.md');
  const usage = join(dir, 'usage.json');
  await mkdir(dir, { recursive: true });
  await writeFile(notes, '', { flag: 'a' });
  await rm(usage, { force: true });
  return { dir, notes, usage, env: { LOOP_NOTES_FILE: notes, LOOP_USAGE_FILE: usage } };
}

/** Cuts `text` to `maxBytes` UTF-8 bytes, saying how much was left out. */
function cut(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  return `${bytes
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '')}\n... (${bytes.length - maxBytes} more bytes left out)`;
}

/** The prompt's memory lines: duplicates, notes, the last discarded diffs, revisits, earlier runs. */
export async function memoryLines(
  o: AgentMemoryFiles,
  context: ProposalContext,
  files: AgentCallFiles,
): Promise<string[]> {
  const notesText = files.notes ? await readFile(files.notes, 'utf8').catch(() => '') : undefined;
  let diffs: readonly DiscardedDiff[] | undefined;
  const d = o.discardedDiffs;
  if (d) {
    const rows = discardedRowsForPrompt(context.history, d.count);
    try {
      diffs =
        rows.length > 0
          ? (await d.read(rows.map((r) => r.iteration))).map((x) => ({ ...x, diff: cut(x.diff, d.maxBytes) }))
          : [];
    } catch {
      diffs = undefined; // the diffs are a hint: a repository that cannot be read leaves them out
    }
  }
  const earlierRuns = o.earlierRuns ? await o.earlierRuns() : undefined;
  return buildMemorySections(context.history, {
    ...(notesText !== undefined && files.notes
      ? { notes: { text: notesText, path: files.notes, limits: o.notesLimits } }
      : {}),
    ...(diffs ? { diffs } : {}),
    ...(earlierRuns ? { earlierRuns } : {}),
  });
}

/**
 * What the call cost: the usage file the agent wrote (when it holds usage), else its output
 * (Claude's JSON result, Codex's JSONL events, a `usage:` line); undefined when neither says.
 */
export async function readCallUsage(files: AgentCallFiles, output: string): Promise<AgentUsage | undefined> {
  const text = files.usage ? await readFile(files.usage, 'utf8').catch(() => undefined) : undefined;
  return (text !== undefined ? parseUsageFile(text) : undefined) ?? parseAgentUsage(output);
}

/** The candidate's record keys for a usage: `cost` ({usd, tokens}) and `agentUsage` (the whole reading). */
export function usageData(usage: AgentUsage | undefined): CandidateData | undefined {
  if (!usage) return undefined;
  const cost = {
    ...(usage.usd !== undefined ? { usd: usage.usd } : {}),
    ...(usage.tokens !== undefined ? { tokens: usage.tokens } : {}),
  };
  return { cost, agentUsage: usage };
}

/** The sum of two usage readings (a crash repair's call added to the proposal's): the source of the later. */
export function addUsage(a: AgentUsage | undefined, b: AgentUsage | undefined): AgentUsage | undefined {
  if (!a || !b) return b ?? a;
  const keys = ['usd', 'tokens', 'inputTokens', 'outputTokens', 'cachedInputTokens'] as const;
  const out: Record<string, number> = {};
  for (const k of keys) if (a[k] !== undefined || b[k] !== undefined) out[k] = (a[k] ?? 0) + (b[k] ?? 0);
  return { ...out, source: b.source };
}

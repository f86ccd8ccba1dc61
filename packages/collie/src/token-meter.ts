import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { renderAgentPrompt, type Agent, type AgentRequest, type CapabilityTier, type TokenUsage } from './agent.js';

/** Characters per token of the estimate used when an agent reports no usage. */
export const CHARS_PER_TOKEN = 4;

/** The estimate for a dispatch that reported no usage: ceil((prompt + inputs + reply characters) / 4). */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** One line of tokens.jsonl: one agent dispatch. */
export const tokenEntrySchema = z.object({
  /** ISO-8601 time of the dispatch's end (injected clock). */
  ts: z.string(),
  /** The iteration (0 before state.json exists: Stage 0 discovery). */
  iter: z.number().int().nonnegative(),
  role: z.string(),
  tier: z.enum(['fast', 'standard', 'deep']),
  /** input + output tokens. */
  tokens: z.number().int().nonnegative(),
  /** `reported` by the agent (AgentRequest.reportUsage) or `estimate` (characters / 4). */
  source: z.enum(['reported', 'estimate']),
});
/** One metered dispatch. */
export type TokenEntry = z.output<typeof tokenEntrySchema>;

/**
 * Sums tokens.jsonl. Lines that do not parse (a torn last line of a killed process) are skipped.
 * @returns 0 when the file does not exist.
 */
export async function readTokensUsed(path: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const r = tokenEntrySchema.safeParse(JSON.parse(line));
      if (r.success) sum += r.data.tokens;
    } catch {
      // torn line: not counted
    }
  }
  return sum;
}

/** Appends one entry to tokens.jsonl (creates the directory). */
export async function appendTokenEntry(path: string, entry: TokenEntry): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, `${JSON.stringify(tokenEntrySchema.parse(entry))}\n`);
}

/** Where a metered dispatch is recorded; null = not recorded (no run yet). */
export interface MeterTarget {
  readonly ledger: string;
  readonly iter: number;
}

/**
 * Wraps an {@link Agent} so every dispatch appends its token count to the ledger `target()` names
 * at the time of the call (SC4's `tokens_used`, seed 000 Stage 6). The wrapped agent passes a
 * `reportUsage` callback in the request; an agent that calls it is counted as `reported`
 * (input + output), otherwise the dispatch counts `estimateTokens(prompt + inputs + reply)`.
 */
export function meterAgent(agent: Agent, target: () => MeterTarget | null, now: () => string): Agent {
  return {
    name: agent.name,
    run: async (request: AgentRequest) => {
      let reported: TokenUsage | undefined;
      const text = await agent.run({ ...request, reportUsage: (u) => void (reported = u) });
      const t = target();
      if (t) {
        const tokens = reported
          ? Math.max(0, Math.round(reported.input + reported.output))
          : estimateTokens(renderAgentPrompt(request).length + text.length);
        await appendTokenEntry(t.ledger, {
          ts: now(),
          iter: t.iter,
          role: request.role,
          tier: request.tier as CapabilityTier,
          tokens,
          source: reported ? 'reported' : 'estimate',
        });
      }
      return text;
    },
  };
}

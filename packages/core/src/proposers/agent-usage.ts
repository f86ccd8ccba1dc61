/**
 * What an agent CLI said one call cost, read from its output or a usage file it wrote. `tokens`
 * is every token the call was billed for (input, cache reads and writes, output); `usd` is what
 * the CLI reported in US dollars (Codex and a bare token count report none).
 */
export interface AgentUsage {
  /** US dollars the CLI reported. @default unknown */
  readonly usd?: number;
  /** Every token of the call: input (cached included) + cache writes + output. @default unknown */
  readonly tokens?: number;
  /** Input tokens, cached ones included (Claude: input + cache reads + cache writes). @default unknown */
  readonly inputTokens?: number;
  /** Output tokens. @default unknown */
  readonly outputTokens?: number;
  /**
   * Input tokens served from a prompt cache (Claude `cache_read_input_tokens`, Codex `cached_input_tokens`). @default
   * unknown
   */
  readonly cachedInputTokens?: number;
  /** Where the numbers came from: `usage-file`, `claude-json`, `codex-jsonl` or `usage-line`. */
  readonly source: 'usage-file' | 'claude-json' | 'codex-jsonl' | 'usage-line';
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
/** A token count: a whole number of at least 0 (`12.7 tokens` is not a count). */
const count = (v: unknown): number | undefined => {
  const n = num(v);
  return n !== undefined && Number.isInteger(n) ? n : undefined;
};
const record = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const sum = (...xs: (number | undefined)[]): number | undefined =>
  xs.some((x) => x !== undefined) ? xs.reduce<number>((a, x) => a + (x ?? 0), 0) : undefined;

/** The JSON objects of `output`: the whole text when it is one, else each line that is one. */
function jsonObjects(output: string): Record<string, unknown>[] {
  const whole = output.trim();
  if (whole.startsWith('{')) {
    try {
      const one = record(JSON.parse(whole));
      if (one) return [one];
    } catch {
      // not one object: try line by line (JSONL, or JSON after other output)
    }
  }
  const out: Record<string, unknown>[] = [];
  for (const line of output.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{') || !t.endsWith('}')) continue;
    try {
      const o = record(JSON.parse(t));
      if (o) out.push(o);
    } catch {
      // a line that only looks like JSON
    }
  }
  return out;
}

/**
 * Claude Code's `claude -p --output-format json` result object (`{"type":"result", "total_cost_usd",
 * "usage": {"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"}}`);
 * with `--output-format stream-json` the last `result` line. Tokens are the four counts summed.
 */
function claudeUsage(objects: readonly Record<string, unknown>[]): AgentUsage | undefined {
  const result = objects.filter((o) => o.type === 'result' && ('total_cost_usd' in o || 'usage' in o)).at(-1);
  if (!result) return undefined;
  const u = record(result.usage) ?? {};
  const input = count(u.input_tokens);
  const cacheWrite = count(u.cache_creation_input_tokens);
  const cacheRead = count(u.cache_read_input_tokens);
  const output = count(u.output_tokens);
  const inputTokens = sum(input, cacheWrite, cacheRead);
  const usd = num(result.total_cost_usd) ?? num(result.cost_usd);
  return {
    source: 'claude-json',
    ...(usd !== undefined ? { usd } : {}),
    ...(sum(inputTokens, output) !== undefined ? { tokens: sum(inputTokens, output)! } : {}),
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(output !== undefined ? { outputTokens: output } : {}),
    ...(cacheRead !== undefined ? { cachedInputTokens: cacheRead } : {}),
  };
}

/**
 * Codex's `codex exec --json` events: every `{"type":"turn.completed","usage":{"input_tokens",
 * "cached_input_tokens","output_tokens"}}` line, summed (`input_tokens` already counts the cached
 * ones). Codex reports no dollars.
 */
function codexUsage(objects: readonly Record<string, unknown>[]): AgentUsage | undefined {
  const turns = objects
    .filter((o) => o.type === 'turn.completed')
    .map((o) => record(o.usage))
    .filter((u) => u !== undefined);
  if (turns.length === 0) return undefined;
  const inputTokens = sum(...turns.map((u) => count(u.input_tokens)));
  const cached = sum(...turns.map((u) => count(u.cached_input_tokens)));
  const output = sum(
    ...turns.map((u) => count(u.output_tokens)),
    ...turns.map((u) => count(u.reasoning_output_tokens)),
  );
  const tokens = sum(inputTokens, output);
  return {
    source: 'codex-jsonl',
    ...(tokens !== undefined ? { tokens } : {}),
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(output !== undefined ? { outputTokens: output } : {}),
    ...(cached !== undefined ? { cachedInputTokens: cached } : {}),
  };
}

/**
 * The generic line any CLI (or a wrapper script) can print: `usage: tokens=<n> usd=<x>` (either key may be left out).
 */
export const USAGE_LINE = /^\s*usage:\s*((?:(?:tokens|usd)=[0-9.eE+-]+\s*)+)$/gim;

function usageLine(output: string): AgentUsage | undefined {
  let last: string | undefined;
  for (const m of output.matchAll(USAGE_LINE)) last = m[1];
  if (last === undefined) return undefined;
  const pairs = Object.fromEntries(
    [...last.matchAll(/(tokens|usd)=(\S+)/gi)].map((m) => [m[1]!.toLowerCase(), Number(m[2])]),
  );
  const tokens = count(pairs.tokens);
  const usd = num(pairs.usd);
  if (tokens === undefined && usd === undefined) return undefined;
  return { source: 'usage-line', ...(tokens !== undefined ? { tokens } : {}), ...(usd !== undefined ? { usd } : {}) };
}

/**
 * Reads what an agent call cost from its output, in this order: Claude Code's JSON result,
 * Codex's JSONL `turn.completed` events (summed), the last `usage: tokens=<n> usd=<x>` line.
 * Returns `undefined` when the output reports none of them.
 */
export function parseAgentUsage(output: string): AgentUsage | undefined {
  const objects = jsonObjects(output);
  return claudeUsage(objects) ?? codexUsage(objects) ?? usageLine(output);
}

/**
 * Reads a usage file an agent (or its wrapper) wrote: one JSON object with `usd` and/or `tokens`
 * (or `input_tokens` and `output_tokens`, summed), or a Claude or Codex output saved to the file.
 * Returns `undefined` for text that holds none of them.
 */
export function parseUsageFile(text: string): AgentUsage | undefined {
  const objects = jsonObjects(text);
  const own = objects.at(-1);
  if (own && !('type' in own)) {
    const usd = num(own.usd) ?? num(own.cost_usd) ?? num(own.total_cost_usd);
    const input = count(own.input_tokens);
    const output = count(own.output_tokens);
    const tokens = count(own.tokens) ?? sum(input, output);
    if (usd !== undefined || tokens !== undefined) {
      return {
        source: 'usage-file',
        ...(usd !== undefined ? { usd } : {}),
        ...(tokens !== undefined ? { tokens } : {}),
        ...(input !== undefined ? { inputTokens: input } : {}),
        ...(output !== undefined ? { outputTokens: output } : {}),
      };
    }
  }
  const parsed = parseAgentUsage(text);
  return parsed ? { ...parsed, source: 'usage-file' } : undefined;
}

/**
 * The text an agent meant as its answer when its output is Claude's JSON result (`result`) or
 * Codex's events (the last `agent_message` item); the output itself otherwise. The agent's
 * `DESCRIPTION:` line is looked for in it.
 */
export function agentAnswerText(output: string): string {
  const objects = jsonObjects(output);
  const claude = objects.filter((o) => o.type === 'result' && typeof o.result === 'string').at(-1);
  if (claude) return claude.result as string;
  const messages = objects
    .filter((o) => o.type === 'item.completed')
    .map((o) => record(o.item))
    .filter((i) => i?.type === 'agent_message' && typeof i.text === 'string')
    .map((i) => i!.text as string);
  return messages.length > 0 ? messages.join('\n') : output;
}

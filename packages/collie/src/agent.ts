import { LoopError } from '@loop/core';
import type { MaybePromise } from '@loop/core';

/** Capability tiers. The seed names them by model: fast = haiku, standard = sonnet, deep = opus. */
export type CapabilityTier = 'fast' | 'standard' | 'deep';

/** The seed's model name of each tier. */
export const TIER_MODELS: Readonly<Record<CapabilityTier, 'haiku' | 'sonnet' | 'opus'>> = Object.freeze({
  fast: 'haiku',
  standard: 'sonnet',
  deep: 'opus',
});

/** One dispatch to a sub-agent. */
export interface AgentRequest {
  /** What the agent is for: `discovery`, `triage`, `deep-verify`, `diagnose`, ... */
  readonly role: string;
  /** Which capability tier runs it. */
  readonly tier: CapabilityTier;
  /** The system prompt / instructions. */
  readonly prompt: string;
  /** Named input documents (file name → text), appended to the prompt. */
  readonly inputs: Readonly<Record<string, string>>;
  /** Aborted when the run is stopped. */
  readonly signal?: AbortSignal;
  /**
   * Absolute working directory of this dispatch. The controller sets it to the run's worktree once
   * the run has one (Stage 1 on), so a command agent edits the worktree, never the user's checkout.
   * Absent: the agent's own default.
   */
  readonly cwd?: string;
  /**
   * Where a command agent records its running process group (core `runInGroup` `pidFile`); the
   * controller sets it under `<run>/pids/` and kills what a SIGKILLed predecessor left running.
   */
  readonly pidFile?: string;
  /**
   * Set by the controller's token meter: an agent that knows its usage calls it once per dispatch
   * (tokens). One that does not is counted by estimate (characters / 4).
   */
  readonly reportUsage?: (usage: TokenUsage) => void;
}

/** Tokens one dispatch used. */
export interface TokenUsage {
  readonly input: number;
  readonly output: number;
}

/**
 * A sub-agent: takes a role, a tier, a prompt and inputs, returns its text. Called by the stages
 * that dispatch (Stage 0.2 discovery, Stage 3 observe / diagnose, 4a triage, 4b deep verify, 5.1 flow). Must not keep
 * state between calls: each
 * call is a fresh agent (the seed's subagent isolation).
 */
export interface Agent {
  /** Used in errors and logs. */
  readonly name: string;
  /** Runs one dispatch and returns the agent's text output. */
  readonly run: (request: AgentRequest) => MaybePromise<string>;
}

/** The prompt text an agent gets on stdin: the prompt, then each input under a `## <name>` heading. */
export function renderAgentPrompt(request: Pick<AgentRequest, 'prompt' | 'inputs'>): string {
  const parts = [request.prompt.trimEnd()];
  for (const [name, text] of Object.entries(request.inputs)) parts.push(`## ${name}\n\n${text.trimEnd()}`);
  return `${parts.join('\n\n')}\n`;
}

/** One scripted reply: a fixed text, a text with its token usage, or a function of the request returning either. */
export type ScriptedReply =
  string | ScriptedUsageReply | ((request: AgentRequest) => MaybePromise<string | ScriptedUsageReply>);

/** A scripted reply that reports its token usage (through `request.reportUsage`). */
export interface ScriptedUsageReply {
  readonly text: string;
  readonly usage: TokenUsage;
}

/** A scripted fake {@link Agent} with the requests it received. */
export interface ScriptedAgent extends Agent {
  /** Every request so far, in order. */
  readonly calls: readonly AgentRequest[];
}

/**
 * A fake agent for tests and demos: replies per role from `script` in order (a role's replies are
 * consumed one per call; the last one repeats when `repeatLast` is true).
 *
 * @throws {LoopError} `PROPOSER_FAILED` from `run()` when a role has no reply left.
 */
export function createScriptedAgent(
  script: Readonly<Record<string, readonly ScriptedReply[]>>,
  options: { repeatLast?: boolean } = {},
): ScriptedAgent {
  const calls: AgentRequest[] = [];
  const used = new Map<string, number>();
  return {
    name: 'scripted',
    calls,
    run: (request) => {
      calls.push(request);
      const replies = script[request.role] ?? [];
      const n = used.get(request.role) ?? 0;
      used.set(request.role, n + 1);
      const reply = replies[n] ?? (options.repeatLast ? replies.at(-1) : undefined);
      if (reply === undefined) {
        throw new LoopError(
          'PROPOSER_FAILED',
          `[loop] [collie] scripted agent has no reply ${n + 1} for role "${request.role}"; add one to the script`,
          { details: { role: request.role } },
        );
      }
      const settle = (r: string | ScriptedUsageReply): string => {
        if (typeof r === 'string') return r;
        request.reportUsage?.(r.usage);
        return r.text;
      };
      if (typeof reply === 'function') {
        const r = reply(request);
        return r instanceof Promise ? r.then(settle) : settle(r);
      }
      return settle(reply);
    },
  };
}

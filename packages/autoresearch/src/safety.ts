import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { LoopError, type MaybePromise } from '@loop/core';

/**
 * One entry of {{SAFETY_CRITICAL_FLOWS}}. A plain string is a flow name; the object form also lists
 * path globs (`*` within a segment, `**` across segments) of the files that implement the flow.
 */
export type SafetyCriticalFlow = string | { readonly name: string; readonly files?: readonly string[] };

/** The question put to a human before an edit that touches safety-critical flows (seed 002: ASK before edits). */
export interface SafetyQuestion {
  /** The iteration the edit belongs to. */
  readonly iteration: number;
  /** The one-line description of the edit. */
  readonly description: string;
  /** The files it will touch (relative). */
  readonly files: readonly string[];
  /** The names of the safety-critical flows it touches (at least one). */
  readonly flows: readonly string[];
  /** {{CRITICALITY_PROFILE}}, when known. */
  readonly profile?: string;
  /** The slug of the edit (stable across runs; answers files may key on it). */
  readonly slug: string;
}

/** A human's answer: approved, or refused with an optional reason. */
export interface SafetyAnswer {
  /** True: apply the edit. False: skip it. */
  readonly approved: boolean;
  /** Why (recorded with a refusal). */
  readonly reason?: string;
}

/**
 * Asks a human whether an edit that touches safety-critical flows may be applied. Injected into
 * `runPass` (`safety.asker`). Throwing makes the iteration a `crash` (nothing was applied).
 */
export interface QuestionAsker {
  /** Used in logs. */
  readonly name: string;
  /** Answers one question. */
  readonly ask: (question: SafetyQuestion, signal: AbortSignal) => MaybePromise<SafetyAnswer>;
}

/** The ASK-before-edit settings of a pass (seed 002 safety brakes). */
export interface SafetyOptions {
  /** {{SAFETY_CRITICAL_FLOWS}} (`safetyCriticalFlows` from `loadPipelineContext`). */
  readonly flows: readonly SafetyCriticalFlow[];
  /** {{CRITICALITY_PROFILE}} (`criticalityProfile` from `loadPipelineContext`). */
  readonly profile?: string;
  /** Who answers. */
  readonly asker: QuestionAsker;
  /**
   * Whether the profile requires asking. The seed names no profile that waives the question, so
   * @default () => true (ask under every profile)
   */
  readonly askUnderProfile?: (profile: string | undefined) => boolean;
}

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i += 1;
      if (glob[i + 1] === '/') i += 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * The names of the safety-critical flows an edit touches: a flow the proposer declared in
 * `declared`, a flow whose `files` globs match a touched file, or a plain flow name equal
 * (case-insensitively, extension dropped) to a path segment of a touched file
 * (`payments` matches `src/payments/charge.ts` and `src/payments.ts`).
 *
 * @example flowsTouched(['payments', { name: 'auth', files: ['src/login/**'] }], ['src/login/session.ts']) // ['auth']
 */
export function flowsTouched(
  flows: readonly SafetyCriticalFlow[],
  files: readonly string[],
  declared: readonly string[] = [],
): string[] {
  const out: string[] = [];
  const declaredLower = new Set(declared.map((d) => d.toLowerCase()));
  for (const flow of flows) {
    const name = typeof flow === 'string' ? flow : flow.name;
    const globs = typeof flow === 'string' ? [] : (flow.files ?? []).map(globToRegExp);
    const lower = name.toLowerCase();
    const hit =
      declaredLower.has(lower) ||
      files.some((f) => globs.some((g) => g.test(f))) ||
      files.some((f) =>
        f.split('/').some((seg) => seg.toLowerCase() === lower || seg.toLowerCase().replace(/\.[^.]*$/, '') === lower),
      );
    if (hit && !out.includes(name)) out.push(name);
  }
  return out;
}

/** The question as one line for a human. */
export function formatSafetyQuestion(q: SafetyQuestion): string {
  return (
    `ASK (criticality ${q.profile ?? 'unset'}): iter ${q.iteration} edit ` +
    `"${q.description}" touches safety-critical flow(s) ${q.flows.join(', ')} ` +
    `in ${q.files.join(', ')}. Apply it? [y/N] `
  );
}

/**
 * An interactive {@link QuestionAsker}: writes the question to `output` and reads one line from
 * `input`; `y` or `yes` (any case) approves, anything else (including an empty line or a closed
 * input) refuses. Questions are asked one at a time.
 */
export function createInteractiveAsker(options: { input?: Readable; output?: Writable } = {}): QuestionAsker {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  return {
    name: 'interactive',
    ask: async (question, signal) => {
      const rl = createInterface({ input, output, terminal: false });
      try {
        const closed = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
        const answer = await Promise.race([rl.question(formatSafetyQuestion(question), { signal }), closed]);
        const approved = /^\s*y(es)?\s*$/i.test(answer);
        return approved
          ? { approved }
          : { approved, reason: answer.trim() === '' ? 'no answer (default No)' : `answered "${answer.trim()}"` };
      } finally {
        rl.close();
      }
    },
  };
}

/**
 * A {@link QuestionAsker} answered from a JSON file written ahead of time (non-interactive runs):
 * `{ "<flow name>": "yes" | "no", "<edit slug>": "yes" | "no" }`. An answer for the edit's slug
 * wins over answers per flow; every touched flow must be answered yes; a question without an
 * answer is refused (no consent, no edit). The file is re-read on every question.
 *
 * @throws {LoopError} `CONFIG_INVALID` (from `ask`, a `crash` iteration) when the file is missing, not JSON, or has a
 * value other than yes/no.
 */
export function createFileAsker(path: string): QuestionAsker {
  return {
    name: `answers(${path})`,
    ask: async (question) => {
      let answers: Record<string, unknown>;
      try {
        answers = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
        if (!answers || typeof answers !== 'object' || Array.isArray(answers)) throw new Error('not a JSON object');
      } catch (error) {
        throw new LoopError(
          'CONFIG_INVALID',
          `[loop] [autoresearch] safety answers file ${path} is ` +
            `unreadable: ${(error as Error).message}; write {"<flow>": "yes"|"no"}`,
          { cause: error, details: { path } },
        );
      }
      const read = (key: string): boolean | undefined => {
        const v = answers[key];
        if (v === undefined) return undefined;
        if (v === 'yes' || v === true) return true;
        if (v === 'no' || v === false) return false;
        throw new LoopError(
          'CONFIG_INVALID',
          `[loop] [autoresearch] safety answers file ${path}: "${key}" must be ` +
            `"yes" or "no", found ${JSON.stringify(v)}`,
          { details: { path, key } },
        );
      };
      const bySlug = read(question.slug);
      if (bySlug !== undefined)
        return bySlug ? { approved: true } : { approved: false, reason: `answered no for ${question.slug} in ${path}` };
      for (const flow of question.flows) {
        const a = read(flow);
        if (a === undefined) return { approved: false, reason: `no answer for flow ${flow} in ${path} (default No)` };
        if (!a) return { approved: false, reason: `answered no for flow ${flow} in ${path}` };
      }
      return { approved: true };
    },
  };
}

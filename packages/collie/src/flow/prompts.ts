import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { CapabilityTier } from '../agent.js';
import type { FixRecord } from '../records.js';
import type { TreeChange as SnapshotChange } from '@loop/rollback-snapshot';

/** The steps of the flow pipeline that dispatch an agent. */
export type FlowAgentStep = 'tdd' | 'implement' | 'review' | 'simplify' | 'finalReview';

/**
 * Role and tier of each agent step (seed 000 Section 0 model table: "apply fix patch → sonnet",
 * "code-reviewer → sonnet"; the final review is the deep / opus tier).
 */
export const FLOW_STEPS: Readonly<Record<FlowAgentStep, { readonly role: string; readonly tier: CapabilityTier }>> =
  Object.freeze({
    tdd: { role: 'flow-tdd', tier: 'standard' },
    implement: { role: 'flow-implement', tier: 'standard' },
    review: { role: 'flow-review', tier: 'standard' },
    simplify: { role: 'flow-simplify', tier: 'standard' },
    finalReview: { role: 'flow-final-review', tier: 'deep' },
  });

/** A review verdict; `found` is false when the reply had no `verdict:` line (counted as changes_requested). */
export interface ReviewVerdict {
  readonly verdict: 'approve' | 'changes_requested';
  readonly found: boolean;
}

const VERDICT_LINE = /^[\s>*_`-]*verdict[*_`\s]*:[*_`\s]*(approve|approved|changes[_ -]requested)\b/gim;

/** Reads the last `verdict: approve | changes_requested` line of a review reply (markdown emphasis tolerated). */
export function parseVerdict(reply: string): ReviewVerdict {
  const matches = [...reply.matchAll(VERDICT_LINE)];
  const last = matches.at(-1)?.[1]?.toLowerCase();
  if (last === undefined) return { verdict: 'changes_requested', found: false };
  return { verdict: last.startsWith('approve') ? 'approve' : 'changes_requested', found: true };
}

/** The FIX record as YAML, the form the agents get it in. */
export function fixYaml(fix: FixRecord): string {
  return stringify(fix);
}

function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

/**
 * The changed files with their new contents read from disk, at most `maxLines` lines per file
 * (review input).
 */
export async function renderChangedFiles(
  worktree: string,
  changes: readonly SnapshotChange[],
  maxLines: number,
): Promise<string> {
  if (changes.length === 0) return '(no file changed)';
  const parts: string[] = [];
  for (const c of changes) {
    if (c.status === 'deleted') {
      parts.push(`### ${c.path} (deleted)`);
      continue;
    }
    const bytes = await readFile(join(worktree, ...c.path.split('/'))).catch(() => undefined);
    if (bytes === undefined || looksBinary(bytes)) {
      parts.push(
        `### ${c.path} (${c.status}, ${bytes === undefined ? 'unreadable' : `binary, ${bytes.length} bytes`})`,
      );
      continue;
    }
    const lines = bytes.toString('utf8').replace(/\n$/, '').split('\n');
    const shown = lines.slice(0, maxLines).join('\n');
    const more = lines.length > maxLines ? `\n… (${lines.length - maxLines} more lines not shown)` : '';
    parts.push(`### ${c.path} (${c.status})\n\n\`\`\`\n${shown}\n\`\`\`${more}`);
  }
  return parts.join('\n\n');
}

const keyFiles = (fix: FixRecord) => fix.key_files.join(', ') || '(none listed)';
const head = (fix: FixRecord, worktree: string, what: string) =>
  `You are the ${what} subagent of a collie autoiter flow for ${fix.id} ` +
  `(kind ${fix.kind}) in the working copy at ${worktree}. You are a fresh ` +
  `agent: everything you need is below.`;
const noCommit = 'Do not commit and do not run git: the orchestrator commits the FIX as one commit.';

/** Prompt of the TDD step: write the reproduction test as a NEW test file among the key files. */
export function tddPrompt(fix: FixRecord, worktree: string): string {
  return [
    head(fix, worktree, 'TDD'),
    `Write the reproduction test of ${fix.id} (its reproduction_test field) ` +
      `as a NEW test file, one of its key files: ${keyFiles(fix)}.`,
    'The test must fail on the current code (red). Do not change any other file and do not modify existing test files.',
    noCommit,
    'Reply with one line: the test file you wrote.',
  ].join('\n');
}

/** Prompt of the implement step (also used for review and regression rounds, with their input). */
export function implementPrompt(fix: FixRecord, worktree: string, reproFiles: readonly string[]): string {
  return [
    head(fix, worktree, 'implement'),
    `Implement the smallest change that fixes the root cause, following ` +
      `fix_outline. Change only the non-test key files: ${keyFiles(fix)}.`,
    reproFiles.length > 0
      ? `The reproduction test ${reproFiles.join(', ')} must pass afterwards; do not edit it.`
      : 'Do not modify test files.',
    'When review comments or a regression log are given below, address them.',
    noCommit,
    'Reply with one line: what you changed.',
  ].join('\n');
}

/** Prompt of the review and final-review steps: the reply must end with a `verdict:` line. */
export function reviewPrompt(fix: FixRecord, worktree: string, final: boolean): string {
  return [
    head(fix, worktree, final ? 'final reviewer' : 'code reviewer'),
    final
      ? 'Do the final review of the whole change of this FIX after ' +
        'simplification and a green regression run: is the root cause fixed, is ' +
        'the change minimal and safe to commit?'
      : 'Review the change below against the FIX: correctness, root cause ' +
        'actually fixed, scope limited to the key files, no test weakened.',
    'Do not change any file.',
    'Write your comments, then one line exactly `verdict: approve` or `verdict: changes_requested`.',
  ].join('\n');
}

/** Prompt of the simplify step. */
export function simplifyPrompt(fix: FixRecord, worktree: string): string {
  return [
    head(fix, worktree, 'simplify'),
    `Simplify the changed code below without changing behaviour, if it can ` +
      `be simpler; otherwise change nothing. Same constraints: only the ` +
      `non-test key files (${keyFiles(fix)}), no test file edits.`,
    noCommit,
    'Reply with one line: what you simplified, or "nothing".',
  ].join('\n');
}

/**
 * How the reproduction test alone is run: a template where `{file}` is replaced by the new test
 * file(s) (relative to the worktree, space-separated, shell-quoted when needed), or a function of
 * the FIX, the worktree and those files returning the command (`undefined` = use `testCommand`).
 */
export type ReproCommand =
  string | ((fix: FixRecord, worktree: string, files: readonly string[]) => string | undefined);

const shellWord = (w: string) => (/^[\w./@%+=:,-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/** The command that runs the reproduction test `files` of `fix` (see {@link ReproCommand}). */
export function resolveReproCommand(
  repro: ReproCommand | undefined,
  testCommand: string,
  fix: FixRecord,
  worktree: string,
  files: readonly string[],
): string {
  if (repro === undefined) return testCommand;
  if (typeof repro === 'function') return repro(fix, worktree, files) ?? testCommand;
  return repro.replaceAll('{file}', files.map(shellWord).join(' '));
}

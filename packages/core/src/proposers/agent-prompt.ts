import { formatViolations } from '../policies/constraint-violations.js';
import type { IterationRecord } from '../contracts/iteration-record.js';
import type { ConstraintsFunction } from '../policies/pareto-math.js';
import type { ProposalContext } from '../contracts/proposer.js';
import { sanitizeCell } from '../contracts/results-log.js';

/**
 * Renders the loop's history for the prompt: the whole "results so far" block, heading included.
 * A preset passes its own file format (auto-iterate: `formatAutoIterateHistory`, the block as its
 * results.tsv reads); the default is {@link formatHistoryTable}.
 */
export type HistoryFormatter = (history: readonly IterationRecord[]) => string;

/** The line an agent prints to describe its change: `DESCRIPTION: <one line>`. */
const DESCRIPTION_LINE = /^\s*DESCRIPTION:\s*(.+?)\s*$/gm;

/** `format` followed by the history's constraint violations (`formatViolations`), when there are any. */
export function withViolations(
  format: HistoryFormatter,
  constraints: ConstraintsFunction | undefined,
  names: readonly string[] | undefined,
): HistoryFormatter {
  if (!constraints) return format;
  return (history) => {
    const block = formatViolations(history, constraints, names);
    return block ? `${format(history)}\n\n${block}` : format(history);
  };
}

/**
 * The format-neutral history block: a `## Results so far` heading, then one tab-separated line per
 * row, `iteration score status description`, in the engine's words (status baseline / kept /
 * reverted / rejected / crash; score `-` when there is none; free text through `sanitizeCell`).
 */
export function formatHistoryTable(history: readonly IterationRecord[]): string {
  const rows = history.map((r) =>
    [String(r.iteration), r.score === null ? '-' : String(r.score), r.status, sanitizeCell(r.description)].join('\t'),
  );
  return ['## Results so far', 'iteration\tscore\tstatus\tdescription', ...rows].join('\n');
}

/**
 * The default prompt (seed 001's isolation rule: each iteration is a fresh process that gets the
 * target, the results so far and the iteration number, and nothing else). The history block comes
 * from `formatHistory`; `memory` (lines from `buildMemorySections`: duplicates, notes, discarded
 * diffs, revisits, earlier runs) follows it. @default formatHistory {@link formatHistoryTable}
 */
export function buildAgentPrompt(
  goal: string,
  context: ProposalContext,
  formatHistory: HistoryFormatter = formatHistoryTable,
  memory: readonly string[] = [],
): string {
  const a = context.artifact;
  const lines = [
    `# Iteration ${context.iteration}${context.attempt > 0 ? ` (repair attempt ${context.attempt})` : ''}`,
    '',
    goal,
    '',
    `Scores: ${context.direction === 'minimize' ? 'lower' : 'higher'} is ` +
      `better. Baseline ${context.baseline}, best so far ${context.best}.`,
    a ? `You may modify ONLY: ${a.mutable.join(', ')}.` : '',
    a && a.readOnly.length > 0
      ? `Read but never modify: ${a.readOnly.join(', ')}. The evaluation is ground truth.`
      : '',
    '',
    formatHistory(context.history),
    '',
    ...memory,
  ];
  if (context.crash) {
    lines.push(
      '## The last candidate crashed',
      context.crash.message,
      '```',
      context.crash.logTail,
      '```',
      'If this is a simple bug (typo, missing import), fix it with a minimal edit. If not, change nothing.',
      '',
    );
  } else {
    lines.push(
      '## Your task',
      'Make ONE focused change that you expect to improve the score. Do not ' +
        'retry a discarded idea verbatim. Prefer simple changes; removing code ' +
        'without losing score is the best result.',
      '',
    );
  }
  if (context.hints.length > 0) lines.push('## Hints from the loop', ...context.hints.map((h) => `- ${h}`), '');
  lines.push('Finish by printing one line: `DESCRIPTION: <what you changed, one line>`.');
  return lines.filter((l, i, all) => !(l === '' && all[i - 1] === '')).join('\n');
}

/** Picks the description from agent output: the last `DESCRIPTION:` line, else the last non-empty line. */
export function descriptionFromOutput(output: string): string {
  let found: string | undefined;
  for (const m of output.matchAll(DESCRIPTION_LINE)) found = m[1];
  const fallback = output
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1);
  return (found ?? fallback ?? 'agent change (no description)').slice(0, 300);
}

import type { CandidateData, Harness, IterationRecord, Proposer, RunRecord, Scorer, ScoreResult } from '@loop/core';
import type { PassConfig } from './config.js';
import type { AutoresearchProposer, EditIdea } from './pass-options.js';
import type { PassHarness, PassScore } from './pass-harness.js';
import type { ResultsRow } from './results-tsv.js';
import { statusOf } from './pass-results-log.js';
import { countsAsRevert } from './statuses.js';

const messageOf = (error: unknown) => (error as Error)?.message ?? String(error);

/**
 * The pass's facts about ONE candidate, carried in the engine's per-candidate record
 * (`IterationRecord.data`): the idea under `autoresearch` (from the proposal) and the full score
 * under `autoresearchScore` (from the harness run; the engine merges stages key by key, so each
 * stage writes a key of its own).
 */
export interface PassCandidateData extends CandidateData {
  /** The idea as applied (its description is the apply's own account when it gave one). */
  readonly autoresearch?: { readonly idea: EditIdea };
  /** The harness's full score of the candidate (Tier-1 gates included). */
  readonly autoresearchScore?: PassScore;
}

/** The pass's data of `record`. */
export const passData = (record: IterationRecord): PassCandidateData => (record.data ?? {}) as PassCandidateData;

/** The idea `plan` picked for the iteration (carried in `EditPlan.data`). */
export const ideaOf = (data: unknown): EditIdea =>
  (data as { idea?: EditIdea } | undefined)?.idea ?? { description: '(no idea)' };

/**
 * The pass's proposer as the engine's: `plan` picks the idea (seed 002 loop steps 1-2, before the
 * pre-edit snapshot; the idea rides in `EditPlan.data`), `propose` applies it in
 * `config.internalRounds` apply/refine rounds (step 4: one in design mode, `internal_rounds` in
 * function mode) and returns the applied idea as the candidate's `data.autoresearch`. Either
 * throwing is a `crash` row whose error is the seed's chat wording. The proposer is shown this
 * run's reverted ideas from the engine's rows (`recentReverted`).
 */
export function engineProposer(
  p: AutoresearchProposer,
  o: { config: PassConfig; files: () => readonly string[]; rows: () => readonly ResultsRow[] },
): Proposer {
  let first: number | undefined;
  return {
    name: p.name,
    plan: async (ctx) => {
      try {
        const recent = recentReverted(ctx.history, (first ??= ctx.iteration));
        const idea = await p.plan({
          iteration: ctx.iteration,
          best: ctx.best,
          baseline: ctx.baseline,
          files: o.files(),
          rows: o.rows(),
          recentReverted: recent,
        });
        return {
          description: idea.description,
          ...(idea.files ? { files: idea.files } : {}),
          slug: idea.slug ?? idea.description,
          data: { idea },
        };
      } catch (error) {
        throw new Error(`(no idea) (crash: plan or ASK failed: ${messageOf(error)})`, { cause: error });
      }
    },
    propose: async (ctx) => {
      let idea = ideaOf(ctx.plan?.data);
      const rounds = o.config.internalRounds;
      try {
        for (let round = 0; round < rounds; round += 1) {
          const applied = await p.apply(idea, { iteration: ctx.iteration, round, rounds });
          // The edit's own account of what it did replaces the planned idea's text (a proposer
          // without a plan step has only a placeholder like `edit 3` until it has made the edit).
          const told = applied?.description?.trim();
          if (told) idea = { ...idea, description: told };
        }
      } catch (error) {
        throw new Error(`${idea.description} (crash: proposer failed: ${messageOf(error)})`, { cause: error });
      }
      return { description: idea.description, data: { autoresearch: { idea } } satisfies PassCandidateData };
    },
  };
}

/**
 * Descriptions of the reverted, reverted-redtest and crash ideas among `history`'s rows from
 * iteration `from` on (this run's), newest last: do not repeat them.
 */
export function recentReverted(history: readonly IterationRecord[], from: number): string[] {
  return history
    .filter((r) => r.iteration >= from && r.status !== 'baseline' && countsAsRevert(statusOf(r)))
    .map(ideaDescription);
}

/** What a guard's verdict appended to the description (` (<guard>: <note>)`), taken off again. */
function withoutNote(record: IterationRecord): string {
  const suffix = record.note ? ` (${record.note})` : '';
  return suffix && record.description.endsWith(suffix)
    ? record.description.slice(0, -suffix.length)
    : record.description;
}

/** The idea of a row: the applied idea's description, else the planned one (a guard stopped it before the edit). */
export function ideaDescription(record: IterationRecord): string {
  return passData(record).autoresearch?.idea.description ?? withoutNote(record);
}

/** The chat-line wording of the pass's own guards' verdicts, by guard name (the note without the guard's name). */
const GUARD_WORDING: Record<string, (note: string) => string> = {
  'ask-before-edit': (note) =>
    note.startsWith('ASK failed: ')
      ? `crash: plan or ASK failed: ${note.slice('ASK failed: '.length)}`
      : `skipped: ${note}`,
  'mutable-surface': (note) => `crash: plan or ASK failed: ${note}`,
  'rubric-fingerprint': () => 'not scored: rubric-tampered',
  'harness-files': (note) => `not scored: harness-tampered: ${/\((.*?)\)/.exec(note)?.[1] ?? ''}`,
  'needs-human': (note) => `needs-human: ${note}`,
};

/**
 * The chat line's description of `record` (seed 002 Output: one line per iteration): the row's own
 * description, in the seed's wording for a row the pass's guards or a crashing proposer decided.
 */
export function describeRow(record: IterationRecord): string {
  if (record.label === 'restore-failed') return record.description;
  // A crashing plan or apply: the engine's `proposer failed: <error>`, the error in the seed's wording.
  if (
    record.status === 'crash' &&
    record.error !== undefined &&
    record.description === `proposer failed: ${record.error}`
  ) {
    return record.error;
  }
  const guard = record.note?.split(': ', 1)[0];
  const wording = guard !== undefined ? GUARD_WORDING[guard] : undefined;
  if (!wording) return record.description;
  return `${withoutNote(record)} (${wording(record.note!.slice(guard!.length + 2))})`;
}

/**
 * The pass's harness and scorer as the engine's. A harness that throws is a `crash` score. The
 * full {@link PassScore} rides in the run record's `data.autoresearchScore`. In function mode the
 * Tier-1 test gate reaches the keep policy as `gates.tests` when `testsGate()` says the pass
 * started green, so a green-to-red candidate is `reverted-redtest` (`tier1Gates`). The engine's
 * baseline row carries no `data`, so the baseline's full score is also handed to `onBaseline`.
 */
export function engineHarness(
  h: PassHarness,
  o: { config: PassConfig; testsGate: () => boolean; onBaseline?: (score: PassScore) => void },
): { harness: Harness; scorer: Scorer } {
  const harness: Harness = {
    name: h.name,
    run: async (ctx): Promise<RunRecord> => {
      let score: PassScore;
      try {
        score = await h.score({ iteration: ctx.iteration, signal: ctx.signal });
      } catch (error) {
        return { exitCode: null, signal: null, timedOut: false, durationMs: 0, error: messageOf(error) };
      }
      if (ctx.iteration === 0) o.onBaseline?.(score);
      const data: PassCandidateData = { autoresearchScore: score };
      return {
        exitCode: 0,
        signal: null,
        timedOut: false,
        durationMs: 0,
        value: score.composite,
        dimensions: score.dimensions,
        data,
      };
    },
  };
  const scorer: Scorer = {
    name: `${h.name} composite`,
    direction: 'maximize',
    score: (record): ScoreResult => {
      const score = (record.data as PassCandidateData | undefined)?.autoresearchScore;
      if (!score)
        return { ok: false, reason: 'harness-error', message: record.error ?? 'the harness returned no score' };
      const gates =
        o.config.mode === 'function' && o.testsGate() && score.gates ? { tests: score.gates.testsGreen } : undefined;
      return { ok: true, value: score.composite, dimensions: score.dimensions, ...(gates ? { gates } : {}) };
    },
  };
  return { harness, scorer };
}

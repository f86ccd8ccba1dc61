import type { Harness, Proposer, RunRecord, Scorer, ScoreResult } from '@loop/core';
import type { PassConfig } from './config.js';
import type { AutoresearchProposer } from './pass-options.js';
import type { PassHarness, PassScore } from './pass-harness.js';
import type { PassRun } from './pass-run.js';
import type { ResultsRow } from './results-tsv.js';

const messageOf = (error: unknown) => (error as Error)?.message ?? String(error);

/**
 * The pass's proposer as the engine's: `plan` picks the idea (seed 002 loop steps 1-2, before the
 * pre-edit snapshot; the idea rides in `EditPlan.data`), `propose` applies it in
 * `config.internalRounds` apply/refine rounds (step 4: one in design mode, `internal_rounds` in
 * function mode). Either throwing is a `crash` row; the chat line keeps the seed's wording.
 */
export function engineProposer(p: AutoresearchProposer, o: { run: PassRun; config: PassConfig; files: () => readonly string[]; rows: () => readonly ResultsRow[]; recentReverted: readonly string[] }): Proposer {
  const { run } = o;
  return {
    name: p.name,
    plan: async (ctx) => {
      try {
        const idea = await p.plan({ iteration: ctx.iteration, best: ctx.best, baseline: ctx.baseline, files: o.files(), rows: o.rows(), recentReverted: [...o.recentReverted] });
        run.ideas.set(ctx.iteration, idea);
        return { description: idea.description, ...(idea.files ? { files: idea.files } : {}), slug: idea.slug ?? idea.description, data: { idea } };
      } catch (error) {
        run.describe(ctx.iteration, `(no idea) (crash: plan or ASK failed: ${messageOf(error)})`);
        throw error;
      }
    },
    propose: async (ctx) => {
      let idea = run.ideas.get(ctx.iteration) ?? { description: '(no idea)' };
      const rounds = o.config.internalRounds;
      try {
        for (let round = 0; round < rounds; round += 1) {
          const applied = await p.apply(idea, { iteration: ctx.iteration, round, rounds });
          // The edit's own account of what it did replaces the planned idea's text (a proposer
          // without a plan step has only a placeholder like `edit 3` until it has made the edit).
          const told = applied?.description?.trim();
          if (told) {
            idea = { ...idea, description: told };
            run.ideas.set(ctx.iteration, idea);
          }
        }
      } catch (error) {
        run.describe(ctx.iteration, `${idea.description} (crash: proposer failed: ${messageOf(error)})`);
        throw error;
      }
      return { description: idea.description };
    },
  };
}

/**
 * The pass's harness and scorer as the engine's. The baseline (iteration 0) was scored before the
 * snapshot was taken (seed 002 setup step 5: score, then snapshot), so its run returns that score.
 * A harness that throws is a `crash` score. In function mode the Tier-1 test gate reaches the keep
 * policy as `gates.tests` when the baseline's tests were green, so a green-to-red candidate is
 * `reverted-redtest` (`tier1Gates`); the full {@link PassScore} is kept in `run.scores`.
 */
export function engineHarness(h: PassHarness, o: { run: PassRun; config: PassConfig; baseline?: PassScore }): { harness: Harness; scorer: Scorer } {
  let last: PassScore | Error | undefined;
  const harness: Harness = {
    name: h.name,
    run: async (ctx): Promise<RunRecord> => {
      let outcome: PassScore | Error;
      if (ctx.iteration === 0 && o.baseline) outcome = o.baseline;
      else {
        try {
          outcome = await h.score({ iteration: ctx.iteration, signal: ctx.signal });
        } catch (error) {
          outcome = error instanceof Error ? error : new Error(String(error));
        }
      }
      last = outcome;
      if (outcome instanceof Error) return { exitCode: null, signal: null, timedOut: false, durationMs: 0, error: outcome.message };
      o.run.scores.set(ctx.iteration, outcome);
      return { exitCode: 0, signal: null, timedOut: false, durationMs: 0, value: outcome.composite, dimensions: outcome.dimensions };
    },
  };
  const scorer: Scorer = {
    name: `${h.name} composite`,
    direction: 'maximize',
    score: (record): ScoreResult => {
      const outcome = last;
      if (!outcome || outcome instanceof Error || record.value === undefined) return { ok: false, reason: 'harness-error', message: record.error ?? 'the harness returned no score' };
      const gates = o.config.mode === 'function' && o.run.baselineGreen && outcome.gates ? { tests: outcome.gates.testsGreen } : undefined;
      return { ok: true, value: outcome.composite, dimensions: outcome.dimensions, ...(gates ? { gates } : {}) };
    },
  };
  return { harness, scorer };
}

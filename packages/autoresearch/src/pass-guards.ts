import { normalize, sep } from 'node:path';
import { type Guard, type GuardVerdict } from '@loop/core';
import { slugify } from '@loop/rollback-snapshot/snapshot-names';
import { ideaOf } from './pass-engine.js';
import type { RefusedEdit } from './pass-options.js';
import { computeRubricFingerprint } from './rubric-fingerprint.js';
import { flowsTouched, type SafetyOptions, type SafetyQuestion } from './safety.js';

/**
 * Seed 002 loop step 5: before every scoring, the rubric SHA-256 (criteria YAML + reflection agent
 * prompt, setup step 7's recipe) is recomputed; a mismatch halts the pass as `rubric-tampered`: the
 * unscored edit is rolled back and the stop sequence runs (every score across the change is
 * incomparable).
 */
export function rubricGuard(o: { rubricFiles: readonly string[]; expected: string }): Guard {
  return {
    name: 'rubric-fingerprint',
    beforeRun: async (): Promise<GuardVerdict | undefined> => {
      const now = await computeRubricFingerprint([...o.rubricFiles]).catch(() => 'unreadable');
      if (now === o.expected) return undefined;
      const note =
        `[loop] [autoresearch] the rubric changed mid-pass ` +
        `(sha256 ${o.expected.slice(0, 12)} -> ${now.slice(0, 12)}): every score ` +
        `across the change is incomparable; pass halted`;
      return { action: 'halt', status: 'rubric-tampered', note };
    },
  };
}

/**
 * Seed 002 safety brakes, "Never edit the harness ... Modifying the harness makes the score
 * meaningless": the harness's own files that are not rubric files (the reflection tool script, the
 * test runner) are fingerprinted at pass start (`expected`, from {@link computeRubricFingerprint}
 * over `files`) and re-checked before every scoring; a change halts the pass as `harness-tampered`,
 * so an edit that games the harness is never scored, kept or allowed to reach target-met
 * (issue 11 fault 5). The snapshot rollback cannot restore files outside the mutable surface, so
 * the pass halts rather than going on against a changed harness.
 */
export function harnessFilesGuard(o: { files: readonly string[]; expected: readonly string[] }): Guard {
  return {
    name: 'harness-files',
    beforeRun: async (): Promise<GuardVerdict | undefined> => {
      const changed: string[] = [];
      for (const [i, f] of o.files.entries()) {
        const now = await computeRubricFingerprint([f]).catch(() => 'unreadable');
        if (now !== o.expected[i]) changed.push(f);
      }
      if (changed.length === 0) return undefined;
      const note =
        `[loop] [autoresearch] the harness changed mid-pass ` +
        `(${changed.join(', ')}): seed 002 "never edit the harness"; the edit was ` +
        `not scored and the pass halted. Restore ${changed.join(', ')} by hand ` +
        `(it is outside the mutable surface, so no snapshot holds it)`;
      return { action: 'halt', status: 'harness-tampered', note };
    },
  };
}

/**
 * The per-file SHA-256 fingerprints {@link harnessFilesGuard} compares with, in `files` order.
 *
 * @throws {LoopError} `HARNESS_TAMPERED` naming a file that is missing at pass start.
 */
export async function harnessFilesFingerprint(files: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const f of files) out.push(await computeRubricFingerprint([f]));
  return out;
}

/**
 * Seed 002 safety brakes, "No new dependencies, no framework migration, no plaintext secrets. If a
 * fix seems to need a new dep or a secret, stop and surface it — do not add it": an idea with
 * `needsHuman` halts the pass before anything is snapshotted or applied, as a `needs-human` row
 * (composite and snapshot `-`) naming what it needs; the stop is not a failure (status `stopped`).
 */
export function needsHumanGuard(): Guard {
  return {
    name: 'needs-human',
    beforeEdit: ({ iteration, plan }): GuardVerdict | undefined => {
      const idea = ideaOf(plan?.data);
      if (!idea.needsHuman) return undefined;
      const message =
        `iter ${iteration} "${idea.description}" needs ` +
        `a ${idea.needsHuman.kind}: ${idea.needsHuman.detail} — surfaced, not ` +
        `added; nothing was applied`;
      return { action: 'halt', status: 'needs-human', note: message };
    },
  };
}

/**
 * Seed 002 safety brakes, "Respect {{CRITICALITY_PROFILE}}: ASK before edits touching
 * {{SAFETY_CRITICAL_FLOWS}}": an edit whose files or declared flows touch a listed flow is put to
 * `safety.asker` after `plan` and before the pre-edit snapshot. A refusal skips it: nothing is
 * snapshotted or applied and the row is `reverted` (composite `-`, snapshot `-`), counted toward
 * max_consecutive_reverts, reported through `refused`. An asker that fails is a `crash` row with
 * nothing applied, never a silent edit.
 */
export function safetyGuard(o: {
  safety: SafetyOptions | undefined;
  surface: () => readonly string[];
  refused: (edit: RefusedEdit) => void;
}): Guard {
  return {
    name: 'ask-before-edit',
    beforeEdit: async ({ iteration, plan, signal }): Promise<GuardVerdict | undefined> => {
      const { safety } = o;
      if (!safety || safety.flows.length === 0) return undefined;
      if (!(safety.askUnderProfile ?? (() => true))(safety.profile)) return undefined;
      const idea = ideaOf(plan?.data);
      const files = idea.files ?? o.surface();
      const flows = flowsTouched(safety.flows, files, idea.flows ?? []);
      if (flows.length === 0) return undefined;
      const question: SafetyQuestion = {
        iteration,
        description: idea.description,
        files,
        flows,
        slug: slugify(idea.slug ?? idea.description),
        ...(safety.profile !== undefined ? { profile: safety.profile } : {}),
      };
      let answer;
      try {
        answer = await safety.asker.ask(question, signal);
      } catch (error) {
        const message = (error as Error)?.message ?? String(error);
        return { action: 'skip', status: 'crash', note: `ASK failed: ${message}` };
      }
      if (answer.approved) return undefined;
      const reason = answer.reason ?? 'refused';
      o.refused({ iter: iteration, description: idea.description, flows, files, reason });
      return { action: 'skip', note: `ASK refused for safety-critical flow ${flows.join(', ')}: ${reason}` };
    },
  };
}

/**
 * Seed 002 safety brakes, "Touch only the mutable surface resolved in setup": an idea planning to
 * touch a file outside the surface is a `crash` row before anything is snapshotted or applied.
 */
export function surfaceGuard(o: { surface: () => readonly string[] }): Guard {
  return {
    name: 'mutable-surface',
    beforeEdit: ({ plan }): GuardVerdict | undefined => {
      const surface = o.surface();
      const outside = (plan?.files ?? []).filter((f) => !surface.includes(normalize(f).split(sep).join('/')));
      if (outside.length === 0) return undefined;
      const note =
        `the edit plans to touch ${outside.join(', ')}, outside the mutable ` +
        `surface; only ${surface.join(', ')} may change`;
      return { action: 'skip', status: 'crash', note };
    },
  };
}
